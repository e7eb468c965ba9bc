#!/usr/bin/env bash
# make mutants: how strong is each lab's grader?  Every small change to the
# reference solution (a mutant) is graded by the pristine grader; a mutant is
# killed when it loses points.  The score is killed / (built - equivalent).
#
#   common/mutants/run.sh [-j JOBS] [-n SAMPLE] [-s SEED] [-c CSV] [LAB ...]
#
#   -j JOBS    graders run at once (default: the core count)
#   -n SAMPLE  grade only SAMPLE mutants per lab, chosen with SEED (default:
#              all of them)
#   -c CSV     write the per-lab table there (make mutants: data/mutation_score.csv);
#              the rows of labs not graded by this run are kept from it
#
# Survivors are printed with their diff and listed in
# $BUILD/mutants/<lab>/survivors.txt.  Each must be killed by a sharper test
# or recorded in solutions/mutants/<lab>.equiv as "<id> <why no behaviour can
# tell it apart>"; an .equiv entry that matches no generated mutant is an
# error.  Exit status: 0 no unexplained survivor, 1 survivors or stale
# entries, 2 bad arguments, 3 the tool failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

jobs=$(nproc)
sample=
seed=1
csv=
usage() {
	echo "usage: $0 [-j JOBS] [-n SAMPLE] [-s SEED] [-c CSV] [LAB ...]" >&2
	exit 2
}
while getopts "j:n:s:c:h" opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	n) sample=$OPTARG ;;
	s) seed=$OPTARG ;;
	c) csv=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $jobs =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ ]] || usage
[[ -z $sample || $sample =~ ^[1-9][0-9]*$ ]] || usage
[ -d solutions ] || { echo "$0: needs solutions/ (not in a handout)" >&2; exit 2; }

B=${BUILD:-build}
# Lab metadata from its one source: "id lab student ..." per lab.
labs_info=$(make -s --no-print-directory labs-info LAB= | tail -n +2) ||
	{ echo "$0: make labs-info failed" >&2; exit 3; }
