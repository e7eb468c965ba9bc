#!/usr/bin/env bash
# make hint LAB=exNN [LEVEL=n]: prints one level of a lab's hints, from a
# nudge (1) to nearly the answer (the last), and how to see the next.
#
#   YIELDLAB_LAB=exNN YIELDLAB_LEVEL=n hint.sh LAB_DIR_NAME...
#
# Hints live in labs/<lab>/HINTS.md, one section "## Hint n" per level.
# A HINTS.md without such sections is one level: it is printed whole.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

want=${YIELDLAB_LAB:-} level=${YIELDLAB_LEVEL:-1}

usage() {
	echo "yieldlab: $1" >&2
	echo "usage: make hint LAB=exNN [LEVEL=n]   (LEVEL 1 is a nudge; higher says more)" >&2
	[ -n "$want" ] || echo "labs: $(for l in "${all[@]}"; do printf '%s ' "${l%%_*}"; done)" >&2
	exit 2
}

all=("$@")
[ -n "$want" ] || usage "make hint needs LAB=exNN"
[ $# -eq 1 ] || usage "LAB=$want names more than one lab"
[[ $level =~ ^[1-9][0-9]*$ ]] || usage "LEVEL must be a whole number from 1, not '$level'"
lab=$1 id=${1%%_*}
file="labs/$lab/HINTS.md"
[ -f "$file" ] || wf_die 1 "$id has no hints yet ($file is missing); its README.md is the place to start"

levels=$(grep -c '^## Hint [0-9]' "$file" || true)
if [ "$levels" -eq 0 ]; then
	cat "$file"
	exit 0
fi
if [ "$level" -gt "$levels" ]; then
	echo "yieldlab: $id has $levels hint levels; LEVEL=$level is past the last" >&2
	echo "usage: make hint LAB=$id LEVEL=n   (n from 1 to $levels)" >&2
	exit 2
fi

# The section's heading line and everything up to the next "## " heading.
# Blank lines are held back until more text follows: none at the end.
awk -v lvl="$level" '
	/^## / { printing = ($2 == "Hint" && $3 + 0 == lvl) }
	!printing { next }
	/^[[:space:]]*$/ { blanks++; next }
	{ for (; blanks > 0; blanks--) print ""; print }
' "$file"
echo
if [ "$level" -lt "$levels" ]; then
	echo "(hint $level of $levels for $id; more: make hint LAB=$id LEVEL=$((level + 1)))"
else
	echo "(hint $level of $levels for $id: the last one)"
fi
