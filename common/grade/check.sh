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
# Ends with "N passed, N failed"; exits 1 if anything failed.
set -u
cd "$(dirname "$0")/../.." || exit 3

JOBS=${JOBS:-2}
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

passed=0
failed=0
failures=()
TMP=$(mktemp -d "${TMPDIR:-/tmp}/yieldlab-check.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$*"; }
fail() { failed=$((failed + 1)); failures+=("$*"); printf 'FAIL %s\n' "$*"; }
section() { printf '\n== %s\n' "$*"; }

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

section "build (-Werror)"
if make -s -j"$JOBS" BUILD="$B" WERROR=1 all wrong-graders alt-graders >"$TMP/build.log" 2>&1; then
	pass "build: every program, grader and wrong solution compiles with -Werror"
else
	cat "$TMP/build.log"
	fail "build: see the compiler output above"
	printf '\n%d passed, %d failed\n' "$passed" "$failed"
	exit 1
fi

section "unit tests of common/"
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

section "the harness grades a misbehaving fake lab"
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
if pgrep -f 'sleep 360[02]' >/dev/null; then
	pkill -f 'sleep 360[02]'
	fail "harness: a test's grandchild was left running"
else
	pass "harness: nothing a test started is left running (double fork and setsid included)"
fi

section "the seal: every reference, alternative, wrong solution and stub passes it"
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

section "labs: reference full marks, stub zero, wrong solutions rejected"
for lab in "${labs[@]}"; do
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
done

section "correct alternatives (solutions/alt/): full marks in another style"
for lab in "${labs[@]}"; do
	id=$(lab_id "$lab")
	n_alt=$(find solutions/alt/"$lab" -name '*.c' 2>/dev/null | wc -l)
	[ "$n_alt" -ge 2 ] && pass "$id: $n_alt correct alternatives in solutions/alt/" ||
		fail "$id: $n_alt correct alternatives in solutions/alt/$lab (at least 2 wanted)"
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
done

section "sanitizers: the reference solutions under ASan+UBSan and TSan"
for san in address thread; do
	if ! make -s -j"$JOBS" BUILD="$B" SAN=$san graders >"$TMP/san-$san.log" 2>&1; then
		tail -30 "$TMP/san-$san.log"
		fail "SAN=$san: build failed"
		continue
	fi
	for lab in "${labs[@]}"; do
		id=$(lab_id "$lab")
		# TSan only where threads are: lab.mk sets <lab>_THREADS := 1.
		if [ $san = thread ] && ! grep -q "_THREADS *:= *1" "labs/$lab/lab.mk"; then
			continue
		fi
		out="$TMP/san-$san-$id"
		if "$B"/san-$san/grader/"$id"-sol --out "$out" >"$out.log" 2>&1; then
			pass "$id: full marks under SAN=$san, no sanitizer report"
		else
			cat "$out.log"
			fail "$id: lost points under SAN=$san"
		fi
	done
done

for script in common/checks/*.sh; do
	[ -f "$script" ] || continue
	section "$(basename "$script" .sh)"
	while IFS= read -r line; do
		case "$line" in
		PASS\ *) pass "${line#PASS }" ;;
		FAIL\ *) fail "${line#FAIL }" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done < <(TMP="$TMP" bash "$script" 2>&1)
done

if [ $failed -gt 0 ]; then
	printf '\nFailed:\n'
	printf '  %s\n' "${failures[@]}"
fi
printf '\n%d passed, %d failed\n' "$passed" "$failed"
[ $failed -eq 0 ]
