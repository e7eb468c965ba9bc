#!/usr/bin/env bash
# make autograder [LAB=exNN]: the zip to upload to Gradescope.
#
#   YL_LAB=exNN autograder.sh OUT.zip STAGE_DIR    (run from the top of the suite)
#
# The zip's top holds what Gradescope looks for — setup.sh, run_autograder
# (both from common/gradescope/) — and autograder.conf (the lab this
# assignment grades; none: every lab); the suite itself goes under
# yieldlab/, a pristine copy without solutions/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 2 ] || wf_die 2 "usage: autograder.sh OUT.zip STAGE_DIR"
out=$1 stage=$2 lab=${YL_LAB:-}
[ -f Makefile ] && [ -d labs ] || wf_die 2 "run from the top of the suite (no Makefile and labs/ here)"

rm -rf "$stage" && mkdir -p "$stage/zip/yieldlab" "$(dirname "$out")" ||
	wf_die 1 "cannot create $stage or the folder of $out"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
wf_suite_files . | wf_copy_files . "$stage/zip/yieldlab" ||
	wf_die 1 "copying the suite into $stage failed"
install -m 755 common/gradescope/setup.sh common/gradescope/run_autograder "$stage/zip/" ||
	wf_die 1 "common/gradescope/setup.sh or run_autograder is missing"
{
	echo "# written by make autograder: the lab this assignment grades (empty: every lab)"
	echo "LAB=$lab"
} >"$stage/zip/autograder.conf"

rm -f "$out"
if command -v zip >/dev/null 2>&1; then
	(cd "$stage/zip" && zip -qr -X "$out" setup.sh run_autograder autograder.conf yieldlab)
else
	(cd "$stage/zip" && python3 -m zipfile -c "$out" setup.sh run_autograder autograder.conf yieldlab)
fi || wf_die 1 "could not write $out (needs zip, or python3)"
echo "autograder: $out (labs: ${lab:-all}); upload it as the assignment's autograder"
rm -rf "$stage"
