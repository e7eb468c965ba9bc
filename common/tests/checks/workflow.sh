#!/usr/bin/env bash
# make check, workflow: the instructor and student workflow, run from fresh
# copies of the suite the way README.md shows it.  Independent parts, each
# in a scratch folder of its own (make check runs them side by side):
#
#  handout      make handout (from git, and from a plain copy): no
#               solutions/, no reference line, every lab; make grade SOL=1
#               and make plots in an instructor's copy;
#  student      in the unpacked handout: make grade scores 0 everywhere,
#               make status through not started, partial and done, T=;
#  tools        in another unpacked handout: make hint, make watch
#               (bounded), SAN=address;
#  submissions  grade-submission, grade-all -j2, the roster, the upload
#               shapes and hostile archives, lab-by-lab batches, KEEP=,
#               STUDENT_WERROR=, a tampered shared suite;
#  hostile      grade-all of submissions that hang, crash, miss their
#               file, do not compile, flood their output; LAB_TIMEOUT=,
#               SUB_TIMEOUT= and Ctrl-C in the middle of a lab (nothing of
#               it left running);
#  gradescope   make autograder(s), simulate.sh and run_autograder in a
#               simulated /autograder, autograder.conf's settings;
#  guides       every command the guides show is one a part above ran
#               (run it after them: it reads their lists).
#
#   bash common/tests/checks/workflow.sh [PART...]   (no PART: all, in order)
#
# Prints PASS/FAIL lines; scratch goes under $TMP.
# Parts: handout student tools submissions hostile gradescope guides
#
# set -u, not -e: each check says PASS or FAIL and the part goes on.
set -u
repo=$(pwd)
. "$repo/common/workflow/lib.sh"
. "$repo/common/tests/interrupt.sh"
B=${BUILD:-build}
wf_clean_env
tmp=${TMP:-$(mktemp -d)}
mkdir -p "$tmp"
ran="$tmp/ran.txt"                 # the guide commands this part ran
: >"$ran"
course="$tmp/course/yieldlab"      # the instructor's copy, with solutions/
stu="$tmp/student/yieldlab"        # the unpacked handout
sol="$repo/solutions/ex01_round_robin/round_robin.c"
# A wrong ex01 (its yield is a zero timer), made here from its patch.
wrong="$tmp/zero_timer_yield.c"
patch --quiet --fuzz=0 -o "$wrong" "$sol" <"$repo/solutions/wrong/ex01_round_robin/zero_timer_yield.patch" >/dev/null ||
	echo "FAIL workflow: solutions/wrong/ex01_round_robin/zero_timer_yield.patch does not apply"
ex01_file=labs/ex01_round_robin/round_robin.c

pass() { printf 'PASS workflow: %s\n' "$*"; }
fail() { printf 'FAIL workflow: %s\n' "$*"; }
# check DESCRIPTION CMD...: PASS when CMD succeeds.
check() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# doc DIR LOG CMD: runs a command the guides show, exactly as written, in
# DIR, output to LOG, and records it for the drift check at the end.
doc() {
	local dir=$1 log=$2 cmd=$3 rc
	printf '%s\n' "$cmd" >>"$ran"
	(cd "$dir" && bash -c "$cmd") >"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "  ('$cmd' exited $rc; its last lines:)"
		tail -15 "$log" | sed 's/^/    /'
	fi
	return $rc
}

# usage_error DESCRIPTION DIR PATTERN CMD: CMD exits 2 and says PATTERN.
usage_error() {
	local what=$1 dir=$2 pattern=$3 cmd=$4 rc
	(cd "$dir" && bash -c "$cmd") >"$tmp/usage.log" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$pattern" "$tmp/usage.log"; then
		pass "$what"
	else
		fail "$what: exit $rc (expected 2 and '$pattern'): $(head -3 "$tmp/usage.log" | tr '\n' ' ')"
	fi
}

json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
# json_get FILE EXPR: EXPR evaluated with d = the parsed file.
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
		"$1" "$2" 2>/dev/null
}
test_tag() { json_get "$1" "[t['tags'][0] for t in d['tests'] if t['name'] == '$2'][0]"; }
# roster_field CSV SUBMISSION COLUMN
roster_field() {
	awk -F, -v n="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == n { print $col[c] }' "$1"
}
# labs_of TREE: the labs of a copy of the suite (its make labs-info).
labs_of() { wf_make "$1" labs-info LAB= | awk 'NR > 1 { print $2 }'; }
ex01_tests() { "$repo/$B/grader/ex01" --list | grep -c .; }

# ---- the handout ------------------------------------------------------------

