#!/usr/bin/env bash
# One job of make check: `bash common/tests/job.sh NAME` prints the job's
# PASS/FAIL lines and, last, "-- N s wall, N s CPU".  make runs the jobs
# (common/tests/tests.mk); `make check-list` names them:
#
#   build               the -Werror build of everything (the others need it)
#   unit                the unit tests of the library (common/tests/unit/)
#                       that time their own work
#   unit-save           the save client's and server's unit tests, which
#                       mostly wait on slow peers
#   harness             the runner grading its misbehaving fake lab
#   seal                the seal accepts every reference, alternative, wrong
#                       solution and stub
#   lab-exNN            a lab: reference, stub, wrong solutions, alternatives
#   san-address, san-thread   the references under a sanitizer
#   <script>[-<part>]   common/tests/checks/<script>.sh [<part>]
#
# Environment: BUILD (the build tree), LAB (some labs: ex02,ex03), TMP (the
# scratch folder of the whole run; the job uses TMP/<name>).
#
# set -u, not -e: a job counts its failures and goes on to its next check.
set -u
cd "$(dirname "$0")/../.." || exit 3
# make's own flags are not the jobs' (each make they run is a fresh one).
unset MAKEFLAGS MFLAGS MAKELEVEL
name=${1:?usage: job.sh NAME (make check-list names them)}
B=${BUILD:-build}
ONLY=${LAB:-}
TMP=${TMP:?job.sh needs TMP, the scratch folder of the run}/$name
rm -rf "$TMP" && mkdir -p "$TMP" || exit 3

pass() { printf 'PASS %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*"; }

# The labs, in order (LAB= narrows them), with their metadata from the
# one source, make labs-info: id lab student threads tsan needs provided.
labs=()
declare -A student_of threads_of
while read -r id lab file threads _; do
	labs+=("$lab")
	student_of[$lab]=$file
	threads_of[$lab]=$threads
done < <(make -s --no-print-directory BUILD="$B" labs-info LAB="$ONLY" | tail -n +2)
lab_id() { echo "${1%%_*}"; }
lab_of() {   # lab_of exNN: its directory name
	local l
	for l in "${labs[@]}"; do [ "$(lab_id "$l")" = "$1" ] && echo "$l"; done
}

# The runner is the only reader of the results files.
# frag_field OUT LAB N[,N...]: fields of a lab's result (1 lab, 2 score,
# 3 max, 4 passed, 5 count), several on one line.
frag_field() { "$B"/bin/grade-run field --out "$1" --lab "$2" "$3" 2>/dev/null; }
# frag_score OUT LAB: "score/max" (one call of the runner).
frag_score() { frag_field "$1" "$2" 2,3 | tr ' ' /; }
# test_tag OUT LAB TEST: the status the runner gave one test.
test_tag() {
	"$B"/bin/grade-run tags --out "$1" --lab "$2" 2>/dev/null |
		awk -v n="$3" '$1 == n { print $2 }'
}

# caught_by PATCH: sets catcher to the test the patch's "Caught by:" line
# names (read here, not by a sed and a head: ~230 wrong solutions a run).
caught_by() {
	local line
	catcher=
	while IFS= read -r line; do
		if [[ $line =~ Caught\ by:\ *([a-z0-9_]*) ]]; then
			catcher=${BASH_REMATCH[1]}
			return
		fi
	done <"$1"
}

json_valid() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
	else
		# No python3: at least it must be UTF-8.
		iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
	fi
}

check_build() {
	local start=$SECONDS
	# The wrong solutions are built by their lab's job, side by side with
	# the other jobs (they are a third of the build).
	if make -s -j"${JOBS:-2}" BUILD="$B" WERROR=1 all tools alt-graders >"$TMP/build.log" 2>&1; then
		pass "build: every program, grader and correct alternative compiles with -Werror ($((SECONDS - start)) s)"
	else
		cat "$TMP/build.log"
		fail "build: see the compiler output above"
		return 1
	fi
}

