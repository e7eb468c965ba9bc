#!/usr/bin/env bash
# Builds a pristine grading suite: a copy of the suite's own files (never a
# student's, never solutions/), with the graders of the selected labs built
# on their stubs and each grader's test list saved.  Every submission is
# graded in a copy of it, so it compiles only its own student files, and an
# edited grader, header or Makefile in a submission changes nothing.
#
#   suite.sh FROM_DIR TO_DIR [LAB]
#
# YIELDLAB_WERROR=0 (WERROR=0 of make, or autograder.conf) builds the suite's own
# code without -Werror (another compiler version may warn where this one
# does not).  Leaves in TO_DIR/build/workflow: lists/<lab>.list (the
# grader's --list) for each lab it was built for (wf_suite_labs reads them
# back).  Exit 0, or 1 with a message.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 2 ] && [ $# -le 3 ] || wf_die 2 "usage: suite.sh FROM_DIR TO_DIR [LAB]"
from=$1 to=$2 lab=${3:-}
jobs=$(wf_jobs)
[ -f "$from/Makefile" ] || wf_die 1 "no suite in '$from' (no Makefile)"

rm -rf "$to" && mkdir -p "$to/build/workflow/lists" ||
	wf_die 1 "cannot create $to"
wf_suite_files "$from" | wf_copy_files "$from" "$to" ||
	wf_die 1 "copying the suite from $from to $to failed"

meta="$to/build/workflow"
if ! labs=$(wf_labs "$to" "$lab") || [ -z "$labs" ]; then
	wf_die 1 "the suite in $from lists no lab${lab:+ matching LAB=$lab}"
fi

targets=(build/bin/grade-report build/bin/grade-note)
while read -r l _; do
	targets+=("build/grader/${l%%_*}")
done <<<"$labs"
if ! wf_make "$to" -j"$jobs" BUILD=build WERROR="${YIELDLAB_WERROR:-1}" "${targets[@]}" >"$meta/build.log" 2>&1; then
	tail -40 "$meta/build.log" >&2
	[ "${YIELDLAB_WERROR:-1}" = 1 ] && grep -q 'Werror' "$meta/build.log" &&
		echo "yieldlab: a warning in the suite's own code stopped the build; WERROR=0 (make, or autograder.conf) builds it anyway" >&2
	wf_die 1 "the pristine suite does not build (log: $meta/build.log)"
fi

while read -r l _; do
	if ! "$to/build/grader/${l%%_*}" --list >"$meta/lists/$l.list" ||
		[ ! -s "$meta/lists/$l.list" ]; then
		wf_die 1 "$l: its grader lists no tests"
	fi
done <<<"$labs"