handout_content_checks() {
	local tarball=$1 list="$tmp/handout.list" dir="$tmp/git-handout" f hit=0
	tar -tzf "$tarball" | sed 's|^yieldlab/||' | grep -v '/$' | sort >"$list"
	check "the handout has no solutions/ (references, wrong solutions)" \
		bash -c "! grep -q '^solutions/' '$list'"
	check "the handout has no .git, .ci, build tree or dist/" \
		bash -c "! grep -Eq '^(\\.git/|\\.ci/|build|dist/)' '$list'"
	for lab in $(labs_of "$repo"); do
		grep -qx "labs/$lab/lab.mk" "$list" || { fail "the handout lacks $lab"; hit=1; }
	done
	[ $hit = 0 ] && pass "the handout holds every lab of labs/"
	mkdir -p "$dir" && tar -xzf "$tarball" -C "$dir"
	# A reference copied over a stub would leave under another name.
	(cd "$repo/solutions" && find . -type f -name '*.c' -exec sha256sum {} + | awk '{ print $1 }' | sort -u) >"$tmp/sol.sums"
	(cd "$dir" && find . -type f -exec sha256sum {} + | awk '{ print $1 }' | sort -u) >"$tmp/handout.sums"
	check "no file of the handout has the content of a solution" \
		bash -c "[ -z \"\$(comm -12 '$tmp/sol.sums' '$tmp/handout.sums')\" ]"
	answers_checks "$dir/yieldlab"
	hit=0
	while read -r f; do
		case $f in data/*.md | plots/*.gp) continue ;; data/* | plots/*.png | plots/*.svg) ;; *) continue ;; esac
		grep -rqF --include=README.md "$(basename "$f")" "$dir" || { fail "the handout ships $f, which no README names"; hit=1; }
	done <"$list"
	[ $hit = 0 ] && pass "the handout ships no measured data or chart that no README names"
}

# No reference's distinctive line is in the handout (make handout also
# refuses to pack one), and the scan does find one planted in a copy.
answers_checks() {
	local h=$1 planted="$tmp/planted" line
	python3 "$repo/common/workflow/answers.py" "$repo" "$h" >"$tmp/answers.log" 2>&1 &&
		pass "no distinctive line of any reference is in the handout ($(tail -1 "$tmp/answers.log" | sed 's/^answers: //'))" ||
		fail "the handout holds lines of a reference: $(head -5 "$tmp/answers.log" | tr '\n' ' ')"
	rm -rf "$planted" && cp -a "$h" "$planted"
	line=$(grep -m1 'next_due_ns +=' "$repo/solutions/ex02_lag_meter/lag_meter.c")
	printf '%s\n' "$line" >>"$planted/common/lib/clock.c"
	python3 "$repo/common/workflow/answers.py" "$repo" "$planted" >"$tmp/answers-planted.log" 2>&1
	[ $? -eq 1 ] && grep -q '^common/lib/clock.c:.*solutions/ex02_lag_meter/lag_meter.c' "$tmp/answers-planted.log" &&
		pass "the answer scan finds a line of ex02's reference planted in common/lib/clock.c" ||
		fail "the answer scan missed a planted line: $(head -3 "$tmp/answers-planted.log" | tr '\n' ' ')"
}

handout_checks() {
	local tarball="$tmp/git-dist/yieldlab-handout.tar.gz"
	if (cd "$repo" && make -s handout BUILD="$B" DIST="$tmp/git-dist") >"$tmp/handout-git.log" 2>&1 &&
		[ -s "$tarball" ]; then
		pass "make handout (from git) writes yieldlab-handout.tar.gz"
	else
		fail "make handout (from git): $(tail -3 "$tmp/handout-git.log" | tr '\n' ' ')"
		return
	fi
	handout_content_checks "$tarball"
	course_setup &&
		cmp -s <(tar -tzf "$tarball" | sort) <(tar -tzf "$course/dist/yieldlab-handout.tar.gz" | sort) &&
		pass "make handout in a copy without git packs the same files as from git" ||
		fail "make handout in a plain copy differs from the one made from git"
}

# course_setup: the instructor's copy (no git) and its handout, which every
# part but the guides starts from.
course_setup() {
	mkdir -p "$course"
	wf_suite_files "$repo" with-solutions | wf_copy_files "$repo" "$course"
	doc "$course" "$tmp/handout.log" "make handout" && [ -f "$course/dist/yieldlab-handout.tar.gz" ] ||
		{ fail "make handout in an instructor's copy: $(tail -3 "$tmp/handout.log" | tr '\n' ' ')"; return 1; }
}

# ---- students, in the unpacked handout --------------------------------------

first_grade_checks() {
	local lab frag bad=0 n
	if ! doc "$stu" "$tmp/s-grade.log" "make grade"; then
		fail "the unpacked handout does not build and grade"
		return 1
	fi
	for lab in $(labs_of "$stu"); do
		frag="$stu/build/grade/labs/$lab.frag"
		n=$("$stu/build/grader/${lab%%_*}" --list | grep -c .)
		# (A stub that hangs is the labs section's finding, not repeated here.)
		if [ "$(wf_frag_field "$frag" 2,5)" != "0 $n" ]; then
			fail "handout: $lab was not graded to 0 on all its $n tests: $(head -1 "$frag" 2>/dev/null)"
			bad=1
		fi
	done
	[ $bad = 0 ] && pass "handout: make grade runs every lab ($(labs_of "$stu" | wc -l)) and each scores 0"
	check "handout: make grade prints a total of 0" grep -q '^Total score: 0/' "$tmp/s-grade.log"
	# Plain `make` also builds the -sol programs, which need solutions/:
	# each lab's own program is what a student runs.
	local programs=()
	for lab in $(labs_of "$stu"); do programs+=("build/bin/${lab%%_*}"); done
	if (cd "$stu" && make -s "${programs[@]}") >"$tmp/s-programs.log" 2>&1; then
		pass "handout: every lab's program builds"
	else
		fail "handout: the labs' programs do not build: $(tail -n 2 "$tmp/s-programs.log" | tr '\n' ' ')"
	fi
}

# status_says PATTERN DESCRIPTION: make status (a guide command) prints it.
status_says() {
	if doc "$stu" "$tmp/s-status.log" "make status" && grep -Eq -- "$1" "$tmp/s-status.log"; then
		pass "make status: $2"
	else
		fail "make status: $2; it said: $(tr '\n' ' ' <"$tmp/s-status.log")"
	fi
}

status_checks() {
	local labs second
	labs=$(labs_of "$stu" | wc -l)
	second=$(labs_of "$stu" | sed -n 2p)
	status_says "Next: ex01\\." "after the first run, the next lab is ex01"
	[ "$(grep -c 'not started' "$tmp/s-status.log")" = "$labs" ] &&
		pass "make status: every lab is 'not started' on the stubs" ||
		fail "make status: not every lab is 'not started' on the stubs"
	cp "$wrong" "$stu/$ex01_file"
	doc "$stu" "$tmp/s-grade1.log" "make grade LAB=ex01"
	status_says "ex01 +round_robin +partial +[1-9][0-9]*/100" "a lab with some points is partial"
	doc "$stu" "$tmp/s-grade-t.log" "make grade LAB=ex01 T=two_tasks_alternate_strictly"
	# The wrong solution passes this test: full marks for it alone.
	check "T= reruns the one test" grep -qE 'Score: ([0-9]+)/\1 ' "$tmp/s-grade-t.log"
	status_says "ex01 .*partial .*only 1 of $(ex01_tests) tests" "a full score on some tests (T=) is not done"
	cp "$sol" "$stu/$ex01_file"
	doc "$stu" "$tmp/s-grade2.log" "make grade LAB=ex01"
	status_says "ex01 +round_robin +done +100/100" "full marks is done"
	if [ "$labs" -gt 1 ]; then
		status_says "Next: ${second%%_*}\\." "the next lab is the first one not done"
	else
		status_says "Every lab is done" "all labs done"
	fi
	cp "$repo/$ex01_file" "$stu/$ex01_file"
}

hint_checks() {
	local lab levels hints_ok=1
	doc "$stu" "$tmp/h1.log" "make hint LAB=ex01" && grep -q '^## Hint 1' "$tmp/h1.log" &&
		grep -q 'make hint LAB=ex01 LEVEL=2' "$tmp/h1.log" &&
		pass "make hint LAB=ex01 prints level 1 and how to see level 2" ||
		fail "make hint LAB=ex01: $(head -3 "$tmp/h1.log" | tr '\n' ' ')"
	doc "$stu" "$tmp/h2.log" "make hint LAB=ex01 LEVEL=2" && grep -q '^## Hint 2' "$tmp/h2.log" &&
		! grep -q '^## Hint 1' "$tmp/h2.log" &&
		pass "make hint LEVEL=2 prints level 2 alone" || fail "make hint LAB=ex01 LEVEL=2"
	usage_error "make hint without LAB= says so, exit 2" "$stu" "needs LAB=" "make hint"
	usage_error "make hint past the last level says so, exit 2" "$stu" "past the last" "make hint LAB=ex01 LEVEL=99"
	for lab in $(labs_of "$repo"); do
		levels=$(grep -c '^## Hint [0-9]' "$repo/labs/$lab/HINTS.md" 2>/dev/null)
		if [ "${levels:-0}" -lt 1 ] ||
			[ "$(grep -o '^## Hint [0-9]*' "$repo/labs/$lab/HINTS.md" | awk '{ print $3 }' | tr '\n' ' ')" != "$(seq -s ' ' 1 "$levels") " ]; then
			fail "$lab: HINTS.md missing, or its sections are not '## Hint 1', '## Hint 2', ... in order"
			hints_ok=0
		fi
	done
	[ $hints_ok = 1 ] && pass "every lab has HINTS.md with levels 1..n"
}

