#!/usr/bin/env bash
# make check's report: `report.sh LOGDIR NAME...` prints each job's lines
# in the order named (never interleaved, whatever order they ran in), the
# failures again, and "N passed, N failed"; exits 1 if anything failed.
# A job with no log (make stopped before it) counts as a failure.
set -euo pipefail
dir=$1
shift
passed=0
failed=0
failures=()
for name in "$@"; do
	log="$dir/$name.log"
	printf '\n== %s\n' "$name"
	if [ ! -f "$log" ]; then
		echo "FAIL $name: the job did not run (see make's output above)"
		failed=$((failed + 1))
		failures+=("$name: the job did not run")
		continue
	fi
	cat "$log"
	passed=$((passed + $(grep -c '^PASS ' "$log" || true)))
	failed=$((failed + $(grep -c '^FAIL ' "$log" || true)))
	mapfile -t -O "${#failures[@]}" failures < <(sed -n 's/^FAIL //p' "$log")
done
if [ "$failed" -gt 0 ]; then
	printf '\nFailed:\n'
	printf '  %s\n' "${failures[@]}"
fi
printf '\n%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
