#!/usr/bin/env bash
# make check, hostile code: a pristine copy of the suite graded with hostile
# ex01 student files (common/tests/checks/hostile/*.c, one attack each; the
# "Expect:" line of each file says what the runner must report).  For every
# attack: ex01 scores 0 with a status naming what happened, the other labs
# are graded, results.json is valid, nothing is left running, and no file
# outside build/ changed.  Independent parts, each with a tree of its own:
#
#  attacks1, attacks2, attacks3
#             the attacks by student file, a third each, and bubblewrap
#             being on;
#  runtime    the runtime attacks test by test; attacks that need no
#             student file: planted fragments, a replaced grader, Ctrl-C
#             during a hanging test, the output piped into head;
#  grade-all  the forging attacks through make grade-all and Gradescope's
#             run_autograder.
#
#   bash common/tests/checks/hostile.sh [PART...]   (no PART: all)
#
# Parts: attacks1 attacks2 attacks3 runtime grade-all
#
# set -u, not -e: each check says PASS or FAIL and the part goes on.
set -u
tmp=${TMP:-$(mktemp -d)}/hostile
tree="$tmp/tree"
rm -rf "$tmp" && mkdir -p "$tree"
source common/workflow/lib.sh
source common/tests/interrupt.sh
wf_suite_files . | wf_copy_files . "$tree"
cases=$(cd common/tests/checks/hostile && ls *.c)
cp -r common/tests/checks/hostile "$tmp/cases"
student="$tree/labs/ex01_round_robin/round_robin.c"
# The checks that need a student file but no attack grade the reference:
# it takes 0.6 s, where the ex01 stub waits out two 3 s deadlines.
cp solutions/ex01_round_robin/round_robin.c "$tmp/ref.c"

run_make() {   # run_make LOG ARGS...: make in the tree, clean environment
	local log=$1
	shift
	(cd "$tree" && env -u BUILD -u LAB -u T -u TEST -u SOL -u MAKEFLAGS -u MFLAGS \
		-u MAKELEVEL timeout 600 make -s "$@" >"$log" 2>&1)
}
field() { "$tree/build/bin/grade-run" field --out "$tree/build/grade" --lab "$1" "$2"; }
# Processes started from the tree (their working folder is in it): other
# suites may be grading on the same machine at the same time.
# (One find reads every working folder, not a readlink per process: this
# runs after each attack.)
leftovers() {
	find /proc -mindepth 2 -maxdepth 2 -name cwd -lname "$tree*" 2>/dev/null | cut -d/ -f3
}
kill_leftovers() { local p; for p in $(leftovers); do kill -KILL "$p" 2>/dev/null; done; }
ok() { echo "PASS hostile: $*"; }
no() { echo "FAIL hostile: $*"; }

# What every attack must leave: results.json valid, labs graded, nothing
# running, and no file outside build/ touched.
aftermath() {   # aftermath NAME LABS_EXPECTED
	local name=$1 want=$2 graded=0 lab changed
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
		"$tree/build/grade/results.json" 2>/dev/null &&
		ok "$name: results.json is valid JSON" || no "$name: results.json is not valid JSON"
	for lab in $(cd "$tree/labs" && ls -d ex*); do
		[ -n "$(field "$lab" 2)" ] && graded=$((graded + 1))
	done
	[ "$graded" -ge "$want" ] && ok "$name: $graded labs graded" ||
		no "$name: only $graded labs graded, $want expected"
	if [ -n "$(leftovers)" ]; then
		no "$name: processes the student code started are still running: $(leftovers | tr '\n' ' ')"
		kill_leftovers
	else
		ok "$name: nothing the student code started is still running"
	fi
	changed=$(cd "$tree" && find . -path ./build -prune -o -newer "$tmp/stamp" -type f -print |
		grep -v '^./labs/ex01_round_robin/round_robin.c$')
	[ -z "$changed" ] && [ ! -e /tmp/yieldlab-hostile-was-here ] &&
		ok "$name: no file outside build/ changed" ||
		no "$name: files outside build/ changed: $changed $(ls /tmp/yieldlab-hostile-was-here 2>/dev/null)"
	rm -f /tmp/yieldlab-hostile-was-here
}

# One attack: the case file as ex01's student file, graded with ex02.
attack() {   # attack CASE.c
	local c=$1 name=${1%.c} expect log="$tmp/${1%.c}.log" score
	expect=$(sed -n 's/^ \* Expect: *//p' "$tmp/cases/$c")
	cp "$tmp/cases/$c" "$student"
	# (mtimes are in nanoseconds: the next write is newer than the stamp)
	touch "$tmp/stamp"
	run_make "$log" grade LAB=ex01,ex02
	score=$(field ex01_round_robin 2)
	[ "$score" = 0 ] && ok "$name: ex01 scores 0" || no "$name: ex01 scored '$score' (see $log)"
	if [ "$name" = runtime ]; then
		return
	elif grep -qF -- "$expect" "$log" && grep -qF -- "$expect" "$tree/build/grade/results.json"; then
		ok "$name: the status names it ('$expect')"
	else
		no "$name: '$expect' is not in the terminal output and results.json (see $log)"
	fi
	if grep -q $'\033' "$log" || grep -q '^Score: 800\|^Total score: 800' "$log"; then
		no "$name: the test drew on the terminal (escape sequence or fake score)"
	fi
	aftermath "$name" 2
}

