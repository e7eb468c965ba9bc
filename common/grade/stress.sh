#!/usr/bin/env bash
# Grades the reference solutions K times while busy loops keep the cores
# loaded, and reports every run that was not full marks, with its failing
# tests.  The goal is zero: a failure here is a flaky test to fix.
#
#   common/grade/stress.sh [-k RUNS] [-l BUSY_PROCS] [-j LABS_AT_ONCE]
#                          [-s address|thread] [LAB ...]
#
# Defaults: 20 runs, one busy loop per core, one lab at a time, every lab,
# plain build.  -j 2 grades two labs at once, as `make -j2 grade` does, so
# a real-time test that loses its margin beside another lab shows here.
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

labs=("$@")
if [ ${#labs[@]} -eq 0 ]; then
	mapfile -t labs < <(make -s --no-print-directory labs-info LAB= | awk 'NR > 1 { print $1 }')
	[ ${#labs[@]} -gt 0 ] || { echo "$0: make labs-info listed no lab" >&2; exit 3; }
fi

busy=()
for ((i = 0; i < load; i++)); do
	bash -c 'while :; do :; done' &
	busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null' EXIT

tmp=$(mktemp -d)
bad=0
start=$(date +%s)

# One lab's reference graded into $tmp/RUN-ID; its exit status in .rc.
grade_one() {
	local out="$tmp/$1-$2"
	"$dir/grader/$2-sol" --out "$out" >"$out.log" 2>&1
	echo $? >"$out.rc"
}

# Names the failing tests of a run's lab, from the results it wrote.
report_bad() {
	local out="$tmp/$1-$2" lab
	echo "run $1 $2: not full marks:"
	for lab in $("$B"/bin/grade-run report --out "$out" 2>/dev/null |
		awk '/^  ex/ { print $1 }'); do
		"$B"/bin/grade-run tags --out "$out" --lab "$lab" |
			awk -v l="$lab" '$2 != "pass" { print "    " l "/" $1 ": " $2 }'
	done
}

for ((r = 1; r <= runs; r++)); do
	# Up to $jobs labs at once; a new one starts as soon as one ends (the
	# busy loops are jobs too, so the graders' pids are counted apart).
	running=()
	for id in "${labs[@]}"; do
		while [ ${#running[@]} -ge "$jobs" ]; do
			wait -n "${running[@]}"
			still=()
			for pid in "${running[@]}"; do
				kill -0 "$pid" 2>/dev/null && still+=("$pid")
			done
			running=("${still[@]}")
		done
		grade_one "$r" "$id" &
		running+=($!)
	done
	wait "${running[@]}"
	for id in "${labs[@]}"; do
		if [ "$(cat "$tmp/$r-$id.rc")" != 0 ]; then
			bad=$((bad + 1))
			report_bad "$r" "$id"
		fi
	done
	printf 'run %d/%d done\n' "$r" "$runs" >&2
done
rm -rf "$tmp"
echo "stress: $runs runs x ${#labs[@]} labs (${labs[*]}), $jobs at once, $load busy loops" \
	"on $(nproc) cores${san:+, SAN=$san}, $(( $(date +%s) - start )) s:" \
	"$bad runs below full marks"
[ $bad -eq 0 ]
