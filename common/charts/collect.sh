#!/usr/bin/env bash
# make data: runs each lab's experiments and writes data/<lab>_<what>.csv.
#
#   collect.sh BIN_DIR SUFFIX OUT_DIR [LAB ...]
#
# BIN_DIR/<id>SUFFIX is the program (SUFFIX "-sol" for the reference, "" for
# the student's code).  An experiment is a set of lines of
# labs/<lab>/experiments.txt that share their first word <what>; each line
# is one run of the program with those arguments plus --csv, and the runs'
# rows are appended under the first run's header.  Each CSV opens with '#'
# lines saying where, when and how it was measured.  A line whose arguments
# start with @ runs that command instead of the lab's program (a measurement
# of something else the README compares with, e.g. '@python3 script.py').
# set -u only: an experiment that fails is reported (exit 1 at the end) and
# the next one still runs.
set -u
bin_dir=$1 suffix=$2 out_dir=$3
shift 3
mkdir -p "$out_dir" || exit 1

machine_header() {
	local cpu cores
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	cores=$(nproc)
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# machine: ${cpu:-unknown CPU}, $cores cores"
	echo "# kernel: $(uname -sr)"
	# A shared 2-core VM: the load when the experiment began says how far to
	# trust its absolute times (ratios and medians move much less).
	echo "# load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) when the experiment began, on $(nproc) cores"
	echo "# libevent: $(pkg-config --modversion libevent 2>/dev/null || echo unknown);" \
		"openssl: $(pkg-config --modversion libcrypto 2>/dev/null || echo unknown)"
}

# run_experiment LAB WHAT: every line of that experiment, into one CSV.
run_experiment() {
	local lab=$1 what=$2 id=${1%%_*} out tmp header="" line args
	out="$out_dir/${lab}_${what}.csv"
	tmp=$(mktemp)
	{
		echo "# yieldlab data: $lab, experiment '$what'"
		machine_header
		if grep -q "^$what[[:space:]]\+@" "labs/$lab/experiments.txt"; then
			echo "# program: the command of each run below (not the lab's program)"
		else
			echo "# program: $bin_dir/$id$suffix ($([ -n "$suffix" ] && echo the reference solution || echo your code))"
		fi
	} >"$tmp"
	while read -r line; do
		set -- $line
		[ "${1:-}" = "$what" ] || continue
		shift
		args="$*"
		case $args in
		@*) echo "# run: ${args#@} --csv" >>"$tmp" ;;
		*) echo "# run: $id$suffix $args --csv" >>"$tmp" ;;
		esac
	done <"labs/$lab/experiments.txt"
	while read -r line; do
		set -- $line
		[ "${1:-}" = "$what" ] || continue
		shift
		prog=("$bin_dir/$id$suffix")
		case ${1:-} in
		@*) prog=("${1#@}"); shift ;;
		esac
		if ! "${prog[@]}" "$@" --csv >"$tmp.run" 2>"$tmp.err"; then
			echo "make data: ${prog[*]} $* --csv failed:" >&2
			cat "$tmp.err" >&2
			rm -f "$tmp" "$tmp.run" "$tmp.err"
			return 1
		fi
		if [ -z "$header" ]; then
			header=$(head -1 "$tmp.run")
			echo "$header" >>"$tmp"
		elif [ "$(head -1 "$tmp.run")" != "$header" ]; then
			echo "make data: $lab/$what: runs print different headers" >&2
			return 1
		fi
		tail -n +2 "$tmp.run" >>"$tmp"
	done <"labs/$lab/experiments.txt"
	mv "$tmp" "$out"
	rm -f "$tmp.run" "$tmp.err"
	echo "  wrote $out" >&2
}

status=0
for lab in "$@"; do
	file="labs/$lab/experiments.txt"
	[ -f "$file" ] || continue
	for what in $(grep -v '^[[:space:]]*\(#\|$\)' "$file" | awk '{ print $1 }' | uniq); do
		echo "make data: $lab $what ..." >&2
		run_experiment "$lab" "$what" || status=1
	done
done
exit $status
