#!/usr/bin/env bash
# make check, hostile code: a pristine copy of the suite whose ex01 student
# file segfaults, aborts, exits, floods its output, forks, scribbles over
# results.json and loops forever (common/checks/hostile/round_robin.c).
# `make grade` must finish, give each of those tests the right status, grade
# every other lab, leave a valid results.json and nothing running.
set -u
tmp=${TMP:-$(mktemp -d)}/hostile
rm -rf "$tmp" && mkdir -p "$tmp/tree"
source common/workflow/lib.sh
wf_suite_files . | wf_copy_files . "$tmp/tree"
cp common/checks/hostile/round_robin.c "$tmp/tree/labs/ex01_round_robin/round_robin.c"

(cd "$tmp/tree" && env -u BUILD -u LAB -u MAKEFLAGS -u MFLAGS -u MAKELEVEL timeout 600 make -s grade >"$tmp/grade.log" 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "PASS hostile: make grade finished (exit 0)" ||
	echo "FAIL hostile: make grade exited $rc (see $tmp/grade.log)"

frag="$tmp/tree/build/grade/labs/ex01_round_robin.frag"
tag() { grep -F "\"ex01_round_robin/$1\"" "$frag" | sed -n 's/.*"tags": \["\([a-z]*\)"\].*/\1/p'; }
expect() {
	local got
	got=$(tag "$1")
	[ "$got" = "$2" ] && echo "PASS hostile: $3 -> $1 is '$2'" ||
		echo "FAIL hostile: $3 -> $1 is '$got', expected '$2'"
}
expect two_tasks_alternate_strictly crash "a segfault"
expect four_tasks_keep_fifo_order_every_round crash "abort()"
expect no_yield_mode_runs_one_task_to_completion_first crash "exit(0) inside a test"
expect loop_ends_by_itself_when_tasks_finish crash "megabytes of output"
expect heartbeat_fires_between_steps_of_a_long_task timeout "an endless loop"
expect a_nonblocking_loop_runs_a_yielding_task_to_its_end timeout "an endless loop after scribbling"

labs=$(ls "$tmp"/tree/labs/*/lab.mk | wc -l)
frags=$(ls "$tmp"/tree/build/grade/labs/*.frag 2>/dev/null | wc -l)
[ "$labs" = "$frags" ] && echo "PASS hostile: all $labs labs were graded" ||
	echo "FAIL hostile: $frags of $labs labs were graded"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
	"$tmp/tree/build/grade/results.json" 2>/dev/null; then
	echo "PASS hostile: results.json is valid JSON"
else
	echo "FAIL hostile: results.json is not valid JSON"
fi
if pgrep -f 'sleep 3601' >/dev/null; then
	pkill -f 'sleep 3601'
	echo "FAIL hostile: a process the student code started is still running"
else
	echo "PASS hostile: nothing the student code started is still running"
fi
rm -rf "$tmp/tree/build"