# The unit tests are two jobs.  unit-save holds the two that mostly sleep
# (test_save holds its loop 6 s, test_save_hostile waits on slow peers):
# 8 s of wall for 1 s of CPU, so make check starts it early, beside the
# busy jobs; their time bounds leave 1.2 s or more (a 200 ms timeout
# against a 1.4 s bound).  unit holds the rest, which time their own work
# (a calibrated hash rate, a lag median under 20 ms): they run one at a
# time, at the end of the run, when the machine is quiet.  Run alone at
# the end, unit-save was the run's last job for 5 s.
SLEEPY_UNIT_TESTS=" test_save test_save_hostile "
unit_tests() {   # unit_tests sleepy|other: the paths of that kind
	local t
	for t in "$B"/test/test_*; do
		[ -x "$t" ] || continue
		if [[ $SLEEPY_UNIT_TESTS == *" ${t##*/} "* ]]; then
			[ "$1" = sleepy ] && echo "$t"
		else
			[ "$1" = other ] && echo "$t"
		fi
	done
}
check_unit_tests() {   # check_unit_tests sleepy|other
	local t name pids=() tests
	mapfile -t tests < <(unit_tests "$1")
	[ ${#tests[@]} -gt 0 ] || { fail "unit: no $1 unit test in $B/test"; return; }
	# The sleepy ones wait side by side; the others one at a time.
	for t in "${tests[@]}"; do
		if [ "$1" = sleepy ]; then
			run_unit_test "$t" &
			pids+=($!)
		else
			run_unit_test "$t"
		fi
	done
	[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
	for t in "${tests[@]}"; do
		name=${t##*/}
		grep -E '^\[  (PASSED|FAILED|ERROR) ' "$TMP/$name.out" | sed 's/^/  /'
		if [ "$(cat "$TMP/$name.rc")" = 0 ]; then
			pass "unit: $name"
		else
			tail -20 "$TMP/$name.out"
			fail "unit: $name (exit $(cat "$TMP/$name.rc"))"
		fi
	done
}
run_unit_test() {   # run_unit_test PATH: its output and exit status in TMP
	"$1" >"$TMP/${1##*/}.out" 2>&1
	echo $? >"$TMP/${1##*/}.rc"
}

# run_processes TOKEN: the pids whose environment holds YIELDLAB_CHECK_RUN=TOKEN.
# (One grep reads every environment: -z, its entries end in NUL.)
run_processes() {
	grep -lzx "YIELDLAB_CHECK_RUN=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' '
}

check_harness() {
	out="$TMP/selftest"
	# Every process of this run carries the token in its environment (the
	# runner passes it on): leftovers are found by it, never by name.
	token="selftest-$$-$RANDOM"
	YIELDLAB_CHECK_RUN=$token "$B"/grader/selftest --out "$out" --rerun 'selftest' >"$TMP/selftest.log" 2>&1
	rc=$?
	[ $rc -eq 1 ] && pass "harness: exit status 1 when tests fail" ||
		fail "harness: exit status $rc, expected 1"
	for name in $("$B"/grader/selftest --list | awk '{ print $1 }'); do
		want=$(echo "$name" | cut -d_ -f2)
		got=$(test_tag "$out" selftest "$name")
		[ "$got" = "$want" ] && pass "harness: $name reported as $want" ||
			fail "harness: $name reported as '$got', expected $want"
	done
	json_valid "$out/results.json" && pass "harness: results.json is valid JSON after hostile output" ||
		fail "harness: results.json is not valid JSON"
	npass=$("$B"/grader/selftest --list | grep -c '^status_pass_')
	score=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["score"])' "$out/results.json" 2>/dev/null)
	[ "$score" = "$npass" ] && [ "$(frag_field "$out" selftest 2)" = "$npass" ] &&
		pass "harness: the score is the runner's ($npass), not the planted full-marks fragment" ||
		fail "harness: score '$score', expected $npass: a planted or forged result counted"
	n=$("$B"/grader/selftest --list | grep -c .)
	[ "$(frag_field "$out" selftest 2,5)" = "$npass $n" ] && [ -z "$(frag_field "$out" selftest 2,9)" ] &&
		pass "harness: grade-run field 2,5 gives score and count on one line; a field that is not there gives nothing" ||
		fail "harness: grade-run field 2,5 gave '$(frag_field "$out" selftest 2,5)' (want '$npass $n'), 2,9 gave '$(frag_field "$out" selftest 2,9)'"
	"$B"/bin/grade-run field --out "$out" --lab selftest 2,x >/dev/null 2>"$TMP/field.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q 'field needs N\[,N...\]' "$TMP/field.err" && grep -q '^usage:' "$TMP/field.err" &&
		pass "harness: grade-run field with a bad field list says so, with the usage, exit 2" ||
		fail "harness: grade-run field 2,x: exit $rc, $(head -1 "$TMP/field.err")"
	if grep -q zz_planted "$out/results.json"; then
		fail "harness: a planted fragment was merged into results.json"
	else
		pass "harness: a planted fragment is ignored"
	fi
	if grep -q $'\033' "$TMP/selftest.log"; then
		fail "harness: an escape sequence from a test reached the terminal"
	else
		pass "harness: test output on the terminal is sanitised (no escape sequence)"
	fi
	left=$(run_processes "$token")
	if [ -n "$left" ]; then
		kill -KILL $left 2>/dev/null
		fail "harness: a test's grandchild was left running (pids $left)"
	else
		pass "harness: nothing a test started is left running (double fork and setsid included)"
	fi
	check_bwrap_fallback "no bwrap on PATH" "bwrap is not installed" /nonexistent
	# A bwrap that cannot make its sandbox (no user namespaces) says so
	# on stderr and exits 1, like the real one.
	mkdir -p "$TMP/nobwrap"
	printf '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' >"$TMP/nobwrap/bwrap"
	chmod +x "$TMP/nobwrap/bwrap"
	check_bwrap_fallback "a bwrap that cannot make a sandbox" "bwrap cannot make a sandbox here" "$TMP/nobwrap:$PATH"
}

# check_bwrap_fallback WHAT REASON PATH: with PATH, the runner learns from
# its first run (the test list) that bubblewrap is off, says why, and runs
# the test unsandboxed: its crash is still told apart.
check_bwrap_fallback() {
	local out="$TMP/selftest-nobwrap" log="$TMP/selftest-nobwrap.log"
	rm -rf "$out"
	PATH=$3 "$B"/grader/selftest --out "$out" --test status_crash_segfault >"$log" 2>&1
	if grep -q "bubblewrap OFF: $2" "$log" && [ "$(test_tag "$out" selftest status_crash_segfault)" = crash ]; then
		pass "harness: $1: 'bubblewrap OFF: $2', and the test runs without it (a segfault is a crash)"
	else
		fail "harness: $1: expected 'bubblewrap OFF: $2' and a crash; got: $(head -c 400 "$log")"
	fi
}

check_seal() {
	seal_one() {   # seal_one LAB OBJECT
		local msg
		if msg=$(bash common/grade/seal.sh "$2" "$B/seal/$1.api" "$1"); then
			pass "seal: $2"
		else
			fail "seal: $2 is refused: $msg"
		fi
	}
	local lab file o half i=0 pairs=()
	make -s BUILD="$B" $(for lab in "${labs[@]}"; do echo "$B/seal/$lab.api"; done) >/dev/null 2>&1
	for lab in "${labs[@]}"; do
		file=${student_of[$lab]}
		for o in "$B/obj/labs/$lab/${file%.c}.o" "$B/obj/solutions/$lab/${file%.c}.o" \
			"$B"/obj/solutions/alt/"$lab"/*.o "$B"/obj/wrong/"$lab"/*.o; do
			[ -f "$o" ] && pairs+=("$lab $o")
		done
	done
	# Two halves side by side (this job runs last, when the other jobs
	# have left a core idle), printed in order.
	half=$(( (${#pairs[@]} + 1) / 2 ))
	for i in 0 1; do
		for o in "${pairs[@]:$((i * half)):$half}"; do
			seal_one "${o%% *}" "${o#* }"
		done >"$TMP/seal-$i.out" &
	done
	wait
	cat "$TMP/seal-0.out" "$TMP/seal-1.out"
}

# check_tsan_only LAB: wrong solutions whose mistake is a data race
# (solutions/wrong/<lab>/tsan-only/) are rejected by the ThreadSanitizer
# build of their catcher, which a plain make grade runs for the tests
# marked GRADE_TEST_TSAN.  They are built in a tree of the job's own:
# the san-thread job builds $B/san-thread at the same time (a shared tree
# would have two makes writing the same objects; 3 s of CPU on a cold cache).
check_tsan_only() {
	local lab=$1 src m catcher g out rc tag id tb="$TMP/tsan-build"
	id=$(lab_id "$lab")
	for src in solutions/wrong/"$lab"/tsan-only/*.patch; do
		[ -f "$src" ] || continue
		m=${src##*/}
		m=tsan-only/${m%.patch}
		caught_by "$src"
		g="$tb/san-thread/grader/wrong/$lab/$m"
		if ! make -s BUILD="$tb" SAN=thread "$g" >"$TMP/tsan-$id.log" 2>&1; then
			tail -5 "$TMP/tsan-$id.log"
			fail "$id/wrong/$m: its TSan grader did not build"
			continue
		fi
		out="$TMP/wrong-$id-${m//\//-}"
		"$g" --out "$out" --test "$catcher" >"$out.log" 2>&1
		rc=$?
		tag=$(test_tag "$out" "$lab" "$catcher")
		if grep -q "GRADE_TEST_TSAN($catcher," "labs/$lab/grade.c" &&
			[ $rc -eq 1 ] && [ -n "$tag" ] && [ "$tag" != pass ]; then
			pass "$id/wrong/$m: rejected under TSan, $catcher: $tag"
		else
			fail "$id/wrong/$m: exit $rc, $catcher: '${tag:-not run}' (is it marked GRADE_TEST_TSAN?)"
		fi
	done
}

# check_lab LAB: its reference, stub, wrong solutions and alternatives.
# build_wrong LAB: the graders of the lab's wrong solutions, -Werror.
build_wrong() {
	local lab=$1 src targets=()
	for src in solutions/wrong/"$lab"/*.patch; do
		[ -f "$src" ] && targets+=("$B/grader/wrong/$lab/$(basename "$src" .patch)")
	done
	[ ${#targets[@]} -gt 0 ] || return 0
	if make -s -j2 BUILD="$B" WERROR=1 "${targets[@]}" >"$TMP/wrong-build.log" 2>&1; then
		pass "$(lab_id "$lab"): every wrong solution (${#targets[@]}) applies to the reference and builds with -Werror"
	else
		tail -30 "$TMP/wrong-build.log"
		fail "$(lab_id "$lab"): a wrong solution does not apply or build (above)"
	fi
}

check_lab() {
	local lab=$1
	id=$(lab_id "$lab")
	build_wrong "$lab"
	out="$TMP/sol-$id"
	if "$B"/grader/"$id"-sol --out "$out" >"$TMP/sol-$id.log" 2>&1; then
		pass "$id: the reference solution gets full marks ($(frag_score "$out" "$lab"))"
	else
		cat "$TMP/sol-$id.log"
		fail "$id: the reference solution lost points"
	fi
	out="$TMP/stub-$id"
	"$B"/grader/"$id" --out "$out" >"$TMP/stub-$id.log" 2>&1
	score=$(frag_field "$out" "$lab" 2)
	if [ "$score" = 0 ] && ! "$B"/bin/grade-run tags --out "$out" --lab "$lab" | grep -q ' timeout$'; then
		pass "$id: the stub scores 0, every test ends without a timeout"
	else
		cat "$TMP/stub-$id.log"
		fail "$id: the stub scored '$score' or hung"
	fi
	for src in solutions/wrong/"$lab"/*.patch; do
		[ -f "$src" ] || continue
		m=${src##*/}
		m=${m%.patch}
		caught_by "$src"
		out="$TMP/wrong-$id-$m"
		"$B"/grader/wrong/"$lab/$m" --out "$out" ${catcher:+--test "$catcher"} >"$out.log" 2>&1
		rc=$?
		score=$(frag_score "$out" "$lab")
		tag=$(test_tag "$out" "$lab" "$catcher")
		if [ -z "$catcher" ]; then
			fail "$id/wrong/$m: no 'Caught by: <test>' line in its header"
		elif [ $rc -eq 1 ] && [ -n "$tag" ] && [ "$tag" != pass ]; then
			pass "$id/wrong/$m: rejected ($score), $catcher: $tag"
		else
			fail "$id/wrong/$m: exit $rc, ${score:-no score}, $catcher: '${tag:-not run}'"
		fi
	done

	id=$(lab_id "$lab")
	n_alt=$(find solutions/alt/"$lab" -name '*.c' 2>/dev/null | wc -l)
	[ "$n_alt" -ge 2 ] && pass "$id: $n_alt correct alternatives in solutions/alt/" ||
		fail "$id: $n_alt correct alternatives in solutions/alt/$lab (at least 2 wanted)"
	check_tsan_only "$lab"
	for src in solutions/alt/"$lab"/*.c; do
		[ -f "$src" ] || continue
		m=$(basename "$src" .c)
		out="$TMP/alt-$id-$m"
		if "$B"/grader/alt/"$lab/$m" --out "$out" >"$out.log" 2>&1; then
			pass "$id/alt/$m: full marks ($(frag_score "$out" "$lab"))"
		else
			cat "$out.log"
			fail "$id/alt/$m: a correct alternative lost points"
		fi
	done
}

# Under ASan a test that leaks fails with LeakSanitizer's message (the
# harness's fake lab, built with ASan, has a test that drops ten blocks):
# the grader's own leak check, which makes the one at exit redundant.
check_leak_report() {
	local out="$TMP/san-selftest"
	if ! make -s BUILD="$B" SAN=address "$B/san-address/grader/selftest" >"$out.build.log" 2>&1; then
		tail -20 "$out.build.log"
		fail "SAN=address: the harness's fake lab did not build"
		return
	fi
	"$B"/san-address/grader/selftest --out "$out" --test status_fail_leaks_blocks >"$out.log" 2>&1
	if [ "$(test_tag "$out" selftest status_fail_leaks_blocks)" = fail ] &&
		grep -q 'LeakSanitizer found memory that was never freed' "$out/results.json"; then
		pass "SAN=address: a test that leaks fails, and says LeakSanitizer found memory never freed"
	else
		tail -20 "$out.log"
		fail "SAN=address: a leaking test was not failed for its leak (tag '$(test_tag "$out" selftest status_fail_leaks_blocks)')"
	fi
}

# check_san SAN: the references under a sanitizer (TSan: the threaded labs).
check_san() {
	local san=$1 lab id out targets=()
	local -a sel=()
	for lab in "${labs[@]}"; do
		# TSan only where threads are.
		if [ "$san" = thread ] && [ "${threads_of[$lab]}" != 1 ]; then
			continue
		fi
		sel+=("$lab")
		targets+=("$B/san-$san/grader/$(lab_id "$lab")-sol")
	done
	[ ${#sel[@]} -gt 0 ] || return 0
	if ! make -s -j2 BUILD="$B" SAN="$san" "${targets[@]}" >"$TMP/san-$san.log" 2>&1; then
		tail -30 "$TMP/san-$san.log"
		fail "SAN=$san: build failed"
		return
	fi
	[ "$san" = address ] && check_leak_report
	for lab in "${sel[@]}"; do
		id=$(lab_id "$lab")
		out="$TMP/san-$san-$id"
		if "$B"/san-$san/grader/"$id"-sol --out "$out" >"$out.log" 2>&1; then
			pass "$id: full marks under SAN=$san, no sanitizer report"
		else
			cat "$out.log"
			fail "$id: lost points under SAN=$san"
		fi
	done
}

# ---- dispatch ------------------------------------------------------------

run_job() {
	case $name in
	build) check_build ;;
	unit) check_unit_tests other ;;
	unit-save) check_unit_tests sleepy ;;
	harness) check_harness ;;
	seal) check_seal ;;
	san-address | san-thread) check_san "${name#san-}" ;;
	lab-*)
		local lab
		lab=$(lab_of "${name#lab-}")
		[ -n "$lab" ] || { fail "$name: no such lab (or not in LAB=$ONLY)"; return; }
		check_lab "$lab" ;;
	*)
		local script=${name%%-*} part=
		[[ $name == *-* ]] && part=${name#*-}
		if [ ! -f "common/tests/checks/$script.sh" ]; then
			fail "$name: no such job (make check-list names them)"
			return
		fi
		TMP="$TMP" bash "common/tests/checks/$script.sh" $part 2>&1 ;;
	esac
}

start=$SECONDS
run_job
status=$?
# CPU seconds of this shell's children, from bash's `times`, run in this
# shell itself (in a pipe or $(...) it would count a subshell's children).
times >"$TMP/times"
cpu=$(tail -1 "$TMP/times" | awk '{ gsub(/[ms]/, " "); print int($1 * 60 + $2 + $3 * 60 + $4) }')
echo "-- $((SECONDS - start)) s wall, $cpu s CPU"
[ "$name" != build ] || exit $status
