#!/usr/bin/env bash
# make check, clang: the whole suite also builds with clang (Debian's
# clang package), warnings as errors for the suite's own code and for the
# stubs (STUDENT_WERROR=1: an untouched stub must not show a student a
# warning), in a build tree of its own ($BUILD/clang).  gcc is checked by
# check.sh's first step.  Skipped, and said so, where clang is missing.
set -u
B=${BUILD:-build}
log=${TMP:-/tmp}/clang-build.log
if ! command -v clang >/dev/null 2>&1; then
	echo "clang: not installed (apt-get install clang); the clang build was skipped"
	exit 0
fi
start=$(date +%s)
if (unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS; nice make -s -j"${JOBS:-2}" BUILD="$B/clang" CC=clang \
	WERROR=1 STUDENT_WERROR=1 all wrong-graders alt-graders) >"$log" 2>&1; then
	echo "PASS clang: every program, grader, stub and solution builds with $(clang --version | head -1 | sed 's/ (.*//') and -Werror ($(($(date +%s) - start)) s)"
else
	grep -E 'error|warning' "$log" | head -30
	echo "FAIL clang: the suite does not build with clang -Werror (log above)"
fi
