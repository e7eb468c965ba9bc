#!/usr/bin/env bash
# make plots: renders every plots/*.gp into OUT_DIR/<name>.png and .svg from
# the CSVs in DATA_DIR; never measures anything.
#
#   render.sh DATA_DIR OUT_DIR [CHART ...]
#
# A chart script names its inputs in a line "# inputs: a.csv b.csv" (files
# of DATA_DIR).  Each input is checked first (check_csv), and a missing or
# malformed one stops that chart with a message naming the file.  The
# script gets gnuplot variables data_dir, out, fmt (png|svg) and footnote
# (machine and date from the first input's header).
set -u
here=$(dirname "$0")
data_dir=$1 out_dir=$2
shift 2
mkdir -p "$out_dir" || exit 1
command -v gnuplot >/dev/null 2>&1 || {
	echo "make plots: gnuplot is missing: sudo apt-get install gnuplot-nox" >&2
	exit 1
}

charts=("$@")
if [ ${#charts[@]} -eq 0 ]; then
	for gp in plots/*.gp; do
		[ "$(basename "$gp")" = style.gp ] || charts+=("$(basename "$gp" .gp)")
	done
fi

footnote_of() {
	local machine date
	machine=$(sed -n 's/^# machine: //p' "$1" | head -1)
	date=$(sed -n 's/^# date: //p' "$1" | head -1)
	echo "measured ${date%%T*} on ${machine}, libevent $(sed -n 's/^# libevent: \([^;]*\);.*/\1/p' "$1" | head -1)"
}

status=0
for chart in "${charts[@]}"; do
	gp="plots/$chart.gp"
	inputs=$(sed -n 's/^# inputs: //p' "$gp" | head -1)
	ok=1
	for csv in $inputs; do
		bash "$here/check_csv.sh" "$data_dir/$csv" || ok=0
	done
	if [ $ok = 0 ] || [ -z "$inputs" ]; then
		[ -z "$inputs" ] && echo "make plots: $gp has no '# inputs:' line" >&2
		echo "make plots: skipped $chart" >&2
		status=1
		continue
	fi
	first=$(set -- $inputs; echo "$1")
	foot=$(footnote_of "$data_dir/$first" | tr -d "'")
	for fmt in png svg; do
		if ! gnuplot -e "data_dir='$data_dir'; out='$out_dir/$chart.$fmt'; fmt='$fmt'; footnote='$foot'" \
			"$gp" 2>"$out_dir/.$chart.err"; then
			echo "make plots: gnuplot failed on $gp:" >&2
			cat "$out_dir/.$chart.err" >&2
			status=1
		elif [ ! -s "$out_dir/$chart.$fmt" ]; then
			echo "make plots: $gp wrote nothing to $out_dir/$chart.$fmt" >&2
			status=1
		fi
		rm -f "$out_dir/.$chart.err"
	done
	[ $status = 0 ] && echo "  drew $out_dir/$chart.png and .svg" >&2
done
exit $status
