#!/usr/bin/env bash
# make check: the project's own test suite (what CI runs).
#
#  1. a -Werror build of everything;
#  2. the unit tests of common/ (cmocka);
#  3. the harness grading its own misbehaving fake lab (and forging), and
#     the seal accepting every reference, alternative and wrong solution;
#  4. every lab: the reference gets full marks, the stub gets zero and
#     never hangs, every wrong solution is rejected by the test it names;
#  5. the reference solutions under AddressSanitizer + UBSan, and under
#     ThreadSanitizer for the labs that use threads;
#  6. every further check in common/checks/*.sh (each prints PASS/FAIL lines).
#
# After the build, the rest runs as independent jobs, JOBS at a time (the
# graders' real-time tests hold their margins with both cores busy: see
# common/grade/stress.sh); each job's lines are printed in a fixed order
# with the seconds it took.  Ends with "N passed, N failed"; exits 1 if
# anything failed.
set -u
cd "$(dirname "$0")/../.." || exit 3

JOBS=${JOBS:-3}          # check jobs at once; builds use make -j2
B=${BUILD:-build}        # make BUILD=dir keeps a second tree apart
ONLY=${LAB:-}            # LAB=ex02,ex03 checks only those labs

if [ ! -d solutions ]; then
	echo "make check tests the whole suite, and this copy has no solutions/" >&2
	echo "(a student handout): grade your work with 'make grade'." >&2
	exit 2
fi

