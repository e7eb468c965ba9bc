#!/usr/bin/env bash
# packages.sh USE...: the Debian packages of those uses, one per line, from
# common/packages.txt (the one list).  An unknown use is an error (exit 2).
set -euo pipefail
list="$(dirname "$0")/packages.txt"
[ $# -gt 0 ] || { echo "usage: packages.sh USE... (build grade check plots bench)" >&2; exit 2; }
for use in "$@"; do
	grep -qE "^[a-z0-9.+-]+[[:space:]].*\\b$use\\b" "$list" ||
		{ echo "packages.sh: no package is used for '$use'" >&2; exit 2; }
done
awk -v uses=" $* " '!/^#/ && NF > 1 {
	for (i = 2; i <= NF; i++) if (index(uses, " " $i " ")) { print $1; break }
}' "$list"
