#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu).  It installs the Debian packages yieldlab needs, then builds
# the pristine suite and the graders of the assignment's lab(s) on their
# stubs, so each submission compiles only its own student files.
#
# YIELDLAB_AUTOGRADER_ROOT replaces /autograder (make check simulates one).
set -euo pipefail
root=${YIELDLAB_AUTOGRADER_ROOT:-/autograder}
src="$root/source"
mapfile -t pkgs < <(bash "$src/yieldlab/common/packages.sh" build grade)
if ! dpkg -s "${pkgs[@]}" >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup.sh: missing packages, and not root to install them: ${pkgs[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends "${pkgs[@]}" || {
		echo "setup.sh: apt-get could not install: ${pkgs[*]}" >&2
		exit 1
	}
fi

python3 "$src/finish.py" --check "$src/autograder.conf" || {
	echo "setup.sh: fix autograder.conf (above) and upload the zip again" >&2
	exit 1
}
lab=$(sed -n 's/^[[:space:]]*LAB[[:space:]]*=[[:space:]]*//p' "$src/autograder.conf" 2>/dev/null | tail -1 | sed 's/[[:space:]]*$//')
YIELDLAB_WERROR=$(sed -n 's/^[[:space:]]*WERROR[[:space:]]*=[[:space:]]*//p' "$src/autograder.conf" 2>/dev/null | tail -1 | sed 's/[[:space:]]*$//') \
	bash "$src/yieldlab/common/workflow/suite.sh" "$src/yieldlab" "$src/template" "$lab" || {
	echo "setup.sh: the suite in $src/yieldlab does not build" >&2
	exit 1
}
# Test names in VISIBILITY keys are checked against the graders just built:
# a misspelt one would leave visible a test the instructor meant to hide.
info=$(. "$src/yieldlab/common/workflow/lib.sh" && wf_labs_info "$src/template") || {
	echo "setup.sh: make labs-info failed in $src/template" >&2
	exit 1
}
while read -r id name _; do
	grader="$src/template/build/grader/$id"
	if [ -x "$grader" ]; then
		"$grader" --list | awk -v lab="$name" '{ print lab, $1 }'
	fi
done < <(tail -n +2 <<<"$info") >"$src/tests.txt"
python3 "$src/finish.py" --check "$src/autograder.conf" "$src/tests.txt" || {
	echo "setup.sh: fix autograder.conf (above) and upload the zip again" >&2
	exit 1
}
echo "setup.sh: ready to grade ${lab:-every lab}"