# A student file with work in it (a student's, an instructor's trying a
# solution) would fail the stub checks: check a copy of this tree whose
# student files are the committed stubs, and leave the work alone.
edited_student_files() {
	git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
	make -s --no-print-directory workflow-labs LAB= BUILD="$B" 2>/dev/null |
		while read -r lab file; do
			p="labs/$lab/$file"
			git cat-file -e "HEAD:$p" 2>/dev/null &&
				! git diff --quiet HEAD -- "$p" && echo "$p"
		done
}
if [ -z "${YIELDLAB_CHECK_COPY:-}" ]; then
	mapfile -t edited < <(edited_student_files)
	if [ ${#edited[@]} -gt 0 ]; then
		copy="$B/check-tree"
		echo "make check: ${edited[*]}: not the committed stub;" >&2
		echo "make check: checking a copy with the stubs restored ($copy); your files are untouched" >&2
		source common/workflow/lib.sh
		rm -rf "$copy" && mkdir -p "$copy" || exit 3
		wf_suite_files . with-solutions | wf_copy_files . "$copy" || exit 3
		for p in "${edited[@]}"; do git show "HEAD:$p" >"$copy/$p"; done
		cd "$copy" && exec env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
			YIELDLAB_CHECK_COPY=1 BUILD=build LAB="$ONLY" bash common/grade/check.sh
	fi
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/yieldlab-check.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# Jobs print these lines; the summary counts them from every job's log.
pass() { printf 'PASS %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*"; }

# Labs are the directories with a lab.mk, in order.
labs=()
for mk in labs/*/lab.mk; do
	lab=$(basename "$(dirname "$mk")")
	if [ -z "$ONLY" ] || [[ ",$ONLY," == *",${lab%%_*},"* ]]; then
		labs+=("$lab")
	fi
done
lab_id() { echo "${1%%_*}"; }

# The runner is the only reader of the results files.
# frag_field OUT LAB N: field N of a lab's result (lab score max passed count).
frag_field() { "$B"/bin/grade-run field --out "$1" --lab "$2" "$3" 2>/dev/null; }
# test_tag OUT LAB TEST: the status the runner gave one test.
test_tag() {
	"$B"/bin/grade-run tags --out "$1" --lab "$2" 2>/dev/null |
		awk -v n="$3" '$1 == n { print $2 }'
}

json_valid() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
	else
		# No python3: at least the braces must balance and it must be UTF-8.
		iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
	fi
}

printf '== build (-Werror)\n'
build_start=$(date +%s)
if make -s -j"$JOBS" BUILD="$B" WERROR=1 all wrong-graders alt-graders >"$TMP/build.log" 2>&1; then
	pass "build: every program, grader and wrong solution compiles with -Werror ($(($(date +%s) - build_start)) s)"
else
	cat "$TMP/build.log"
	fail "build: see the compiler output above"
	printf '\n0 passed, 1 failed\n'
	exit 1
fi

# ---- the jobs ------------------------------------------------------------

check_unit_tests() {
	for t in "$B"/test/test_*; do
		[ -x "$t" ] || continue
		out=$("$t" 2>&1)
		rc=$?
		printf '%s\n' "$out" | grep -E '^\[  (PASSED|FAILED|ERROR) ' | sed 's/^/  /'
		if [ $rc -eq 0 ]; then
			pass "unit: $(basename "$t")"
		else
			printf '%s\n' "$out" | tail -20
			fail "unit: $(basename "$t") (exit $rc)"
		fi
	done

}

check_harness() {
	out="$TMP/selftest"
	"$B"/grader/selftest --out "$out" --rerun 'selftest' >"$TMP/selftest.log" 2>&1
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
	# The self-test's orphans carry a name no other process has
	# (selftest.c): this finds and ends only them.
	if pgrep -f '^yieldlab-selftest-orphan' >/dev/null; then
		pkill -f '^yieldlab-selftest-orphan'
		fail "harness: a test's grandchild was left running"
	else
		pass "harness: nothing a test started is left running (double fork and setsid included)"
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
	make -s BUILD="$B" $(for lab in "${labs[@]}"; do echo "$B/seal/$lab.api"; done) >/dev/null 2>&1
	for lab in "${labs[@]}"; do
		file=$(sed -n 's/.*_STUDENT *:= *//p' "labs/$lab/lab.mk")
		for o in "$B/obj/labs/$lab/${file%.c}.o" "$B/obj/solutions/$lab/${file%.c}.o" \
			"$B"/obj/solutions/alt/"$lab"/*.o "$B"/obj/wrong/"$lab"/*.o; do
			[ -f "$o" ] && seal_one "$lab" "$o"
		done
	done

}

# check_tsan_only LAB: wrong solutions whose mistake is a data race
# (solutions/wrong/<lab>/tsan-only/) are rejected by the ThreadSanitizer
# build of their catcher, which a plain make grade runs for the tests
# marked GRADE_TEST_TSAN.
check_tsan_only() {
	local lab=$1 src m catcher g out rc tag id
	id=$(lab_id "$lab")
	for src in solutions/wrong/"$lab"/tsan-only/*.patch; do
		[ -f "$src" ] || continue
		m=tsan-only/$(basename "$src" .patch)
		catcher=$(sed -n 's/.*Caught by: *\([a-z0-9_]*\).*/\1/p' "$src" | head -1)
		g="$B/san-thread/grader/wrong/$lab/$m"
		if ! make -s BUILD="$B" SAN=thread "$g" >"$TMP/tsan-$id.log" 2>&1; then
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
check_lab() {
	local lab=$1
	id=$(lab_id "$lab")
	out="$TMP/sol-$id"
	if "$B"/grader/"$id"-sol --out "$out" >"$TMP/sol-$id.log" 2>&1; then
		pass "$id: the reference solution gets full marks ($(frag_field "$out" "$lab" 2)/$(frag_field "$out" "$lab" 3))"
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
		m=$(basename "$src" .patch)
		catcher=$(sed -n 's/.*Caught by: *\([a-z0-9_]*\).*/\1/p' "$src" | head -1)
		out="$TMP/wrong-$id-$m"
		"$B"/grader/wrong/"$lab/$m" --out "$out" ${catcher:+--test "$catcher"} >"$out.log" 2>&1
		rc=$?
		score=$(frag_field "$out" "$lab" 2)
		max=$(frag_field "$out" "$lab" 3)
		tag=$(test_tag "$out" "$lab" "$catcher")
		if [ -z "$catcher" ]; then
			fail "$id/wrong/$m: no 'Caught by: <test>' line in its header"
		elif [ $rc -eq 1 ] && [ -n "$tag" ] && [ "$tag" != pass ]; then
			pass "$id/wrong/$m: rejected ($score/$max), $catcher: $tag"
		else
			fail "$id/wrong/$m: exit $rc, $score/$max, $catcher: '${tag:-not run}'"
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
			pass "$id/alt/$m: full marks ($(frag_field "$out" "$lab" 2)/$(frag_field "$out" "$lab" 3))"
		else
			cat "$out.log"
			fail "$id/alt/$m: a correct alternative lost points"
		fi
	done
}

# check_san SAN: the references under a sanitizer (TSan: the threaded labs).
check_san() {
	local san=$1 lab id out targets=()
	local -a sel=()
	for lab in "${labs[@]}"; do
		# TSan only where threads are: lab.mk sets <lab>_THREADS := 1.
		if [ "$san" = thread ] && ! grep -q "_THREADS *:= *1" "labs/$lab/lab.mk"; then
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

# check_script FILE: one of common/checks/*.sh, its lines as they come.
check_script() { TMP="$TMP" bash "$1" 2>&1; }

# ---- the pool ------------------------------------------------------------

names=()
commands=()
# ONLY_JOBS=text keeps the jobs whose name contains text (e.g. "lab ex05").
add_job() {
	[[ -z "${ONLY_JOBS:-}" || "$1" == *"$ONLY_JOBS"* ]] || return 0
	names+=("$1")
	commands+=("$2")
}

# Longest first, so the pool ends together.
for script in common/checks/workflow.sh common/checks/hostile.sh common/checks/*.sh; do
	[ -f "$script" ] || continue
	n=$(basename "$script" .sh)
	[[ " ${names[*]} " == *" $n "* ]] || add_job "$n" "check_script $script"
done
add_job "sanitizers: ASan + UBSan" "check_san address"
add_job "sanitizers: TSan" "check_san thread"
for lab in "${labs[@]}"; do
	add_job "lab $(lab_id "$lab"): reference, stub, wrong solutions, alternatives" "check_lab $lab"
done
add_job "unit tests of common/" check_unit_tests
add_job "the harness grades a misbehaving fake lab" check_harness
add_job "the seal: every reference, alternative, wrong solution and stub passes it" check_seal

mkdir -p "$TMP/jobs"
for i in "${!names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	(
		start=$(date +%s)
		eval "${commands[$i]}"
		echo "-- $(($(date +%s) - start)) s"
	) >"$TMP/jobs/$i.log" 2>&1 </dev/null &
done
wait

# The jobs' lines in the order they were listed, then the count.
passed=0
failed=0
for i in "${!names[@]}"; do
	printf '\n== %s\n' "${names[$i]}"
	cat "$TMP/jobs/$i.log"
done
passed=$(cat "$TMP"/jobs/*.log | grep -c '^PASS ')
failed=$(cat "$TMP"/jobs/*.log | grep -c '^FAIL ')
if [ "$failed" -gt 0 ]; then
	printf '\nFailed:\n'
	cat "$TMP"/jobs/*.log | sed -n 's/^FAIL /  /p'
fi
printf '\n%d passed, %d failed\n' "$passed" $((failed + 0))
[ "$failed" -eq 0 ]
