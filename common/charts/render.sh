#!/usr/bin/env bash
# make plots: renders every plots/*.gp into OUT_DIR/<name>.png and .svg from
# the CSVs in DATA_DIR; never measures anything.
#
#   render.sh [--beside REF_DIR] DATA_DIR OUT_DIR [CHART ...]
#
# --beside REF_DIR (make plots SRC=labs): each chart is a page of two
# panels, the reference's data from REF_DIR on the left and DATA_DIR's (the
# student's) on the right; without the reference's CSVs it is the
# student's alone.  A chart the student has no data for is skipped with a
# note saying which make data to run, and is not an error.
#
# A chart script names its inputs in a line "# inputs: a.csv b.csv" (files
# of DATA_DIR).  Each input is checked first (check_csv), and a missing or
# malformed one stops that chart with a message naming the file.  The
# script gets gnuplot variables data_dir, out, fmt (png|svg) and footnote
# (machine and date from the first input's header).
# set -u only: a chart that cannot be drawn is reported (exit 1 at the end)
# and the next one is still drawn.
set -u
here=$(dirname "$0")
ref_dir=""
if [ "${1:-}" = --beside ]; then
	ref_dir=$2
	shift 2
fi
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

# The make bench CSVs (bench_*.csv) a lab chart shows beside its own data
# are always the suite's, from data/: a student measures the lab, not
# the bench.  A chart script reads them from bench_dir.
bench_dir=${YIELDLAB_BENCH_DIR:-data}
dir_of() { case $2 in bench_*) echo "$bench_dir" ;; *) echo "$1" ;; esac; }

# inputs_ok DIR INPUTS: every input is in DIR and well formed (quiet).
inputs_ok() {
	local csv
	for csv in $2; do
		bash "$here/check_csv.sh" "$(dir_of "$1" "$csv")/$csv" 2>/dev/null || return 1
	done
}

# draw_beside CHART FMT FOOTNOTE: the reference and the student's data as
# two panels of one page (the chart scripts' panel mode, as overview.gp).
draw_beside() {
	local term="pngcairo size 1800,560" font="sans,10" script="$out_dir/.$1.beside.gp"
	[ "$2" = svg ] && term="svg size 1800,560 dynamic" && font="sans,11"
	cat >"$script" <<-EOF
		fmt = '$2'; footnote = '$3'; bench_dir = '$bench_dir'
		set terminal $term enhanced font '$font' background rgb 'white'
		set output '$out_dir/$1.$2'
		panel = 1
		set multiplot layout 1,2 title "left: the reference (${ref_dir}/); right: yours (${data_dir}/)\\n{/*0.8 ".footnote."}" font ',13'
		data_dir = '$ref_dir'
		load 'plots/$1.gp'
		reset
		data_dir = '$data_dir'
		load 'plots/$1.gp'
		unset multiplot
	EOF
	gnuplot "$script"
	local rc=$?
	rm -f "$script"
	return $rc
}

status=0
for chart in "${charts[@]}"; do
	gp="plots/$chart.gp"
	inputs=$(sed -n 's/^# inputs: //p' "$gp" | head -1)
	ok=1
	if [ -n "$ref_dir" ] && [ -z "$(for csv in $inputs; do case $csv in bench_*) ;; *) echo x ;; esac; done)" ]; then
		continue    # a make bench chart: nothing of the student's to draw
	fi
	if [ -n "$ref_dir" ] && [ -n "$inputs" ] && ! inputs_ok "$data_dir" "$inputs"; then
		missing=$(for csv in $inputs; do [ -f "$(dir_of "$data_dir" "$csv")/$csv" ] || echo "$csv"; done)
		if [ -n "$missing" ]; then
			echo "make plots: $chart: no data of yours yet ($(echo $missing)); run 'make data SRC=labs' for its lab" >&2
			continue
		fi
	fi
	for csv in $inputs; do
		bash "$here/check_csv.sh" "$(dir_of "$data_dir" "$csv")/$csv" || ok=0
	done
	if [ $ok = 0 ] || [ -z "$inputs" ]; then
		[ -z "$inputs" ] && echo "make plots: $gp has no '# inputs:' line" >&2
		echo "make plots: skipped $chart" >&2
		status=1
		continue
	fi
	first=$(set -- $inputs; echo "$1")
	foot=$(footnote_of "$(dir_of "$data_dir" "$first")/$first" | tr -d "'")
	beside=""
	[ -n "$ref_dir" ] && [ "$chart" != overview ] && inputs_ok "$ref_dir" "$inputs" && beside=1
	for fmt in png svg; do
		if [ -n "$beside" ]; then
			draw_beside "$chart" "$fmt" "yours: $foot" 2>"$out_dir/.$chart.err"
		else
			gnuplot -e "data_dir='$data_dir'; bench_dir='$bench_dir'; out='$out_dir/$chart.$fmt'; fmt='$fmt'; footnote='$foot'" \
				"$gp" 2>"$out_dir/.$chart.err"
		fi
		if [ $? -ne 0 ]; then
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
