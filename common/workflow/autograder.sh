#!/usr/bin/env bash
# make autograder [LAB=exNN] and make autograders: the zips to upload to
# Gradescope.
#
#   autograder.sh STAGE_DIR OUT.zip[=LAB] ...    (run from the top of the suite)
#
# Each zip's top holds what Gradescope looks for — setup.sh, run_autograder
# (both from common/gradescope/) — and autograder.conf (the lab this
# assignment grades: LAB after the '=', else YIELDLAB_LAB; none: every
# lab); the suite itself goes under yieldlab/, a pristine copy without
# solutions/.  The suite is copied and compressed once: each zip is that
# archive with its own autograder.conf added (make autograders writes eight).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 2 ] || wf_die 2 "usage: autograder.sh STAGE_DIR OUT.zip[=LAB] ..."
stage=$1
shift
[ -f Makefile ] && [ -d labs ] || wf_die 2 "run from the top of the suite (no Makefile and labs/ here)"

# write_conf LAB FILE: the settings, from the environment (make's variables).
write_conf() {
	local lab=$1
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
	} >"$2"
	python3 common/gradescope/finish.py --check "$2" ||
		wf_die 2 "the autograder settings are not valid (see above)"
}

# spec_lab OUT.zip[=LAB]: the lab that zip grades (YIELDLAB_LAB when no '=').
spec_lab() {
	if [[ $1 == *=* ]]; then
		printf '%s\n' "${1#*=}"
	else
		printf '%s\n' "${YIELDLAB_LAB:-}"
	fi
}

# to_zip ZIP FILE...: FILEs (in the stage's zip/ folder) added to ZIP.
to_zip() {
	local zip=$1
	shift
	if command -v zip >/dev/null 2>&1; then
		(cd "$stage/zip" && zip -qr -X "$zip" "$@")
	else
		(cd "$stage/zip" && python3 - "$zip" "$@" <<-'PY'
		import os, sys, zipfile
		with zipfile.ZipFile(sys.argv[1], "a", zipfile.ZIP_DEFLATED) as z:
		    for top in sys.argv[2:]:
		        for root, dirs, files in os.walk(top) if os.path.isdir(top) else [("", [], [top])]:
		            dirs.sort()
		            for f in sorted(files):
		                z.write(os.path.join(root, f))
		PY
		)
	fi || wf_die 1 "could not write $zip (needs zip, or python3)"
}

rm -rf "$stage" && mkdir -p "$stage/zip/yieldlab" && stage=$(cd "$stage" && pwd) ||
	wf_die 1 "cannot create $stage"
# The settings are checked before anything is copied.
write_conf "$(spec_lab "$1")" "$stage/zip/autograder.conf"
wf_suite_files . | wf_copy_files . "$stage/zip/yieldlab" ||
	wf_die 1 "copying the suite into $stage failed"
install -m 755 common/gradescope/setup.sh common/gradescope/run_autograder \
	common/gradescope/finish.py "$stage/zip/" ||
	wf_die 1 "common/gradescope/setup.sh, run_autograder or finish.py is missing"
to_zip "$stage/suite.zip" setup.sh run_autograder finish.py yieldlab

for spec in "$@"; do
	out=${spec%%=*} lab=$(spec_lab "$spec")
	mkdir -p "$(dirname "$out")" || wf_die 1 "cannot create the folder of $out"
	out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
	write_conf "$lab" "$stage/zip/autograder.conf"
	cp "$stage/suite.zip" "$out" || wf_die 1 "could not write $out"
	to_zip "$out" autograder.conf
	echo "autograder: $out (labs: ${lab:-all}); upload it as the assignment's autograder"
done
rm -rf "$stage"