labs=()
while read -r id lab _; do
	if [ $# -eq 0 ] || [[ " $* " == *" $id "* || " $* " == *" $lab "* ]]; then
		labs+=("$lab")
	fi
done <<<"$labs_info"
[ ${#labs[@]} -gt 0 ] || { echo "$0: no lab matches: $*" >&2; exit 2; }

student_file() { awk -v lab="$1" '$2 == lab { print $3 }' <<<"$labs_info"; }

# grade_one LAB ID: prints "ID survived", "ID killed" or "ID notbuilt".  The
# one place that knows how a patched grader is built and run (wrong
# solutions use the same Makefile rules).  As in make grade, a mutant that
# passes the plain grader is graded again with the tests marked
# GRADE_TEST_TSAN run from a ThreadSanitizer build: a race the plain build
# cannot see (a lock moved or dropped) loses points there too.
grade_one() {
	local lab=$1 id=$2 dir="$B/mutants/$1" tsan="$B/san-thread/grader/mutant/$1/$2"
	if ! make -s BUILD="$B" WERROR=0 "$B/grader/mutant/$lab/$id" \
		>"$dir/$id.build.log" 2>&1; then
		echo "$id notbuilt"
		return
	fi
	# One lost test kills a mutant: the rest of its tests need not run.
	if ! "$B/grader/mutant/$lab/$id" --out "$dir/out-$id" --first-failure \
		>"$dir/$id.log" 2>&1; then
		echo "$id killed"
		return
	fi
	if ! grep -q GRADE_TEST_TSAN "labs/$lab/grade.c"; then
		echo "$id survived"
		return
	fi
	mkdir -p "$B/san-thread/mutants/$lab"
	cp "$dir/$id.patch" "$B/san-thread/mutants/$lab/"
	if make -s BUILD="$B" SAN=thread WERROR=0 "$tsan" >>"$dir/$id.build.log" 2>&1 &&
		! "$B/bin/grade-run" grade --out "$dir/tsan-$id" --first-failure \
			--lab "$lab" --grader "$B/grader/mutant/$lab/$id" --tsan "$tsan" \
			>"$dir/$id.tsan.log" 2>&1; then
		echo "$id killed"
	else
		echo "$id survived"
	fi
}
export -f grade_one
export B

# equiv_ids LAB: the ids its .equiv file declares equivalent.
equiv_ids() {
	local f="solutions/mutants/$1.equiv"
	[ -f "$f" ] && grep -v '^\s*\(#\|$\)' "$f" | awk '{ print $1 }' || true
}

row() { printf '%-20s %9s %8s %7s %8s %10s %6s %6s\n' "$@"; }

status=0
make -s BUILD="$B" graders >/dev/null
# The CSV: a run of some labs replaces their rows and keeps every other
# lab's row (and its reference hash) from the file as it was, so that
# make mutants LAB=ex04 does not throw the other labs' figures away.
all_labs=()
for mk in labs/*/lab.mk; do all_labs+=("$(basename "$(dirname "$mk")")"); done
declare -A new_rows=()
# old_line LAB PATTERN: the line of the old CSV for LAB (a row or a
# reference), if the old CSV has one.
old_line() {
	[ -f "$csv" ] || return 0
	case $2 in
	row) grep "^$1," "$csv" || true ;;
	ref) grep "^# reference: solutions/$1/" "$csv" || true ;;
	esac
}
write_csv() {
	local lab kept=() f
	for lab in "${all_labs[@]}"; do
		[ -n "${new_rows[$lab]:-}" ] || [ -z "$(old_line "$lab" row)" ] || kept+=("$lab")
	done
	mkdir -p "$(dirname "$csv")"
	{
		echo "# yieldlab data: the mutation score of each lab's grader"
		echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "# machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
		echo "# kernel: $(uname -sr)"
		echo "# libevent: $(pkg-config --modversion libevent); openssl: $(pkg-config --modversion libcrypto)"
		echo "# run: common/mutants/run.sh${sample:+ -n $sample -s $seed} -j $jobs ${*:-}"
		[ ${#kept[@]} -eq 0 ] || {
			echo "# rows kept from the file as it was (not graded by this run): ${kept[*]}"
			# when they were measured: the old file's date and run
			# (and those it kept in turn)
			sed -n -e '/^#   earlier /p' \
				-e 's/^# \(date\|run\): /#   earlier \1: /p' "$csv"
		}
		for lab in "${all_labs[@]}"; do
			if [ -n "${new_rows[$lab]:-}" ]; then
				f="solutions/$lab/$(student_file "$lab")"
				echo "# reference: $f sha256 $(sha256sum "$f" | cut -c1-16)"
			else
				old_line "$lab" ref
			fi
		done
		echo "lab,generated,not_built,killed,survived,equivalent,score_pct,seconds"
		for lab in "${all_labs[@]}"; do
			if [ -n "${new_rows[$lab]:-}" ]; then
				echo "${new_rows[$lab]}"
			else
				old_line "$lab" row
			fi
		done
	} >"$csv.tmp"
	mv "$csv.tmp" "$csv"
}

row lab generated notbuilt killed survived equivalent score time
for lab in "${labs[@]}"; do
	start=$(date +%s)
	dir="$B/mutants/$lab"
	rm -rf "$dir" "$B/src/mutant/$lab" "$B/obj/mutant/$lab" "$B/grader/mutant/$lab"
	mkdir -p "$dir"
	file=$(student_file "$lab")
	python3 common/mutants/mutate.py "solutions/$lab/$file" "$file" "$dir" \
		${sample:+--sample "$sample" --seed "$seed"} >"$dir/list.txt"
	# The TSan parts every mutant shares, built once before the jobs start
	# (two makes building one object at once would race).
	if grep -q GRADE_TEST_TSAN "labs/$lab/grade.c"; then
		make -s BUILD="$B" SAN=thread "$B/san-thread/grader/${lab%%_*}-sol" >/dev/null
	fi
	cut -d' ' -f1 "$dir/list.txt" |
		xargs -r -P "$jobs" -I{} bash -c 'grade_one "$0" "$1"' "$lab" {} \
		>"$dir/results.txt"
	mapfile -t equiv < <(equiv_ids "$lab")
	gen=$(wc -l <"$dir/list.txt")
	notbuilt=$(grep -c ' notbuilt$' "$dir/results.txt" || true)
	killed=$(grep -c ' killed$' "$dir/results.txt" || true)
	: >"$dir/survivors.txt"
	eq=0
	while read -r id what; do
		[ "$what" = survived ] || continue
		if printf '%s\n' "${equiv[@]}" | grep -qx "$id"; then
			eq=$((eq + 1))
		else
			grep "^$id " "$dir/list.txt" >>"$dir/survivors.txt"
		fi
	done <"$dir/results.txt"
	survived=$(wc -l <"$dir/survivors.txt")
	# A full run must match every .equiv entry; a sample cannot tell.
	if [ -z "$sample" ]; then
		for id in "${equiv[@]}"; do
			grep -q "^$id " "$dir/list.txt" || {
				echo "$lab: solutions/mutants/$lab.equiv names $id, which is no longer generated" >&2
				status=1
			}
		done
	fi
	graded=$((gen - notbuilt - eq))
	score=$(awk -v k="$killed" -v g="$graded" 'BEGIN { printf "%.1f", g ? 100 * k / g : 100 }')
	secs=$(($(date +%s) - start))
	row "$lab" "$gen" "$notbuilt" "$killed" "$survived" "$eq" "$score%" "${secs}s"
	new_rows[$lab]="$lab,$gen,$notbuilt,$killed,$survived,$eq,$score,$secs"
	[ "$survived" -eq 0 ] || status=1
done
for lab in "${labs[@]}"; do
	dir="$B/mutants/$lab"
	[ -s "$dir/survivors.txt" ] || continue
	printf '\n== %s: survivors (kill each with a test, or explain it in solutions/mutants/%s.equiv)\n' "$lab" "$lab"
	while read -r id _; do
		echo "-- $id"
		sed -n '3,$p' "$dir/$id.patch" | grep '^[-+]' | sed 's/^/   /'
	done <"$dir/survivors.txt"
done
[ -z "$csv" ] || write_csv "$@"
exit $status
