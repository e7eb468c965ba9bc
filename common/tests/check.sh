#!/usr/bin/env bash
# make check: the project's own test suite (what CI runs).  This is its
# preflight; make runs the jobs (common/tests/tests.mk, job.sh):
#
#  - a copy of the suite without solutions/ (a handout) has nothing to check;
#  - a student file with work in it is left alone: a copy of the tree with
#    the committed stubs is checked instead;
#  - then the -Werror build, and every job CHECK_JOBS at a time (the
#    graders' real-time tests hold their margins with both cores busy: see
#    common/grade/stress.sh), in a scratch folder under /tmp that is
#    removed at the end.  Ends with "N passed, N failed"; exits 1 if
#    anything failed.
#
# set -u, not -e: a failed run must still remove its scratch folder.
set -u
cd "$(dirname "$0")/../.." || exit 3

CHECK_JOBS=${CHECK_JOBS:-${JOBS:-$((2 * $(nproc)))}}   # jobs at once (tests.mk says why); builds inside them use make -j2
B=${BUILD:-build}        # make BUILD=dir keeps a second tree apart
ONLY=${LAB:-}            # LAB=ex02,ex03 checks only those labs

if [ ! -d solutions ]; then
	echo "make check tests the whole suite, and this copy has no solutions/" >&2
	echo "(a student handout): grade your work with 'make grade'." >&2
	exit 2
fi

# A student file with work in it (a student's, an instructor's trying a
# solution) would fail the stub checks: check a copy of this tree whose
# student files are the committed stubs, and leave the work alone.
edited_student_files() {
	git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
	make -s --no-print-directory labs-info LAB= BUILD="$B" 2>/dev/null | tail -n +2 |
		while read -r _ lab file _; do
			p="labs/$lab/$file"
			git cat-file -e "HEAD:$p" 2>/dev/null &&
				! git diff --quiet HEAD -- "$p" && echo "$p"
		done
}
if [ -z "${YIELDLAB_CHECK_COPY:-}" ]; then
	mapfile -t edited < <(edited_student_files)
	if [ ${#edited[@]} -gt 0 ]; then
		copy="$B/check-tree"
		echo "make check: ${edited[*]}: not the committed stub;" >&2
		echo "make check: checking a copy with the stubs restored ($copy); your files are untouched" >&2
		source common/workflow/lib.sh
		rm -rf "$copy" && mkdir -p "$copy" || exit 3
		wf_suite_files . with-solutions | wf_copy_files . "$copy" || exit 3
		for p in "${edited[@]}"; do git show "HEAD:$p" >"$copy/$p"; done
		cd "$copy" && exec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
			YIELDLAB_CHECK_COPY=1 BUILD=build LAB="$ONLY" CHECK_JOBS="$CHECK_JOBS" bash common/tests/check.sh
	fi
fi

# The run's scratch (suite copies, graded submissions, results: some
# 100,000 files made and removed) goes on a tmpfs of the run's own where
# it may mount one: as root, in a mount namespace of its own, so that no
# other process sees the tmpfs and it goes with the run however the run
# ends.  On an ext4 without a journal, as on the machine this was measured
# on, making a file scans the inodes freed in the last seconds: the whole
# run took 163 s with its scratch on disk and 144 s on a tmpfs (kernel CPU
# 113 s -> 81 s).  Not root, or no unshare: on disk, as before.
if [ -z "${YIELDLAB_CHECK_NS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare --mount --propagation private true 2>/dev/null; then
	exec env YIELDLAB_CHECK_NS=1 unshare --mount --propagation private bash common/tests/check.sh
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/yieldlab-check.XXXXXX")
scratch=disk
[ -n "${YIELDLAB_CHECK_NS:-}" ] && mount -t tmpfs -o mode=0700 yieldlab-check "$TMP" 2>/dev/null &&
	scratch=tmpfs
trap '{ [ $scratch = disk ] || umount -l "$TMP"; }; rm -rf "$TMP"' EXIT
# Everything a job makes goes there, the compiler's temporary files too.
export TMPDIR=$TMP
check_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -s --no-print-directory BUILD="$B" LAB="$ONLY" CHECK_TMP="$TMP" "$@"
}
start=$SECONDS
if ! check_make check-build; then
	printf '\nFAIL build: see the compiler output above\n\n0 passed, 1 failed\n'
	exit 1
fi
printf '  %-22s done  (%s; scratch on %s)\n' build "$(sed -n 's/^-- //p' "$B/check/logs/build.log")" $scratch
check_make -j"$CHECK_JOBS" CHECK_BUILT=1 check-all
status=$?
echo "make check: $((SECONDS - start)) s"
[ $status -eq 0 ] || exit 1
