#!/usr/bin/env bash
# make handout: packs what a student needs into one tarball, yieldlab/ inside.
#
#   handout.sh OUT.tar.gz STAGE_DIR      (run from the top of the suite)
#
# Left out: solutions/ (the references and the wrong-solution suite), .ci/
# (it runs make check, which needs solutions/), build trees, dist/, .git,
# and results the students are meant to produce themselves — the measured
# CSVs in data/ and the rendered charts plots/*.png|svg — unless a README
# names the file, which is the README saying why it is there.  The chart
# scripts plots/*.gp stay: students draw their own data with them.
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"

[ $# -eq 2 ] || wf_die 2 "usage: handout.sh OUT.tar.gz STAGE_DIR"
out=$1 stage=$2
[ -f Makefile ] && [ -d labs ] || wf_die 2 "run from the top of the suite (no Makefile and labs/ here)"

# Every README.md of the handout, read once (not a grep of them all per
# data file).
readmes=$(find . \( -name solutions -o -name 'build*' -o -name dist \) -prune -o \
	-name README.md -type f -print0 | xargs -0 -r cat)

# named_by_readme PATH: true if some README.md of the handout names PATH
# (its path or its file name).
named_by_readme() {
	[[ $readmes == *"$1"* || $readmes == *"${1##*/}"* ]]
}

handout_files() {
	local path
	wf_suite_files . | while IFS= read -r -d '' path; do
		case $path in
		.ci/*) continue ;;
		data/*.md | plots/*.gp) ;;
		data/* | plots/*.png | plots/*.svg | plots/*.pdf)
			named_by_readme "$path" || continue ;;
		esac
		printf '%s\0' "$path"
	done
}

rm -rf "$stage" && mkdir -p "$stage/yieldlab" "$(dirname "$out")" ||
	wf_die 1 "cannot create $stage or the folder of $out"
handout_files >"$stage/files"
wf_copy_files . "$stage/yieldlab" <"$stage/files" ||
	wf_die 1 "copying the handout's files into $stage failed"

# Student files ship as committed: an instructor's half-solved working copy
# must not leave in the handout.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	while read -r lab file; do
		path="labs/$lab/$file"
		git cat-file -e "HEAD:$path" 2>/dev/null || continue
		if ! git diff --quiet HEAD -- "$path"; then
			echo "handout: $path has uncommitted changes; the handout ships the committed stub" >&2
			git show "HEAD:$path" >"$stage/yieldlab/$path"
		fi
	done < <(wf_labs .)
fi

# A last guard: whatever the listing did, no reference may leave.
if [ -e "$stage/yieldlab/solutions" ]; then
	wf_die 1 "refusing to pack: solutions/ ended up in the handout"
fi
# No answer may ship inside another file either (a common module that
# solves a lab, a stub that provides another lab's answer).
if [ -d solutions ]; then
	if ! command -v python3 >/dev/null 2>&1; then
		echo "handout: python3 is missing, so the handout was not scanned for answers" >&2
	elif ! python3 "$here/answers.py" . "$stage/yieldlab" >"$stage/answers.txt" 2>&1; then
		sed 's/^/  /' "$stage/answers.txt" >&2
		wf_die 1 "refusing to pack: the lines above are a reference solution's (allowed ones go in $here/answers-allowed.txt, with the reason)"
	fi
fi
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner \
	-czf "$out" yieldlab || wf_die 1 "could not write $out"

labs=$(wf_labs_info "$stage/yieldlab" | awk 'NR > 1 { printf "%s ", $1 }') ||
	wf_die 1 "make labs-info failed in the handout"
printf 'handout: %s (%d files; labs: %s)\n' "$out" \
	"$(tr -cd '\0' <"$stage/files" | wc -c)" "${labs% }"
printf 'handout: left out solutions/, .ci/, build trees and data not named by a README\n'
rm -rf "$stage"
