#!/usr/bin/env bash
# Grades the reference solutions K times while busy loops keep the cores
# loaded, and reports every run that was not full marks, with its failing
# tests.  The goal is zero: a failure here is a flaky test to fix.
#
#   common/grade/stress.sh [-k RUNS] [-l BUSY_PROCS] [-j LABS_AT_ONCE]
#                          [-s address|thread] [LAB ...]
#
# Defaults: 20 runs, one busy loop per core, one lab at a time, every lab,
# plain build.  -j 2: each run is a `make -j2 grade SOL=1` (two labs at
# once), so a real-time test that loses its margin beside another lab
# shows here.
# set -u only: a run below full marks is counted and the next run goes on.
set -u
cd "$(dirname "$0")/../.." || exit 3

runs=20
load=$(nproc)
jobs=1
san=
usage() {
	echo "usage: $0 [-k RUNS] [-l BUSY_PROCS] [-j LABS_AT_ONCE] [-s address|thread] [LAB ...]" >&2
	exit 2
}
while getopts "k:l:j:s:h" opt; do
	case $opt in
	k) runs=$OPTARG ;;
	l) load=$OPTARG ;;
	j) jobs=$OPTARG ;;
	s) san=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[0-9]+$ && $load =~ ^[0-9]+$ && $jobs =~ ^[1-9][0-9]*$ ]] || usage

B=${BUILD:-build}
dir=$B${san:+/san-$san}
make -s BUILD="$B" ${san:+SAN=$san} graders || exit 3

labs_info=$(make -s --no-print-directory labs-info LAB= | tail -n +2)
[ -n "$labs_info" ] || { echo "$0: make labs-info listed no lab" >&2; exit 3; }
labs=("$@")
[ ${#labs[@]} -gt 0 ] || mapfile -t labs < <(awk '{ print $1 }' <<<"$labs_info")

busy=()
for ((i = 0; i < load; i++)); do
	bash -c 'while :; do :; done' &
	busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null' EXIT

tmp=$(mktemp -d)
bad=0
start=$(date +%s)

# -j 1: each lab's reference grader, run directly, one lab after another.
grade_run_one_by_one() {
	local r=$1 id out
	for id in "${labs[@]}"; do
		out="$tmp/$r-$id"
		"$dir/grader/$id-sol" --out "$out" >"$out.log" 2>&1
		report_bad "$r" "$id" "$out"
	done
}

# -j N: one `make -jN grade SOL=1` of the labs, the way a student grades in
# parallel (the runner's --jobs, TSan reruns included), into its own folder.
grade_run_in_parallel() {
	local r=$1 out="$tmp/$1" id
	make -s --no-print-directory -j"$jobs" BUILD="$B" ${san:+SAN=$san} SOL=1 \
		LAB="$(IFS=,; echo "${labs[*]}")" GRADE_DIR="$out" grade >"$out.log" 2>&1
	for id in "${labs[@]}"; do
		report_bad "$r" "$id" "$out"
	done
}

# report_bad RUN ID OUT: counts and names the lab's tests that did not pass
# in results folder OUT (a lab with no signed result counts as well).
report_bad() {
	local lab failed count t
	lab=$(awk -v id="$2" '$1 == id { print $2 }' <<<"$labs_info")
	failed=$("$dir"/bin/grade-run tags --out "$3" --lab "$lab" 2>/dev/null |
		awk '$2 != "pass" { print $1, $2 }')
	count=$("$dir"/bin/grade-run field --out "$3" --lab "$lab" 5 2>/dev/null)
	[ -z "$failed" ] && [ -n "$count" ] && return 0
	bad=$((bad + 1))
	echo "run $1 $2: not full marks:"
	if [ -z "$failed" ]; then
		echo "    no signed result; the end of the log:"
		tail -5 "$3.log" | sed 's/^/      /'
		return
	fi
	# Each failing test with what it expected and got (the runner's lines
	# under it): a flake is rare, and its one report must say enough to fix.
	while read -r t tag; do
		echo "    $lab/$t: $tag"
		grep -A3 -E "^ +[a-z]+ +[0-9]+/[0-9]+ +$t " "$3.log" | tail -n +2 | sed 's/^ */      /'
	done <<<"$failed"
}

for ((r = 1; r <= runs; r++)); do
	if [ "$jobs" -gt 1 ]; then
		grade_run_in_parallel "$r"
	else
		grade_run_one_by_one "$r"
	fi
	printf 'run %d/%d done\n' "$r" "$runs" >&2
done
rm -rf "$tmp"
echo "stress: $runs runs x ${#labs[@]} labs (${labs[*]}), $jobs at once, $load busy loops" \
	"on $(nproc) cores${san:+, SAN=$san}, $(( $(date +%s) - start )) s:" \
	"$bad runs below full marks"
[ $bad -eq 0 ]
