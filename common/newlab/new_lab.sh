#!/usr/bin/env bash
# make new-lab NAME=ex09_topic: a new lab from common/newlab/template/ that
# builds, grades its stub to 0, grades its reference, two correct
# alternatives and one wrong solution as make check wants, and states its
# promises.  Then replace the example function with the lab's own.
#
#   common/newlab/new_lab.sh exNN_topic
set -euo pipefail
cd "$(dirname "$0")/../.."
usage() {
	echo "usage: make new-lab NAME=exNN_topic   (e.g. NAME=ex09_slow_callbacks)" >&2
	exit 2
}
[ $# -eq 1 ] || usage
lab=$1
if ! [[ $lab =~ ^(ex[0-9][0-9])_([a-z][a-z0-9_]*)$ ]]; then
	echo "new-lab: '$lab' is not exNN_topic (lower case, digits and _)" >&2
	usage
fi
id=${BASH_REMATCH[1]} topic=${BASH_REMATCH[2]}
for d in labs/*/; do
	if [ "$(basename "$d" | cut -d_ -f1)" = "$id" ]; then
		echo "new-lab: $id is taken by $d" >&2
		exit 2
	fi
done
tpl=common/newlab/template
guard=$(echo "${id}_${topic}_H" | tr '[:lower:]' '[:upper:]')
title=${topic//_/ }

# fill SRC DEST: the template with its @NAMES@ replaced.
fill() {
	mkdir -p "$(dirname "$2")"
	sed -e "s/@LAB@/$lab/g" -e "s/@ID@/$id/g" -e "s/@TOPIC@/$topic/g" \
		-e "s/@GUARD@/$guard/g" -e "s/@TITLE@/$title/g" "$1" >"$2"
	echo "  made $2"
}

for f in lab.mk grade.c main.c README.md HINTS.md experiments.txt; do
	fill "$tpl/$f" "labs/$lab/$f"
done
fill "$tpl/topic.h" "labs/$lab/$topic.h"
fill "$tpl/topic.c" "labs/$lab/$topic.c"
fill "$tpl/solution.c" "solutions/$lab/$topic.c"
fill "$tpl/alt_counts_down.c" "solutions/alt/$lab/counts_down.c"
fill "$tpl/alt_recursive.c" "solutions/alt/$lab/recursive.c"
wrong=$(mktemp)
trap 'rm -f "$wrong"' EXIT
fill "$tpl/wrong_counts_one_too_far.c" "$wrong" >/dev/null
mkdir -p "solutions/wrong/$lab"
diff -u --label "a/$topic.c" --label "b/$topic.c" "solutions/$lab/$topic.c" "$wrong" \
	>"solutions/wrong/$lab/counts_one_too_far.patch" || true
echo "  made solutions/wrong/$lab/counts_one_too_far.patch"
# The tables the guides show list every lab (make check compares them).
python3 common/docs/tables.py --write >/dev/null
echo "  rewrote the generated tables (make docs): README.md, solutions/, gradescope/"
cat <<MSG

$lab is ready: 'make grade LAB=$id' grades the stub (0), 'make grade
LAB=$id SOL=1' the reference, 'make check-lab-$id' its checks, 'LAB=$id
make check' all of it; 'make mutants LAB=$id' measures its grader.  Next: write
the lab's header (each Promise names its tests), its grader, the stub, the
reference, two correct alternatives and its wrong solutions; its README and
HINTS; experiments.txt for make data.
MSG
