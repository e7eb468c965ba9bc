#!/usr/bin/env bash
# make check, clang: the whole suite also builds with clang (Debian's
# clang package), warnings as errors for the suite's own code and for the
# stubs (STUDENT_WERROR=1: an untouched stub must not show a student a
# warning), in a build tree of its own ($BUILD/clang).  gcc is checked by
# make check's build job.  Skipped, and said so, where clang is missing.
#
# At -O0: clang's warnings come from its front end, the same at every
# optimisation level, and the optimiser is most of a build's time.  The
# wrong solutions are left out: each is a reference with a few lines
# changed, and every reference and alternative is built here.
# set -u without -e: a check that fails says FAIL and the next one still runs.
set -u
B=${BUILD:-build}
log=${TMP:-/tmp}/clang-build.log
if ! command -v clang >/dev/null 2>&1; then
	echo "clang: not installed (apt-get install clang); the clang build was skipped"
	exit 0
fi
start=$(date +%s)
if (unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS; nice make -s -j"${JOBS:-2}" BUILD="$B/clang" CC=clang \
	WERROR=1 STUDENT_WERROR=1 CFLAGS=-O0 all alt-graders) >"$log" 2>&1; then
	echo "PASS clang: every program, grader, stub, reference and alternative builds with $(clang --version | head -1 | sed 's/ (.*//') and -Werror ($(($(date +%s) - start)) s)"
else
	grep -E 'error|warning' "$log" | head -30
	echo "FAIL clang: the suite does not build with clang -Werror (log above)"
fi
