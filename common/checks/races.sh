#!/usr/bin/env bash
# Wrong solutions whose mistake is a data race the plain build cannot see
# (an unlocked flag, an unlocked counter): solutions/wrong/<lab>/tsan/*.patch.
# Each is built under ThreadSanitizer and graded on the test its header
# names ("Caught by: <test>"), which must not pass.  (make grade reruns the
# tests marked GRADE_TEST_TSAN under ThreadSanitizer, so a student's race
# costs the same points.)  Prints PASS/FAIL lines (see check.sh); honours
# LAB=ex04,...
set -u
cd "$(dirname "$0")/../.." || exit 3

B=${BUILD:-build}
only=${LAB:-}
tmp=${TMP:-$(mktemp -d)}
for patch in solutions/wrong/*/tsan/*.patch; do
	[ -f "$patch" ] || continue
	lab=$(basename "$(dirname "$(dirname "$patch")")")
	if [ -n "$only" ] && [[ ",$only," != *",${lab%%_*},"* ]]; then
		continue
	fi
	m=$(basename "$patch" .patch)
	id="${lab%%_*}/wrong/tsan/$m"
	catcher=$(sed -n 's/.*Caught by: *\([a-z0-9_]*\).*/\1/p' "$patch" | head -1)
	grader="$B/san-thread/grader/wrong/$lab/tsan/$m"
	if [ -z "$catcher" ]; then
		echo "FAIL $id: no 'Caught by: <test>' line in its header"
		continue
	fi
	if ! make -s BUILD="$B" SAN=thread "$grader" >"$tmp/races-$m.build" 2>&1; then
		tail -20 "$tmp/races-$m.build"
		echo "FAIL $id: does not build under SAN=thread"
		continue
	fi
	"$grader" --out "$tmp/races-$m" --only "$catcher" >"$tmp/races-$m.log" 2>&1
	status=$(awk -v t="$catcher" '$3 == t { print $1 }' "$tmp/races-$m.log")
	if [ -n "$status" ] && [ "$status" != pass ]; then
		echo "PASS $id: rejected under ThreadSanitizer, $catcher: $status"
	else
		cat "$tmp/races-$m.log"
		echo "FAIL $id: $catcher: '${status:-not run}' under ThreadSanitizer"
	fi
done