# A part's tree starts with the reference as ex01's file; its first make
# grade builds it.
start_tree() {
	cp "$tmp/ref.c" "$student"
	touch "$tmp/stamp"
}

# The reference graded first (one part does it: it costs every part a
# grade of two labs): the tree builds, ex01 gets full marks in it, so an
# attack's 0 is the attack's doing, and bubblewrap is on.
first_grade() {
	start_tree
	run_make "$tmp/first.log" grade LAB=ex01,ex02 || no "the first make grade failed (see $tmp/first.log)"
	[ "$(field ex01_round_robin 2)" = 100 ] && ok "the reference scores 100 in the tree the attacks use" ||
		no "the reference scored '$(field ex01_round_robin 2)' in the attacks' tree (see $tmp/first.log)"
	bubblewrap_check
}

bubblewrap_check() {
	# This tree usually lives under /tmp, which the sandbox replaces with a
	# private one: the tree must be bound back in, or bubblewrap turns itself
	# off (the probe cannot chdir) and every attack below runs unsandboxed.
	# (The probe uses the runner's own options: where one of them is refused,
	# the runner rightly turns bubblewrap off and says so.)
	if bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-pid \
		--unshare-net --unshare-ipc --unshare-uts --die-with-parent --new-session \
		--cap-drop ALL true 2>/dev/null; then
		grep -q 'bubblewrap on' "$tmp/first.log" &&
			ok "bubblewrap sandboxes the tests of a tree under $(dirname "$tree")" ||
			no "bubblewrap works here but make grade ran without it: $(grep -m1 containment "$tmp/first.log")"
	fi
}

# part_attacks N: the attacks by student file, the Nth third of them (each
# grades two labs, most of it waiting on the tests' own deadlines: three
# parts side by side end three times sooner).
part_attacks() {
	local i=0 c
	if [ "$1" = 1 ]; then first_grade; else start_tree; fi
	# hang.c and runtime.c are the runtime part's (runtime.c hangs 5 s in
	# one test: once per make check, not twice).
	for c in $cases; do
		[ "$c" = hang.c ] || [ "$c" = runtime.c ] && continue
		i=$((i + 1))
		[ $((i % 3 + 1)) = "$1" ] && attack "$c"
	done
}

