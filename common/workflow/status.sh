#!/usr/bin/env bash
# make status: where each lab stands after the last make grade, and the
# next lab to do.
#
#   status.sh GRADE_DIR GRADER_DIR LAB:STUDENT_FILE...
#
# done: every test of the lab passed; partial: some points; not started:
# no points, or never graded.  A lab graded with T= (some tests only) is at
# most partial.  The results are GRADE_DIR/labs/<lab>.frag.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 2 ] || wf_die 2 "usage: status.sh GRADE_DIR GRADER_DIR LAB:FILE..."
grade_dir=$1 grader_dir=$2
shift 2
[ $# -gt 0 ] || wf_die 1 "no labs (labs/*/lab.mk) in this suite"

# lab_state LAB FILE: prints "state<TAB>score/max<TAB>detail".
lab_state() {
	local lab=$1 file=$2 frag="$grade_dir/labs/$1.frag" score max passed ran total detail
	read -r score max passed ran <<<"$(wf_frag_field "$frag" 2,3,4,5)"
	if [ -z "$score" ]; then
		printf 'not started\t-\tnever graded\n'
		return
	fi
	total=$ran
	if [ -x "$grader_dir/${lab%%_*}" ]; then
		total=$({ "$grader_dir/${lab%%_*}" --list 2>/dev/null || true; } | grep -c . || true)
	fi
	detail="$passed of $total tests pass"
	[ "$ran" -lt "$total" ] && detail="only $ran of $total tests graded last time (T=)"
	[ "labs/$lab/$file" -nt "$frag" ] && detail="$detail; $file changed since"
	if [ "$score" -eq 0 ]; then
		printf 'not started\t%s/%s\t%s\n' "$score" "$max" "$detail"
	elif [ "$score" -eq "$max" ] && [ "$ran" -ge "$total" ]; then
		printf 'done\t%s/%s\t%s\n' "$score" "$max" "$detail"
	else
		printf 'partial\t%s/%s\t%s\n' "$score" "$max" "$detail"
	fi
}

echo "Labs, from the last make grade ($grade_dir):"
next=
for pair in "$@"; do
	lab=${pair%%:*} file=${pair#*:}
	IFS=$'\t' read -r state score detail < <(lab_state "$lab" "$file")
	printf '  %-5s %-18s %-12s %7s  %s\n' "${lab%%_*}" "${lab#*_}" "$state" "$score" "$detail"
	[ -z "$next" ] && [ "$state" != "done" ] && next=$lab next_file=$file
done
echo
if [ -z "$next" ]; then
	echo "Every lab is done."
else
	id=${next%%_*}
	echo "Next: $id. Read labs/$next/README.md, edit labs/$next/$next_file,"
	echo "      then: make grade LAB=$id   (stuck? make hint LAB=$id)"
fi
