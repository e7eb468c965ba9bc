#!/usr/bin/env bash
# make autograder [LAB=exNN]: the zip to upload to Gradescope.
#
#   YIELDLAB_LAB=exNN autograder.sh OUT.zip STAGE_DIR    (run from the top of the suite)
#
# The zip's top holds what Gradescope looks for — setup.sh, run_autograder
# (both from common/gradescope/) — and autograder.conf (the lab this
# assignment grades; none: every lab); the suite itself goes under
# yieldlab/, a pristine copy without solutions/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 2 ] || wf_die 2 "usage: autograder.sh OUT.zip STAGE_DIR"
out=$1 stage=$2 lab=${YIELDLAB_LAB:-}
[ -f Makefile ] && [ -d labs ] || wf_die 2 "run from the top of the suite (no Makefile and labs/ here)"

rm -rf "$stage" && mkdir -p "$stage/zip/yieldlab" "$(dirname "$out")" ||
	wf_die 1 "cannot create $stage or the folder of $out"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
wf_suite_files . | wf_copy_files . "$stage/zip/yieldlab" ||
	wf_die 1 "copying the suite into $stage failed"
install -m 755 common/gradescope/setup.sh common/gradescope/run_autograder \
	common/gradescope/finish.py "$stage/zip/" ||
	wf_die 1 "common/gradescope/setup.sh, run_autograder or finish.py is missing"
{
	echo "# yieldlab autograder settings, written by make autograder; edit and re-zip,"
	echo "# or set them on the make command line.  KEY=VALUE lines; the file is read, never run."
	echo "# The lab(s) this assignment grades (empty: every lab)."
	echo "LAB=$lab"
	echo "# Seconds for a whole submission (empty: the labs' limits added up, plus 60)."
	echo "SUB_TIMEOUT=${YIELDLAB_LIMIT:-}"
	echo "# Seconds per lab: 90 (every lab), or ex01:90,ex03:120 (empty: the lab's test"
	echo "# timeouts plus 60 s to build).  A lab that runs out scores what it had; the rest are graded."
	echo "LAB_TIMEOUT=${YIELDLAB_LAB_TIMEOUT:-}"
	echo "# 1: a warning in a student file fails its build (0 for the lab); 0: warnings are shown only."
	echo "STUDENT_WERROR=${YIELDLAB_STUDENT_WERROR:-0}"
	echo "# 0: the suite's own code builds even if this image's compiler warns about it."
	echo "WERROR=${YIELDLAB_WERROR:-1}"
	echo "# Who sees the tests: visible, hidden, after_due_date or after_published."
	echo "VISIBILITY=${YIELDLAB_VISIBILITY:-visible}"
	echo "# Per lab or per test, e.g.:"
	echo "#   VISIBILITY.ex01=after_due_date"
	echo "#   VISIBILITY.ex01.two_tasks_alternate_strictly=hidden"
	echo "# Who sees run_autograder's own printout (hidden is safest)."
	echo "STDOUT_VISIBILITY=hidden"
	echo "# A line shown above the per-lab summary at the top of the results (optional)."
	echo "OUTPUT="
} >"$stage/zip/autograder.conf"
python3 common/gradescope/finish.py --check "$stage/zip/autograder.conf" ||
	wf_die 2 "the autograder settings are not valid (see above)"

rm -f "$out"
if command -v zip >/dev/null 2>&1; then
	(cd "$stage/zip" && zip -qr -X "$out" setup.sh run_autograder finish.py autograder.conf yieldlab)
else
	(cd "$stage/zip" && python3 -m zipfile -c "$out" setup.sh run_autograder finish.py autograder.conf yieldlab)
fi || wf_die 1 "could not write $out (needs zip, or python3)"
echo "autograder: $out (labs: ${lab:-all}); upload it as the assignment's autograder"
rm -rf "$stage"