# make watch, bounded: grades once, is touched, grades again, stops.
watch_checks() {
	local log="$tmp/watch.log" pid
	printf '%s\n' "make watch LAB=ex01" >>"$ran"
	(cd "$stu" && YIELDLAB_WATCH_RUNS=2 timeout 300 bash -c "make watch LAB=ex01") >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 240); do
		grep -q 'waiting for' "$log" && break
		sleep 0.5
	done
	touch "$stu/$ex01_file"
	wait "$pid"
	if [ $? -eq 0 ] && [ "$(grep -c '^Score: ' "$log")" = 2 ]; then
		pass "make watch LAB=ex01 grades at start and again after the file is saved"
	else
		fail "make watch: expected two gradings; got: $(grep -E '^(== watch|Score)' "$log" | tr '\n' ' ')"
	fi
	usage_error "make watch without LAB= says so, exit 2" "$stu" "needs LAB=" "make watch"
	usage_error "make grade with a bad SAN says so, exit 2" "$stu" "SAN must be" "make grade SAN=adress"
	usage_error "make grade with a bad LINKER says so, exit 2" "$stu" "LINKER must be" "make grade LINKER=ld.gold"
}

# unpack_handout: the handout as a student unpacks it.
unpack_handout() {
	mkdir -p "$tmp/student"
	tar -xzf "$course/dist/yieldlab-handout.tar.gz" -C "$tmp/student" ||
		{ fail "the handout does not unpack"; return 1; }
}

student_checks() {
	unpack_handout || return
	first_grade_checks || return
	status_checks
}

# The student's other tools, in a handout of their own (no grade before).
student_tool_checks() {
	unpack_handout || return
	hint_checks
	watch_checks
	if doc "$stu" "$tmp/s-san.log" "make grade LAB=ex01 SAN=address" && grep -q '^Score: 0/100' "$tmp/s-san.log"; then
		pass "make grade LAB=ex01 SAN=address builds and grades in the handout"
	else
		fail "make grade LAB=ex01 SAN=address in the handout"
	fi
}

# ---- instructors, in a copy with solutions/ ---------------------------------

instructor_checks() {
	[ -d "$course" ] || return
	doc "$course" "$tmp/i-sol.log" "make grade SOL=1 LAB=ex01" &&
		grep -q '^Total score: 100/100' "$tmp/i-sol.log" &&
		pass "make grade SOL=1 LAB=ex01: the reference gets full marks" ||
		fail "make grade SOL=1 LAB=ex01"
	doc "$course" "$tmp/i-plots.log" "make plots" &&
		pass "make plots draws the charts in a fresh copy" || fail "make plots in a fresh copy"
	doc "$course" "$tmp/i-list.log" "make check-list" && grep -qx lab-ex01 "$tmp/i-list.log" &&
		grep -qx workflow-guides "$tmp/i-list.log" && [ "$(head -1 "$tmp/i-list.log")" = build ] &&
		pass "make check-list: the build first, then every job (lab-ex01, workflow-guides, ...)" ||
		fail "make check-list: $(tr '\n' ' ' <"$tmp/i-list.log")"
}

# A tree whose grader passes everything, with a header and a Makefile that
# would stop any build: none of them may be used.
make_tampered_tree() {
	local dir=$1
	mkdir -p "$dir" && tar -xzf "$course/dist/yieldlab-handout.tar.gz" -C "$dir" --strip-components=1
	cp "$wrong" "$dir/$ex01_file"
	sed -i 's|^#include "trace.h"$|&\n#undef GRADE_EXPECT_STR\n#define GRADE_EXPECT_STR(got, want) ((void)(got), (void)(want))|' \
		"$dir/labs/ex01_round_robin/grade.c"
	echo '#error "the submission'"'"'s header was used"' >>"$dir/labs/ex01_round_robin/round_robin.h"
	sed -i '1i $(error the submission'"'"'s Makefile was used)' "$dir/Makefile"
}

make_submissions() {
	local subs="$tmp/course/submissions" t="$tmp/alice"
	mkdir -p "$subs" "$t"
	tar -xzf "$course/dist/yieldlab-handout.tar.gz" -C "$t"
	cp "$sol" "$t/yieldlab/$ex01_file"
	tar -czf "$subs/alice.tar.gz" -C "$t" yieldlab
	make_tampered_tree "$subs/bob"
}

sub_dir() { echo "$course/build/submissions/$1/${2:-ex01}"; }

