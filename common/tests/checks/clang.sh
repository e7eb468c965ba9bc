#!/usr/bin/env bash
# make check, clang: the whole suite also compiles with clang (Debian's
# clang package), warnings as errors for the suite's own code and for the
# stubs (STUDENT_WERROR=1: an untouched stub must not show a student a
# warning), in a build tree of its own ($BUILD/clang).  gcc is checked by
# make check's build job.  Skipped, and said so, where clang is missing.
#
# Front end only (common/tests/clang-syntax.sh): clang's warnings come from
# its front end, the same at every optimisation level, and code generation
# and linking were two thirds of this job's time; the build job makes the
# real objects with gcc.  So the tree $BUILD/clang holds empty objects and
# programs.  The wrong solutions are left out: each is a reference with a
# few lines changed, and every reference and alternative is checked here.
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -u
B=${BUILD:-build}
log=${TMP:-/tmp}/clang-build.log
if ! command -v clang >/dev/null 2>&1; then
	echo "clang: not installed (apt-get install clang); the clang build was skipped"
	exit 0
fi
# Without ccache: it keeps no result of a syntax check, and its own work
# doubled this job's time.
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v '/ccache$' | paste -sd:)
start=$(date +%s)
if (unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS; nice make -s -j"${JOBS:-2}" BUILD="$B/clang" CC="$PWD/common/tests/clang-syntax.sh" \
	WERROR=1 STUDENT_WERROR=1 all alt-graders) >"$log" 2>&1; then
	echo "PASS clang: every program, grader, stub, reference and alternative compiles with $(clang --version | head -1 | sed 's/ (.*//') and -Werror ($(($(date +%s) - start)) s)"
else
	grep -E 'error|warning' "$log" | head -30
	echo "FAIL clang: the suite does not compile with clang -Werror (log above)"
fi
