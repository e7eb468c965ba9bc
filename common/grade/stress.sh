#!/usr/bin/env bash
# Grades the reference solutions K times while busy loops keep the cores
# loaded, and reports every run that was not full marks, with its failing
# tests.  The goal is zero: a failure here is a flaky test to fix.
#
#   common/grade/stress.sh [-k RUNS] [-l BUSY_PROCS] [-s address|thread] [LAB ...]
#
# Defaults: 20 runs, one busy loop per core, every lab, plain build.
set -u
cd "$(dirname "$0")/../.." || exit 3

runs=20
load=$(nproc)
san=
usage() {
	echo "usage: $0 [-k RUNS] [-l BUSY_PROCS] [-s address|thread] [LAB ...]" >&2
	exit 2
}
while getopts "k:l:s:h" opt; do
	case $opt in
	k) runs=$OPTARG ;;
	l) load=$OPTARG ;;
	s) san=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[0-9]+$ && $load =~ ^[0-9]+$ ]] || usage

B=${BUILD:-build}
dir=$B${san:+/san-$san}
make -s BUILD="$B" ${san:+SAN=$san} graders || exit 3

labs=("$@")
if [ ${#labs[@]} -eq 0 ]; then
	for mk in labs/*/lab.mk; do
		l=$(basename "$(dirname "$mk")")
		labs+=("${l%%_*}")
	done
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
for ((r = 1; r <= runs; r++)); do
	for id in "${labs[@]}"; do
		out="$tmp/$r-$id"
		if ! "$dir/grader/$id-sol" --out "$out" >"$out.log" 2>&1; then
			bad=$((bad + 1))
			echo "run $r $id: not full marks:"
			for lab in $("$B"/bin/grade-run report --out "$out" 2>/dev/null |
				awk '/^  ex/ { print $1 }'); do
				"$B"/bin/grade-run tags --out "$out" --lab "$lab" |
					awk -v l="$lab" '$2 != "pass" { print "    " l "/" $1 ": " $2 }'
			done
		fi
	done
	printf 'run %d/%d done\n' "$r" "$runs" >&2
done
rm -rf "$tmp"
echo "stress: $runs runs x ${#labs[@]} labs (${labs[*]}), $load busy loops" \
	"on $(nproc) cores${san:+, SAN=$san}, $(( $(date +%s) - start )) s:" \
	"$bad runs below full marks"
[ $bad -eq 0 ]