submission_checks() {
	local roster="$course/build/submissions/roster.csv" res
	[ -f "$course/dist/yieldlab-handout.tar.gz" ] || return
	make_submissions
	res="$(sub_dir alice)/results.json"
	doc "$course" "$tmp/one.log" "make grade-submission SUB=../submissions/alice.tar.gz LAB=ex01" &&
		json_ok "$res" && [ "$(json_get "$res" "d['score']")" = 100 ] &&
		pass "make grade-submission: a tarball of a tree with the reference scores 100" ||
		fail "make grade-submission SUB=alice.tar.gz: $(tail -3 "$tmp/one.log" | tr '\n' ' ')"
	doc "$course" "$tmp/all.log" "make -j2 grade-all SUBS=../submissions LAB=ex01" ||
		fail "make grade-all exited non-zero"
	[ "$(roster_field "$roster" alice ex01),$(roster_field "$roster" alice status)" = "100,ok" ] &&
		pass "grade-all: alice 100, ok" || fail "grade-all: alice: $(grep alice "$roster")"
	res="$(sub_dir bob)/results.json"
	[ "$(roster_field "$roster" bob ex01)" = "$(json_get "$res" "d['score']")" ] &&
		[ "$(test_tag "$res" ex01_round_robin/four_tasks_keep_fifo_order_every_round)" = fail ] &&
		[ "$(roster_field "$roster" bob status)" = ok ] &&
		pass "grade-all: bob's own grader, header and Makefile change nothing (the pristine grader fails his wrong yield: $(roster_field "$roster" bob ex01)/100)" ||
		fail "grade-all: bob: $(grep bob "$roster")"
	cp "$roster" "$tmp/roster-good.csv"
	doc "$course" "$tmp/roster.log" "cat build/submissions/roster.csv" &&
		head -1 "$tmp/roster.log" | grep -qx 'submission,.*ex01.*,total,status' &&
		pass "roster.csv: submission, a column per lab, total, status" || fail "roster.csv header: $(head -1 "$roster")"
	doc "$course" "$tmp/grades.log" "cat build/submissions/grades.csv" &&
		[ "$(head -1 "$tmp/grades.log")" = "student_id,total" ] && grep -qx 'alice,100' "$tmp/grades.log" &&
		pass "grades.csv: student_id,total for an LMS (alice,100)" || fail "grades.csv: $(tr '\n' ' ' <"$tmp/grades.log")"
	usage_error "grade-submission without SUB= says so, exit 2" "$course" "needs SUB=" "make grade-submission"
	usage_error "grade-submission with a missing SUB says so, exit 2" "$course" "no such" "make grade-submission SUB=../nowhere.tar.gz"
	usage_error "grade-all without SUBS= says so, exit 2" "$course" "needs SUBS=" "make grade-all"
	usage_error "grade-all with SUBS= not a folder says so, exit 2" "$course" "not a folder" "make grade-all SUBS=../nowhere"
	usage_error "a bad LAB_TIMEOUT says so, exit 2" "$course" "LAB_TIMEOUT must be" "make grade-all SUBS=../submissions LAB_TIMEOUT=soon"
	usage_error "a bad KEEP says so, exit 2" "$course" "KEEP must be" "make grade-all SUBS=../submissions KEEP=worst"
}

# ---- uploads: archives, nesting, ambiguity, hostile archives ----------------