part_runtime() {
	start_tree
	# The runtime attacks, test by test.
	tag() { "$tree/build/bin/grade-run" tags --out "$tree/build/grade" --lab ex01_round_robin |
		awk -v n="$1" '$1 == n { print $2 }'; }
	expect() {
		local got
		got=$(tag "$1")
		[ "$got" = "$2" ] && ok "runtime: $3 -> $1 is '$2'" ||
			no "runtime: $3 -> $1 is '$got', expected '$2'"
	}
	attack runtime.c
	expect two_tasks_alternate_strictly crash "a segfault"
	expect four_tasks_keep_fifo_order_every_round crash "abort()"
	expect no_yield_mode_runs_one_task_to_completion_first fail "memory until refused"
	expect loop_ends_by_itself_when_tasks_finish crash "megabytes of output"
	expect heartbeat_fires_between_steps_of_a_long_task timeout "an endless loop"

	# Planted fragments: a full-marks ex02 and a lab that does not exist.
	cp "$tmp/ref.c" "$student"
	touch "$tmp/stamp"
	printf 'ex02_lag_meter 100 100 8 8\nhmac %064d\n' 0 >"$tree/build/grade/labs/ex02_lag_meter.frag"
	printf 'zz_extra 999 999 9 9\n' >"$tree/build/grade/labs/zz_extra.frag"
	run_make "$tmp/planted.log" grade LAB=ex01
	if grep -q 'ignored.*ex02_lag_meter.frag' "$tmp/planted.log" &&
		grep -q 'ignored.*zz_extra.frag' "$tmp/planted.log" &&
		! grep -q 'zz_extra\|ex02_lag_meter/' "$tree/build/grade/results.json"; then
		ok "planted fragments: ignored and said so; neither reached results.json"
	else
		no "planted fragments were merged, or not reported (see $tmp/planted.log)"
	fi

	# A replaced grader binary: make grade links it afresh.
	printf '#!/bin/sh\necho REPLACED-GRADER\n' >"$tree/build/grader/ex01"
	run_make "$tmp/replaced.log" grade LAB=ex01
	if ! grep -q REPLACED "$tmp/replaced.log" && [ "$(field ex01_round_robin 2)" = 100 ] &&
		head -c 4 "$tree/build/grader/ex01" | grep -q ELF; then
		ok "a replaced build/grader/ex01 is linked again and never run"
	else
		no "a replaced grader binary was run (see $tmp/replaced.log)"
	fi

	# Ctrl-C during a hanging test: every test process is killed first.
	cp "$tmp/cases/hang.c" "$student"
	interrupt_when "$tmp/ctrl-c.log" "^ex01_round_robin" "$tree" \
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u LAB -u BUILD make -s grade LAB=ex01
	rc=$RC
	sleep 0.3
	if [ $rc -ne 0 ] && [ -z "$(leftovers)" ] && grep -q interrupted "$tmp/ctrl-c.log"; then
		ok "Ctrl-C during a hanging test: make grade stops (exit $rc), the test is killed"
	else
		no "Ctrl-C: exit $rc, or a test still running: $(leftovers | tr '\n' ' ') (see $tmp/ctrl-c.log)"
		kill_leftovers
	fi

	# make grade | head: the output is cut, the results are not.
	cp "$tmp/ref.c" "$student"
	(cd "$tree" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u LAB -u BUILD \
		make -s grade LAB=ex01,ex02 2>"$tmp/head.err" | head -3 >/dev/null; echo "${PIPESTATUS[0]}" >"$tmp/head.rc")
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' \
		"$tree/build/grade/results.json" 2>/dev/null)
	total=$(for g in "$tree"/build/grader/list/*; do "$g" --list; done | grep -c .)
	# make reports the runner's status 4 as "Error 4" (and exits 2 itself).
	if [ "$(cat "$tmp/head.rc")" != 0 ] && [ "$n" = "$total" ] && grep -q 'output was cut' "$tmp/head.err" &&
		grep -q 'Error 4' "$tmp/head.err"; then
		ok "make grade | head: all $total tests graded; the status (runner: 4) says the output was cut"
	else
		no "make grade | head: exit $(cat "$tmp/head.rc"), $n of $total tests in results.json"
	fi
}

part_grade_all() {
	# The instructor's own results, which grade-all must leave as they are.
	start_tree
	run_make "$tmp/first.log" grade LAB=ex01 || no "the first make grade failed (see $tmp/first.log)"
	# The same attacks through make grade-all (grade-submission's engine):
	# one submission per attack, each holding only its ex01 file.
	mkdir -p "$tmp/subs"
	for c in pipe_pass defines_fail constructor; do
		mkdir -p "$tmp/subs/$c"
		cp "$tmp/cases/$c.c" "$tmp/subs/$c/round_robin.c"
	done
	cp "$tmp/ref.c" "$student"
	touch "$tmp/stamp"
	run_make "$tmp/grade-all.log" grade-all SUBS="$tmp/subs" LAB=ex01
	for c in pipe_pass defines_fail constructor; do
		res="$tree/build/submissions/$c/ex01/results.json"   # per lab: LAB=ex01
		expect=$(sed -n 's/^ \* Expect: *//p' "$tmp/cases/$c.c")
		if [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["score"])' "$res" 2>/dev/null)" = 0 ] &&
			grep -qF -- "$expect" "$res"; then
			ok "grade-all: $c scores 0 and its results.json names it ('$expect')"
		else
			no "grade-all: $c: not 0, or '$expect' missing in $res (see $tmp/grade-all.log)"
		fi
	done
	aftermath grade-all 1

	# The same forge through Gradescope's entry point: run_autograder in a
	# simulated /autograder (common/gradescope/simulate.sh), from the zip make
	# autograder writes.
	if run_make "$tmp/zip.log" autograder LAB=ex01 &&
		(cd "$tree" && bash common/gradescope/simulate.sh dist/yieldlab-autograder.zip \
			"$tmp/subs/pipe_pass" "$tmp/gs-sim") >"$tmp/gs-sim.log" 2>&1; then
		res="$tmp/gs-sim/results/results.json"
		expect=$(sed -n 's/^ \* Expect: *//p' "$tmp/cases/pipe_pass.c")
		[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["score"])' "$res" 2>/dev/null)" = 0 ] &&
			grep -qF -- "$expect" "$res" &&
			ok "run_autograder: pipe_pass scores 0 and its results.json names it ('$expect')" ||
			no "run_autograder: pipe_pass: not 0, or '$expect' missing in $res (see $tmp/gs-sim.log)"
	else
		no "run_autograder: the simulated Gradescope run failed (see $tmp/zip.log, $tmp/gs-sim.log)"
	fi
}

parts=("$@")
[ $# -gt 0 ] || read -ra parts <<<"$(sed -n 's/^# Parts: //p' "$0")"
for part in "${parts[@]}"; do
	case $part in
	attacks[123]) part_attacks "${part#attacks}" ;;
	runtime | grade-all) "part_${part//-/_}" ;;
	*) echo "hostile.sh: no part '$part' (parts: $(sed -n 's/^# Parts: //p' "$0"))" >&2; exit 2 ;;
	esac
done
rm -rf "$tree/build" "$tree/dist" "$tmp/gs-sim"