# make_uploads DIR: the shapes students upload.
make_uploads() {
	local u=$1 t="$tmp/up-tree"
	mkdir -p "$u" "$t"
	tar -xzf "$course/dist/yieldlab-handout.tar.gz" -C "$t"
	cp "$sol" "$t/yieldlab/$ex01_file"
	# the handout tarball, uploaded as it is, among other files
	mkdir -p "$u/tarball"
	tar -czf "$u/tarball/yieldlab-handout.tar.gz" -C "$t" yieldlab
	echo "my notes" >"$u/tarball/notes.txt"
	# a tree two folders down (a clone inside a course folder)
	mkdir -p "$u/deep/course/week3"
	cp -a "$t/yieldlab" "$u/deep/course/week3/"
	# a zip inside a zip
	(cd "$t" && python3 -m zipfile -c "$tmp/inner.zip" yieldlab/labs/ex01_round_robin &&
		mkdir -p "$u/zipzip" && cd "$tmp" && python3 -m zipfile -c "$u/zipzip/outer.zip" inner.zip)
	# the untouched handout beside the real file (suite copies never count)
	mkdir -p "$u/beside"
	cp "$course/dist/yieldlab-handout.tar.gz" "$sol" "$u/beside/"
	# two different copies of the student file
	mkdir -p "$u/twice/a" "$u/twice/b"
	cp "$sol" "$u/twice/a/round_robin.c"
	cp "$wrong" "$u/twice/b/round_robin.c"
	# a hostile tarball: a path that climbs out, an absolute path, a link,
	# a member over the size cap, and the reference beside them
	mkdir -p "$u/evil"
	python3 - "$u/evil/evil.tar.gz" "$sol" <<-'PY'
	import io, sys, tarfile
	out, sol = sys.argv[1], sys.argv[2]
	with tarfile.open(out, 'w:gz') as t:
	    def add(name, data, kind=tarfile.REGTYPE, link=''):
	        i = tarfile.TarInfo(name); i.type = kind; i.linkname = link; i.size = len(data)
	        t.addfile(i, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
	    add('../../../escaped.txt', b'out!')
	    add('/tmp/yieldlab-absolute-escape.txt', b'out!')
	    add('round_robin_link.c', b'', tarfile.SYMTYPE, '/etc/passwd')
	    add('huge.bin', b'\0' * (9 * 1024 * 1024))
	    add('labs/ex01_round_robin/round_robin.c', open(sol, 'rb').read())
	PY
}

upload_checks() {
	local u="$tmp/course/uploads" roster="$course/build/submissions/roster.csv" res
	[ -f "$course/dist/yieldlab-handout.tar.gz" ] || return
	make_uploads "$u"
	rm -f /tmp/yieldlab-absolute-escape.txt
	(cd "$course" && make -j2 grade-all SUBS=../uploads LAB=ex01) >"$tmp/uploads.log" 2>&1 ||
		fail "grade-all of the upload shapes exited non-zero: $(tail -3 "$tmp/uploads.log" | tr '\n' ' ')"
	for s in tarball deep zipzip beside; do
		[ "$(roster_field "$roster" $s ex01)" = 100 ] &&
			pass "upload '$s' is found and scores 100 (archive inside the submission / nested folders)" ||
			fail "upload '$s': $(grep "^$s," "$roster")"
	done
	res="$(sub_dir twice)/results.json"
	[ "$(roster_field "$roster" twice ex01)" = 0 ] && grep -q 'more than once, with different contents' "$res" &&
		grep -q 'a/round_robin.c' "$res" && grep -q 'b/round_robin.c' "$res" &&
		pass "two different copies of the student file: refused, and both named" ||
		fail "upload 'twice': $(grep '^twice,' "$roster")"
	res="$(sub_dir evil)"
	[ "$(roster_field "$roster" evil ex01)" = 100 ] && [ ! -e "$course/escaped.txt" ] &&
		[ ! -e "$course/build/escaped.txt" ] && [ ! -e /tmp/yieldlab-absolute-escape.txt ] &&
		! find "$tmp" -name escaped.txt | grep -q . &&
		grep -q 'escaped.txt: skipped, its path leaves' "$res/warnings.txt" &&
		grep -q 'round_robin_link.c: skipped, not a regular file' "$res/warnings.txt" &&
		grep -q 'huge.bin: skipped, over 8 MiB' "$res/warnings.txt" &&
		pass "a hostile archive: nothing written outside its folder, no link, the size cap holds, each skip said; its file graded" ||
		fail "upload 'evil': $(grep '^evil,' "$roster"); $(tr '\n' ' ' <"$res/warnings.txt" 2>/dev/null)"
}

# ---- hostile submissions ----------------------------------------------------

make_hostile() {
	local h="$tmp/course/hostile" z="$tmp/zip"
	mkdir -p "$h/carol" "$h/erin/labs/ex01_round_robin" "$h/frank/labs/ex01_round_robin" "$z" "$h/gina"
	# carol: the files alone; her ex02 is right, and her yield never
	# returns from its 50th call in a process on: two of ex01's tests
	# yield that often and hang (10 s, past SUB_TIMEOUT=4 below), the
	# others end at once.  She hangs asleep: the limits stop a sleeping
	# test as they stop a spinning one (the harness's selftest spins into
	# its limit), and carol is graded four times here, which spun 18 s of
	# the CPU the other jobs of make check need.
	sed '1i #include "clock.h"
		/^int rr_yield(struct rr_task \*task)$/{n;s/^{$/{\n\tstatic unsigned calls;\n\tif (++calls >= 50)\n\t\tfor (;;)\n\t\t\tclock_sleep_ns(1000000000);/}' \
		"$sol" >"$h/carol/round_robin.c"
	cp "$repo/solutions/ex02_lag_meter/lag_meter.c" "$h/carol/"
	# dave: a zip of the file alone; his yield writes through NULL.
	sed '/^int rr_yield(struct rr_task \*task)$/{n;s/^{$/{\n\t*(volatile int *)0 = 1;/}' "$sol" >"$z/round_robin.c"
	(cd "$z" && python3 -m zipfile -c "$h/dave.zip" round_robin.c)
	echo "I forgot the code" >"$h/erin/labs/ex01_round_robin/NOTES.txt"
	printf '#include "round_robin.h"\nint rr_yield(struct rr_task *t) { return t->no_such_field; }\n' \
		>"$h/frank/$ex01_file"
	# gina: right, but floods stdout and stderr with 50 MB from her yield.
	sed '/^int rr_yield(struct rr_task \*task)$/{n;s/^{$/{\n\tstatic int flooded;\n\tif (!flooded++) {\n\t\tstatic char line[1 << 20];\n\t\tmemset(line, 0x41, sizeof(line) - 1);\n\t\tfor (int i = 0; i < 25; i++) {\n\t\t\tfputs(line, stdout);\n\t\t\tfputs(line, stderr);\n\t\t}\n\t}/}' "$sol" |
		sed '0,/^#include </s//#include <stdio.h>\n#include <string.h>\n&/' >"$h/gina/round_robin.c"
	# hugo: a constructor floods 50 MB before any test runs (in the
	# grader's own process, whose output goes to grade.log).
	mkdir -p "$h/hugo"
	{
		cat "$sol"
		printf '%s\n' '#include <stdio.h>' '#include <string.h>' \
			'__attribute__((constructor)) static void flood(void)' '{' \
			'	static char line[1 << 20];' '	memset(line, 0x42, sizeof(line) - 1);' \
			'	for (int i = 0; i < 50; i++)' '		fputs(line, stdout);' '}'
	} >"$h/hugo/round_robin.c"
	echo "not a submission" >"$h/README.txt"
}

hostile_roster_checks() {
	local roster=$1 n size bound
	n=$(ex01_tests)
	[[ $(roster_field "$roster" carol status) == *hang* ]] &&
		[ "$(roster_field "$roster" carol ex02)" = 100 ] &&
		[ "$(json_get "$(sub_dir carol ex01+ex02)/results.json" "len([t for t in d['tests'] if t['name'].startswith('ex01')])")" = "$n" ] &&
		[ "$(json_get "$(sub_dir carol ex01+ex02)/results.json" "len([t for t in d['tests'] if t['name'].startswith('ex01') and t['tags'][0] == 'timeout'])")" -ge 1 ] &&
		pass "a lab whose tests hang: each is killed at its timeout, every test listed; the next lab still scores 100" ||
		fail "carol (hangs in ex01): $(grep carol "$roster")"
	[[ $(roster_field "$roster" dave status) == *crash* ]] &&
		pass "a crashing submission (a zip of the file alone) is graded, status crash" ||
		fail "dave (crashes): $(grep dave "$roster")"
	[ "$(roster_field "$roster" erin ex01)" = 0 ] && [[ $(roster_field "$roster" erin status) == missing* ]] &&
		grep -q 'round_robin.c is not in the submission' "$(sub_dir erin ex01+ex02)/results.json" &&
		grep -q 'NOTES.txt' "$(sub_dir erin ex01+ex02)/results.json" &&
		pass "a missing student file scores 0 with a note saying so and listing what was handed in" ||
		fail "erin (no file): $(grep erin "$roster")"
	[[ $(roster_field "$roster" frank status) == build-error* ]] &&
		grep -q 'did not build.*no_such_field' "$(sub_dir frank ex01+ex02)/results.json" &&
		pass "a file that does not compile scores 0 with the compiler's message" ||
		fail "frank (does not compile): $(grep frank "$roster")"
	size=$(du -sk "$course/build/submissions/gina" | cut -f1)
	# Each test's log is cut at 256 KiB (YIELDLAB_LOG_CAP), and each of ex01's
	# tests floods: the bound grows with the tests, plus 1 MiB for the rest.
	bound=$(($(ex01_tests) * 256 + 1024))
	[ "$(roster_field "$roster" gina ex01)" -gt 0 ] 2>/dev/null && [ "$size" -lt "$bound" ] &&
		pass "a 50 MB output flood leaves $size KiB of logs for the submission (capped; < $bound KiB)" ||
		fail "gina (floods): $(grep gina "$roster"), $size KiB of logs (bound $bound KiB)"
	size=$(du -sk "$course/build/submissions/hugo" | cut -f1)
	[ "$size" -lt 4096 ] && json_ok "$(sub_dir hugo ex01+ex02)/results.json" &&
		pass "a 50 MB flood from a constructor leaves $size KiB of logs (grade.log capped)" ||
		fail "hugo (constructor flood): $size KiB of logs"
	for s in carol dave erin frank gina hugo; do
		json_ok "$(sub_dir $s ex01+ex02)/results.json" || fail "$s: results.json is not valid JSON"
	done
}

hostile_checks() {
	local roster="$course/build/submissions/roster.csv" left res
	[ -f "$course/dist/yieldlab-handout.tar.gz" ] || return
	make_hostile
	(cd "$course" && make -j2 grade-all SUBS=../hostile LAB=ex01,ex02) >"$tmp/hostile.log" 2>&1 ||
		fail "grade-all of hostile submissions exited non-zero: $(tail -3 "$tmp/hostile.log" | tr '\n' ' ')"
	grep -q 'skipped README.txt' "$tmp/hostile.log" && pass "grade-all names and skips a file that is no submission" ||
		fail "grade-all did not report README.txt as skipped"
	hostile_roster_checks "$roster"
	left=$(carol_left)
	[ "$left" = 0 ] && pass "nothing of the hanging submission is left running" ||
		fail "$left processes of carol's grading are still running"
	# -j2: while carol hung, the others were graded beside her.
	[ "$(sub_dir frank ex01+ex02)/results.json" -ot "$(sub_dir carol ex01+ex02)/results.json" ] &&
		pass "grade-all -j2 grades submissions in parallel (frank finished while carol hung)" ||
		fail "grade-all -j2 did not run submissions in parallel"
	# A lab's own limit: ex01 cut at 4 s (less than one test's 5 s timeout,
	# and carol's ex01 has two tests that hang: it strikes whatever the
	# harness runs at once); the tests it finished keep their points; ex02
	# still graded.
	(cd "$course" && make grade-submission SUB=../hostile/carol LAB=ex01,ex02 LAB_TIMEOUT=ex01:4) >"$tmp/labto.log" 2>&1
	[[ $(awk -F'\t' '{ printf "%s:%s ", $4, $2 }' "$(sub_dir carol ex01+ex02)/summary.tsv") =~ ^timeout:[0-9]+\ graded:100\ $ ]] &&
		grep -q 'ex01 ran past its time limit of 4 s' "$(sub_dir carol ex01+ex02)/results.json" &&
		pass "LAB_TIMEOUT=ex01:4: the hanging lab is stopped at its own limit and says so; the next lab still scores 100" ||
		fail "LAB_TIMEOUT=ex01:4: $(tr '\t\n' ' ;' <"$(sub_dir carol ex01+ex02)/summary.tsv" 2>/dev/null)"
	# The whole-submission limit still holds, and says so.  It strikes in
	# the middle of a lab: that lab's session (one of its own) must end with
	# the submission, or its runner goes on grading and rewrites the lab's
	# results after the report (seen: 76/100 from tests run after the limit,
	# or 47/58 with the unreached tests gone).
	(cd "$course" && make grade-submission SUB=../hostile/carol LAB=ex01 SUB_TIMEOUT=4) >"$tmp/subto.log" 2>&1
	left=$(carol_left)
	res="$(sub_dir carol)/results.json"
	grep -q 'ran past its time limit of 4 s' "$res" && [[ $(cat "$(sub_dir carol)/status") == *timeout* ]] &&
		[ "$left" = 0 ] && [ "$(json_get "$res" "len(d['tests'])")" = "$(ex01_tests)" ] &&
		pass "SUB_TIMEOUT=4 stops a whole submission at 4 s, status timeout: nothing left running, every test listed" ||
		fail "SUB_TIMEOUT=4: status $(cat "$(sub_dir carol)/status" 2>/dev/null), $left processes left, $(json_get "$res" "len(d['tests'])" 2>/dev/null) tests listed"
	interrupt_checks
}

# carol_left: how many processes of carol's grading still run, once those
# just killed have had 2 s to go (a sandboxed test dies with its runner,
# a moment later); an orphaned lab runs on for its whole limit.
carol_left() {
	local n
	for _ in $(seq 20); do
		n=$(find /proc -mindepth 2 -maxdepth 2 -name cwd -lname "$course/build/submissions/carol*" \
			2>/dev/null | grep -c . || true)
		[ "$n" = 0 ] && break
		sleep 0.1
	done
	echo "$n"
}

# Ctrl-C while a lab is being graded: grade-submission stops and says so,
# and the lab's own session ends with it (a KILL of the submission's
# session alone left the hanging lab running for its whole limit).
interrupt_checks() {
	local RC left
	interrupt_when "$tmp/ctrl-c.log" '== ex01: grading' "$course" \
		make -s grade-submission SUB=../hostile/carol LAB=ex01
	left=$(carol_left)
	[ $RC -ne 0 ] && [ "$left" = 0 ] && grep -q 'interrupted: .*carol was not graded' "$tmp/ctrl-c.log" &&
		pass "Ctrl-C during grade-submission: it stops and says so, and the lab being graded is killed too" ||
		fail "Ctrl-C during grade-submission: exit $RC, $left processes left: $(tail -2 "$tmp/ctrl-c.log" | tr '\n' ' ')"
}

# ---- batch grading: lab by lab, warnings, the shared suite ------------------

make_batch() {   # make_batch DIR
	mkdir -p "$1/hal" "$1/ivy"
	# hal: ex01 right but with an unused variable; ex02 right.
	sed '/^int rr_yield(struct rr_task \*task)$/{n;s/^{$/{\n\tint unused_here = 0;/}' "$sol" >"$1/hal/round_robin.c"
	cp "$repo/solutions/ex02_lag_meter/lag_meter.c" "$1/hal/"
	cp "$wrong" "$1/ivy/round_robin.c"
}

batch_checks() {
	local b="$tmp/course/batch" roster="$course/build/submissions/roster.csv" res
	[ -f "$course/dist/yieldlab-handout.tar.gz" ] || return
	rm -rf "$course/build/submissions"
	make_batch "$b"
	(cd "$course" && make -j2 grade-all SUBS=../batch LAB=ex01 && make -j2 grade-all SUBS=../batch LAB=ex02) \
		>"$tmp/batch.log" 2>&1 || fail "grade-all lab by lab exited non-zero: $(tail -3 "$tmp/batch.log" | tr '\n' ' ')"
	[ "$(roster_field "$roster" hal ex01),$(roster_field "$roster" hal ex02),$(roster_field "$roster" hal total)" = "100,100,200" ] &&
		pass "grade-all LAB=ex01 then LAB=ex02: the roster keeps both labs (hal 100+100)" ||
		fail "lab by lab: $(tr '\n' ' ' <"$roster")"
	grep -q "unused variable.*unused_here" "$(sub_dir hal)/warnings.txt" 2>/dev/null &&
		pass "a warning in the student file is shown and costs nothing (hal's ex01: 100)" ||
		fail "hal's warning was not reported: $(cat "$(sub_dir hal)/warnings.txt" 2>/dev/null)"
	# Regrading ex01 with STUDENT_WERROR=1: hal's warning now fails his build;
	# KEEP=best keeps his earlier 100, latest (the default) the new 0.
	(cd "$course" && make grade-all SUBS=../batch LAB=ex01 STUDENT_WERROR=1 KEEP=best) >"$tmp/batch2.log" 2>&1
	[ "$(cat "$(sub_dir hal)/status")" = build-error ] && [ "$(roster_field "$roster" hal ex01)" = 100 ] &&
		pass "STUDENT_WERROR=1 fails a build on a warning; KEEP=best keeps the earlier 100" ||
		fail "STUDENT_WERROR=1/KEEP=best: hal $(cat "$(sub_dir hal)/status" 2>/dev/null), roster $(grep '^hal,' "$roster")"
	(cd "$course" && python3 common/workflow/roster.py build/submissions latest)
	[ "$(roster_field "$roster" hal ex01)" = 0 ] &&
		pass "KEEP=latest (the default) keeps the newest result of a lab" ||
		fail "KEEP=latest: $(grep '^hal,' "$roster")"
	shared_suite_checks
}

# A submission that rewrote the shared template must not change another's
# grade: its copy no longer matches the digest, so it gets a fresh suite.
shared_suite_checks() {
	local t="$tmp/tpl" work="$tmp/tpl-work" digest
	bash "$repo/common/workflow/suite.sh" "$course" "$t" ex01 >"$tmp/tpl.log" 2>&1 || { fail "suite.sh: $(tail -2 "$tmp/tpl.log")"; return; }
	digest=$(wf_tree_digest "$t")
	# what a hostile submission would do: a grader that passes everything
	sed -i 's|^#include "trace.h"$|&\n#undef GRADE_EXPECT_STR\n#define GRADE_EXPECT_STR(got, want) ((void)(got), (void)(want))|' \
		"$t/labs/ex01_round_robin/grade.c"
	rm -f "$t/build/grader/ex01"
	YIELDLAB_LAB=ex01 bash "$repo/common/workflow/submissions.sh" one --template "$t" --digest "$digest" \
		--source "$course" --sub "$tmp/course/batch/ivy" --work "$work" --quiet >"$tmp/tpl-grade.log" 2>&1
	[ "$(json_get "$work/results.json" "d['score']")" = "$(roster_field "$tmp/roster-good.csv" bob ex01)" ] &&
		grep -q 'shared suite had changed' "$work/grade.log" &&
		pass "grade-all: a copy of a tampered shared suite is detected and replaced (ivy keeps her $(roster_field "$tmp/roster-good.csv" bob ex01)/100)" ||
		fail "tampered template: ivy scored $(json_get "$work/results.json" "d['score']" 2>/dev/null); $(tail -2 "$tmp/tpl-grade.log")"
	[ -z "$(find "$course/build/submissions" -maxdepth 1 -name '.suite-*')" ] &&
		pass "grade-all removes its read-only shared template when done" ||
		fail "grade-all left its template in build/submissions"
}

# ---- Gradescope ---------------------------------------------------------------

zip_checks() {
	local zip="$course/dist/yieldlab-autograder.zip"
	python3 - "$zip" <<-'PY' >"$tmp/zip.log" 2>&1
	import sys, zipfile
	z = zipfile.ZipFile(sys.argv[1])
	names = set(z.namelist())
	for top in ("setup.sh", "run_autograder", "finish.py", "autograder.conf", "yieldlab/Makefile"):
	    assert top in names, top + " is not in the zip"
	    if top in ("setup.sh", "run_autograder"):
	        assert (z.getinfo(top).external_attr >> 16) & 0o111, top + " is not executable"
	assert not any(n.startswith("yieldlab/solutions") for n in names), "solutions/ is in the zip"
	conf = z.read("autograder.conf").decode()
	assert "LAB=ex01" in conf, "autograder.conf does not name ex01"
	assert "VISIBILITY=after_due_date" in conf, "autograder.conf lacks VISIBILITY=after_due_date"
	PY
	[ $? -eq 0 ] && pass "the autograder zip: setup.sh, run_autograder (executable), finish.py, autograder.conf on top, no solutions/" ||
		fail "the autograder zip: $(tail -1 "$tmp/zip.log")"
}

# run_autograder_on DIR [CONF_LINES]: grades the submission DIR in a fresh
# simulated /autograder (CONF_LINES appended to autograder.conf); prints
# the root.
run_autograder_on() {
	local ag
	ag="$tmp/ag-$(basename "$1")"
	rm -rf "$ag" && mkdir -p "$ag/source" "$ag/results"
	cp -a "$1" "$ag/submission"
	(cd "$ag/source" && python3 -m zipfile -e "$course/dist/yieldlab-autograder.zip" .)
	[ -n "${2:-}" ] && printf '%s\n' "$2" >>"$ag/source/autograder.conf"
	YIELDLAB_AUTOGRADER_ROOT="$ag" bash "$ag/source/setup.sh" >"$ag/setup.log" 2>&1 &&
		YIELDLAB_AUTOGRADER_ROOT="$ag" bash "$ag/source/run_autograder" >"$ag/run.log" 2>&1
	echo "$ag"
}

# A VISIBILITY key that names a test the suite does not have is refused,
# as setup.sh refuses it (a typo would leave a test visible).
visibility_name_checks() {
	local names="$tmp/tests.txt" conf="$tmp/visibility.conf"
	"$repo/$B/grader/ex01" --list | awk '{ print "ex01_round_robin", $1 }' >"$names"
	printf 'VISIBILITY.ex01.%s=hidden\n' "$(awk 'NR == 1 { print $2 }' "$names")" >"$conf"
	python3 "$repo/common/gradescope/finish.py" --check "$conf" "$names" >"$tmp/vis.log" 2>&1 &&
		printf 'VISIBILITY.ex01.chaty_step=hidden\n' >"$conf" &&
		! python3 "$repo/common/gradescope/finish.py" --check "$conf" "$names" >"$tmp/vis.log" 2>&1 &&
		grep -q 'has no test chaty_step' "$tmp/vis.log" &&
		pass "autograder.conf: a VISIBILITY key naming a real test is accepted, a misspelt one refused with its name" ||
		fail "VISIBILITY names: $(cat "$tmp/vis.log")"
}

gradescope_checks() {
	local ag res roster="$tmp/roster-good.csv" up="$tmp/course/uploads"
	[ -f "$course/dist/yieldlab-handout.tar.gz" ] || return
	# The submissions of the other parts, made afresh; bob's score as
	# grade-submission gives it, for run_autograder to match.
	make_submissions
	make_uploads "$up"
	make_batch "$tmp/course/batch"
	(cd "$course" && make grade-submission SUB=../submissions/bob LAB=ex01) >"$tmp/bob.log" 2>&1
	printf 'submission,ex01\nbob,%s\n' "$(json_get "$(sub_dir bob)/results.json" "d['score']")" >"$roster"
	visibility_name_checks
	doc "$course" "$tmp/ag.log" "make autograder LAB=ex01 VISIBILITY=after_due_date" || { fail "make autograder LAB=ex01"; return; }
	zip_checks
	doc "$course" "$tmp/sim.log" "bash common/gradescope/simulate.sh dist/yieldlab-autograder.zip ../submissions/alice.tar.gz" &&
		[ "$(json_get "$course/build/gradescope-sim/results/results.json" "d['score']")" = 100 ] &&
		grep -q '^score: 100 ' "$tmp/sim.log" && [ -d "$course/build/gradescope-sim/source/yieldlab" ] &&
		pass "simulate.sh: the README's local Gradescope run grades alice's uploaded tarball 100" ||
		fail "simulate.sh: $(tail -3 "$tmp/sim.log" | tr '\n' ' ')"
	ag=$(run_autograder_on "$tmp/course/submissions/bob" \
		"$(printf 'VISIBILITY.ex01.two_tasks_alternate_strictly=hidden\nOUTPUT=Graded by yieldlab')")
	res="$ag/results/results.json"
	json_ok "$res" && [ "$(json_get "$res" "d['score']")" = "$(roster_field "$roster" bob ex01)" ] &&
		[ "$(json_get "$res" "len(d['tests'])")" = "$(ex01_tests)" ] &&
		pass "run_autograder in a simulated /autograder: bob scores as in grade-all" ||
		fail "run_autograder on bob: $(tail -n 3 "$ag/setup.log" "$ag/run.log" | tr '\n' ' ')"
	[ "$(json_get "$res" "[t['visibility'] for t in d['tests'] if t['name'].endswith('/two_tasks_alternate_strictly')][0]")" = hidden ] &&
		[ "$(json_get "$res" "sorted({t['visibility'] for t in d['tests'] if not t['name'].endswith('/two_tasks_alternate_strictly')})")" = "['after_due_date']" ] &&
		[ "$(json_get "$res" "d['stdout_visibility']")" = hidden ] &&
		pass "autograder.conf visibility: per test (hidden) over per assignment (after_due_date); stdout hidden" ||
		fail "visibility: $(json_get "$res" "[(t['name'], t.get('visibility')) for t in d['tests']]")"
	json_get "$res" "d['output']" | grep -q '^Graded by yieldlab' &&
		json_get "$res" "d['output']" | grep -Eq "^ex01_round_robin +$(roster_field "$roster" bob ex01)/100" &&
		[ "$(json_get "$res" "d['output_format']")" = text ] &&
		pass "the top-level output: the instructor's line, then each lab's score" ||
		fail "top-level output: $(json_get "$res" "d.get('output')" | head -3 | tr '\n' ' ')"
	# The handout tarball uploaded as it is, nested in the submission folder.
	ag=$(run_autograder_on "$up/tarball" "STUDENT_WERROR=1")
	res="$ag/results/results.json"
	[ "$(json_get "$res" "d['score']")" = 100 ] &&
		pass "run_autograder: the handout tarball uploaded as it is scores 100" ||
		fail "run_autograder on an uploaded tarball: $(tail -3 "$ag/run.log" | tr '\n' ' ')"
	ag=$(run_autograder_on "$tmp/course/batch/hal" "STUDENT_WERROR=1")
	res="$ag/results/results.json"
	[ "$(json_get "$res" "d['score']")" = 0 ] && grep -q 'unused_here' "$res" &&
		pass "run_autograder: STUDENT_WERROR=1 in autograder.conf fails a build on a warning, and says which" ||
		fail "run_autograder with STUDENT_WERROR=1: $(json_get "$res" "d['score']")"
	mkdir -p "$tmp/empty"
	ag=$(run_autograder_on "$tmp/empty" "VISIBILITY=sometimes")
	res="$ag/results/results.json"
	[ ! -s "$res" ] && grep -q 'VISIBILITY=sometimes: must be one of' "$ag/setup.log" &&
		pass "setup.sh refuses an autograder.conf with a bad setting, naming it" ||
		fail "a bad VISIBILITY was not refused: $(tail -2 "$ag/setup.log" | tr '\n' ' ')"
	ag=$(run_autograder_on "$tmp/empty")
	res="$ag/results/results.json"
	json_ok "$res" && [ "$(json_get "$res" "d['score']")" = 0 ] && grep -q 'not in the submission' "$res" &&
		pass "run_autograder on an empty submission: 0, and says the file is missing" ||
		fail "run_autograder on an empty submission: $(tail -3 "$ag/run.log" | tr '\n' ' ')"
	doc "$course" "$tmp/ags.log" "make autograders" &&
		[ "$(ls "$course"/dist/yieldlab-autograder-ex*.zip | wc -l)" = "$(labs_of "$repo" | wc -l)" ] &&
		python3 -c 'import sys,zipfile; assert "LAB=ex02" in zipfile.ZipFile(sys.argv[1]).read("autograder.conf").decode()' \
			"$course/dist/yieldlab-autograder-ex02.zip" &&
		pass "make autograders: one zip per lab, each naming its lab" ||
		fail "make autograders: $(ls "$course/dist" | tr '\n' ' ')"
}

# ---- the guides cannot drift from the code ----------------------------------

guide_checks() {
	local cmd n=0 bad=0 g
	# Every guide a reader is sent to from the front page.
	local guides=("$repo/README.md")
	for g in labs/README.md solutions/README.md solutions/wrong/README.md data/README.md \
		common/gradescope/README.md common/grade/README.md common/mutants/README.md \
		common/tests/README.md \
		common/DESIGN.md common/CONTRIBUTING.md common/saveserver/README.md; do
		[ -f "$repo/$g" ] && guides+=("$repo/$g")
	done
	# What every part ran: the parts' scratch folders are siblings of this
	# one under make check (TMP/workflow-<part>), or this one when run alone.
	cat "$ran" "$tmp"/../workflow-*/ran.txt 2>/dev/null | sort -u >"$tmp/all-ran.txt"
	while IFS= read -r cmd; do
		n=$((n + 1))
		[ "$cmd" = "make check" ] && continue   # running now
		if ! grep -qxF -- "$cmd" "$tmp/all-ran.txt"; then
			fail "a guide (${guides[*]#"$repo/"}) shows '$cmd', which make check does not run"
			bad=1
		fi
	done < <(awk '/^[ \t]*```/ { inside = ($0 ~ /^[ \t]*```sh$/); next }
		inside { sub(/^[ \t]+/, ""); sub(/[ \t]+#.*$/, ""); if ($0 != "") print }' \
		"${guides[@]}")
	[ "$n" -gt 0 ] || { fail "the guides show no command (no \`\`\`sh block)"; return; }
	[ $bad = 0 ] && pass "every command the guides show ($n, in ${#guides[@]} files) was run above"
}

run_part() {
	case $1 in
	handout) handout_checks; instructor_checks ;;
	student) course_setup && student_checks ;;
	tools) course_setup && student_tool_checks ;;
	submissions) course_setup && { submission_checks; upload_checks; batch_checks; } ;;
	hostile) course_setup && hostile_checks ;;
	gradescope) course_setup && gradescope_checks ;;
	guides) guide_checks ;;
	*)
		echo "workflow.sh: no part '$1' (parts: $(sed -n 's/^# Parts: //p' "$0"))" >&2
		exit 2 ;;
	esac
}

SECONDS=0
parts=("$@")
[ $# -gt 0 ] || read -ra parts <<<"$(sed -n 's/^# Parts: //p' "$0")"
for part in "${parts[@]}"; do
	run_part "$part"
done
echo "workflow ${parts[*]}: $SECONDS s"
