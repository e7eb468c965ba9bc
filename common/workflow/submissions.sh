#!/usr/bin/env bash
# make grade-submission SUB=PATH   grades one student's work
# make grade-all SUBS=DIR          grades every submission in DIR (-j: in
#                                  parallel) and writes roster.csv
# Gradescope's run_autograder      grades its one submission
#
#   submissions.sh one|all OUT_BASE     (run from the top of the suite)
#   submissions.sh one --template DIR --sub PATH --work DIR
#                      [--digest SHA256 --source SUITE] [--limit SECONDS] [--quiet]
#
# Two levels: this script (settings, the shared suite via suite.sh, the job
# pool, and each submission's grading outside its session: unpacking,
# limits, filling in labs that got no result, the results files), and
# grade_labs.sh, the only code run inside a submission's session.
#
# Input from the environment (set by workflow.mk): YIELDLAB_SUB or YIELDLAB_SUBS,
# YIELDLAB_LAB (the labs, as LAB=), YIELDLAB_LIMIT (seconds per submission,
# SUB_TIMEOUT), YIELDLAB_KEEP (latest or best: which result of a lab the roster
# keeps), and the grading settings (YIELDLAB_LAB_TIMEOUT, YIELDLAB_BUILD_TIMEOUT,
# YIELDLAB_STUDENT_WERROR, YIELDLAB_WERROR, YIELDLAB_LOG_CAP).  Each submission is graded in
# OUT_BASE/<name>/<labs>/ (<labs>: ex01, ex01+ex02, or all; an earlier
# run of the same labs is kept beside it as <labs>@<time>) against its own
# copy of a pristine suite built once per run from this suite's own files;
# the template is read-only, and each copy is checked against the
# template's digest taken before any submission ran (a mismatch: that
# submission gets a suite rebuilt from this one).  roster.csv merges every
# lab graded so far, and grades.csv is the total per student for an LMS.
# With --template (Gradescope, or a check): one submission PATH (a tree, an
# archive, or a folder of such) graded in WORK from the suite TEMPLATE built
# by suite.sh.  Exit: 0 every submission
# got its results.json, whatever its score or status (a hang is reported,
# not an error of ours); 1 the suite does not build or grading itself
# failed; 2 bad arguments.
# set -u only: a submission that cannot be graded is reported and the next
# one is graded; the roster is written at the end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

mode=${1:-} base=${2:-}
template='' digest='' source='' sub='' work='' loud=loud own=''
lab=${YIELDLAB_LAB:-} limit=${YIELDLAB_LIMIT:-} keep=${YIELDLAB_KEEP:-latest}
jobs=$(wf_jobs)
tag=${lab:-all}
tag=${tag//,/+}

usage() {
	echo "yieldlab: $1" >&2
	cat >&2 <<-'EOF'
	usage: make grade-submission SUB=PATH [LAB=exNN] [SUB_TIMEOUT=SECONDS]
	       make [-jN] grade-all SUBS=DIR [LAB=exNN] [SUB_TIMEOUT=SECONDS]
	       submissions.sh one --template DIR --sub PATH --work DIR
	                [--digest SHA256 --source SUITE] [--limit SECONDS] [--quiet]
	  PATH  a student's tree, a .tar.gz/.tgz/.tar/.zip of it, or a folder
	        holding just the student files
	  DIR   a folder of such submissions, one entry per student
	EOF
	exit 2
}

# parse_one_args ARGS...: the --template form of mode one.
parse_one_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--template) template=${2:-}; shift 2 || usage "--template needs a value" ;;
		--sub) sub=${2:-}; shift 2 || usage "--sub needs a value" ;;
		--work) work=${2:-}; shift 2 || usage "--work needs a value" ;;
		--limit) limit=${2:-}; shift 2 || usage "--limit needs a value" ;;
		--digest) digest=${2:-}; shift 2 || usage "--digest needs a value" ;;
		--source) source=${2:-}; shift 2 || usage "--source needs a value" ;;
		--quiet) loud=quiet; shift ;;
		*) usage "unknown argument '$1'" ;;
		esac
	done
	[ -n "$template" ] && [ -n "$sub" ] && [ -n "$work" ] || usage "--template, --sub and --work are required"
	[ -d "$template/build/workflow/lists" ] || usage "'$template' is not a suite built by suite.sh"
	[ -e "$sub" ] || usage "no submission at '$sub'"
}

[[ $mode == one && $base == --* ]] && { parse_one_args "${@:2}"; mode=template base=; }
[ -n "$base" ] || [ "$mode" = template ] || usage "submissions.sh needs a mode and an output folder"
[ -z "$limit" ] || [[ $limit =~ ^[1-9][0-9]*$ ]] ||
	usage "SUB_TIMEOUT must be whole seconds, not '$limit'"
wf_check_lab_timeout "${YIELDLAB_LAB_TIMEOUT:-}" ||
	usage "LAB_TIMEOUT must be seconds, or exNN:seconds items, comma-separated, not '${YIELDLAB_LAB_TIMEOUT:-}'"
case $keep in latest | best) ;; *) usage "KEEP must be latest or best, not '$keep'" ;; esac
case ${YIELDLAB_STUDENT_WERROR:-0} in 0 | 1) ;; *) usage "STUDENT_WERROR must be 0 or 1" ;; esac
export YIELDLAB_LAB_TIMEOUT YIELDLAB_STUDENT_WERROR YIELDLAB_WERROR

# sub_name PATH: the submission's name: its file name without the archive
# extension.
sub_name() {
	local name
	name=$(basename "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
	[ "$name" = . ] && name=$(basename "$(cd "$1" && pwd)")
	name=${name%.tar.gz}; name=${name%.tgz}; name=${name%.tar.xz}
	name=${name%.tar.bz2}; name=${name%.tar}; name=${name%.zip}
	printf '%s\n' "$name"
}

is_submission() {
	[ -d "$1" ] && return 0
	case $1 in *.tar | *.tar.gz | *.tgz | *.tar.xz | *.tar.bz2 | *.zip) [ -f "$1" ] ;; *) return 1 ;; esac
}

# The shared template this run builds (own), removed when the run ends.
cleanup() {
	[ -n "$own" ] || return 0
	chmod -R u+w "$own" 2>/dev/null
	rm -rf "$own"
}
trap cleanup EXIT

# keep_previous WORK: an earlier run of the same labs moves aside to
# WORK@<when it was graded>, so KEEP=best can still choose it.
keep_previous() {
	[ -f "$1/summary.tsv" ] || { rm -rf "$1"; return 0; }
	mv "$1" "$1@$(date -r "$1/summary.tsv" +%Y%m%dT%H%M%S.%N)"
}

build_template() {
	echo "building the pristine suite${lab:+ for $lab} ..."
	mkdir -p "$base" || wf_die 1 "cannot create $base"
	own="$base/.suite-$$" template=$own source=.
	bash "$here/suite.sh" . "$template" "$lab" || exit 1
	chmod -R a-w "$template"
	digest=$(wf_tree_digest "$template")
}

# grade NAME PATH: one submission, quietly; prints its one-line result.
grade() {
	local name=$1 total child
	sub=$2 work="$base/$1/$tag" loud=quiet
	mkdir -p "$base/$1"
	keep_previous "$work"
	grade_submission >/dev/null 2>"$base/.$name.err" &
	child=$!
	# The pool stops us with TERM; pass it on, so the grading ends its session.
	trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143' TERM
	wait "$child"
	trap - TERM
	total=$(awk -F'\t' '{ s += $2; m += $3 } END { printf "%d/%d", s, m }' "$work/summary.tsv" 2>/dev/null)
	printf '  %-28s %9s  %s\n' "$name" "${total:-?}" "$(cat "$work/status" 2>/dev/null || echo error)"
	[ -s "$base/.$name.err" ] && sed 's/^/      /' "$base/.$name.err"
	rm -f "$base/.$name.err"
}

# ---- one submission, outside its session (level A) ----------------------------
# grade_submission (below) grades one submission in its own folder WORK from
# a copy of the pristine suite TEMPLATE; grade_labs.sh (level B) is the only
# code that runs inside the submission's session.  Leaves in WORK:
# results.json (Gradescope's format, every test of every selected lab),
# grade/ (per-lab fragments and each test's log, each cut to YIELDLAB_LOG_CAP
# bytes), grade.log, summary.tsv (lab score max state), warnings.txt (the
# compiler's warnings on the student files) and status.  Each lab runs under
# its own limit (see grade_labs.sh), all of it under an overall one (default:
# the labs' limits added up, plus a minute) in its own session, and whatever
# it leaves running is killed.  While it runs, WORK also holds suite/ (the
# copy), unpacked/ (the archives' files) and state/<lab> (level B's outcome
# of each lab: the fragments cannot tell a missing file from a build error,
# since grade-note's statuses are the harness's); all three are removed.
# Its globals: template digest source sub work limit loud, and meta out
# labs roots unpacked sid rc flags it sets; it runs in a subshell, so none
# of them leaks into the pool.

# default_limit: the labs' own limits (grade_labs.sh) added up, plus a
# minute to unpack, copy and report.
default_limit() {
	local l sum=60
	while read -r l _; do
		sum=$((sum + $(wf_lab_limit "$meta/lists/$l.list" "${l%%_*}")))
	done <<<"$labs"
	echo "$sum"
}

# find_archives DIR: up to 20 archives inside a submitted folder, NUL-separated.
find_archives() {
	find "$1" -maxdepth 4 \( -name __MACOSX -o -name .git \) -prune -o \
		-type f \( -iname '*.tar' -o -iname '*.tar.gz' -o -iname '*.tgz' -o -iname '*.tar.xz' \
		-o -iname '*.tar.bz2' -o -iname '*.zip' \) -print0 | sort -z | head -z -n 20
}

# unpack: sets roots, the folders to search for student files: the
# submission's folder, and WORK/unpacked/<archive>.d/ for the archive it is
# or each archive it holds (unpack.py: no path leaves its folder, no links,
# size caps).  What was skipped goes to unpacked (text).
unpack() {
	local dest="$work/unpacked" archives=() said
	unpacked='' roots=()
	if [ -d "$sub" ]; then
		roots=("$sub")
		mapfile -d '' archives < <(find_archives "$sub")
		[ ${#archives[@]} -gt 0 ] || return 0
	else
		case $sub in
		*.tar | *.tar.gz | *.tgz | *.tar.xz | *.tar.bz2 | *.zip) archives=("$sub") ;;
		*)
			unpacked="not a folder, nor a .tar, .tar.gz, .tgz or .zip archive"
			return 1 ;;
		esac
	fi
	roots+=("$dest")
	command -v python3 >/dev/null 2>&1 || {
		unpacked="python3 is needed to unpack archives, and it is missing"
		return 1
	}
	said=$(python3 "$here/unpack.py" "$dest" "${archives[@]}" 2>&1) && { unpacked=$said; return 0; }
	unpacked=$said
	# An archive inside a folder that cannot be read is reported, not fatal.
	[ -d "$sub" ]
}

# sweep_session: kills what the submission left running: everything in its
# session (by session id, never by name).  TERM first: grade_labs.sh then
# ends the session of the lab it is grading (a session of its own, which a
# KILL of this one would leave running: Ctrl-C left a hanging lab's tests
# running for up to its whole limit).  Only live processes count: the
# session's zombies are dead already, and where PID 1 is slow to reap the
# orphaned ones (a container's init; here, once a second) waiting for them
# cost every submission 1.2 s.
# (A procps without -r, older than 3.3.16, counts every state, as before.)
live=(-r R,S,D,T,t)
pgrep "${live[@]}" -s 0 >/dev/null 2>&1
[ $? -le 1 ] || live=()
sweep_session() {
	local tries=0
	[[ $sid =~ ^[0-9]+$ ]] || return 0
	[ "$sid" != "$(ps -o sid= -p $BASHPID | tr -d ' ')" ] || return 0
	pkill "${live[@]}" -TERM -s "$sid" 2>/dev/null && sleep 0.2
	while pgrep "${live[@]}" -s "$sid" >/dev/null 2>&1 && [ $tries -lt 50 ]; do
		pkill "${live[@]}" -KILL -s "$sid" 2>/dev/null
		sleep 0.1
		tries=$((tries + 1))
	done
}

# run_limited: grade_labs.sh in a session of its own, under the limit; rc
# is its exit status (124 or 137: the limit struck), sid the session's id:
# the pid of the background job that calls setsid (a job of a shell without
# job control is never a process group leader, so setsid makes the session
# in that very process).  Waiting in the background lets an interrupt end
# the whole session at once.
run_limited() {
	setsid --wait timeout --kill-after=10 "$limit" bash "$here/grade_labs.sh" \
		"$work" "$loud" "$(head -c 1500 <<<"$unpacked")" "${roots[@]}" </dev/null &
	sid=$!
	trap 'sweep_session; wf_die 130 "interrupted: $sub was not graded"' INT TERM
	wait "$sid"
	rc=$?
	trap - INT TERM
}

# complete LAB STATUS TEXT: the lab's tests that have no result get one.
complete() {
	printf '%s\n' "$3" | "$work/suite/build/bin/grade-note" --out "$out" --lab "$1" \
		--list "$meta/lists/$1.list" --status "$2" --note-file /dev/stdin
}

# harness_flags: tests the harness saw crash or run past their timeout,
# before any note.
harness_flags() {
	local l
	while read -r l _; do
		wf_frag_tags "$out/labs/$l.frag"
	done <<<"$labs" | sort -u | sed -n 's/^crash$/crash/p; s/^timeout$/hang/p'
}

# copy_suite: WORK/suite, a copy of the template that is what the template
# was before any submission ran (else rebuilt from SOURCE), writable only in
# build/ and the student files.
copy_suite() {
	local l file
	rm -rf "$work" && mkdir -p "$work/state" || wf_die 1 "cannot create $work"
	: >"$work/grade.log"
	: >"$work/warnings.txt"
	cp -a "$template" "$work/suite" || wf_die 1 "cannot copy the suite into $work"
	if [ -n "$digest" ] && [ "$(wf_tree_digest "$work/suite")" != "$digest" ]; then
		echo "the shared suite had changed since it was built; grading with a suite rebuilt from $source" |
			tee -a "$work/grade.log" >&2
		chmod -R u+w "$work/suite" && rm -rf "$work/suite"
		[ -n "$source" ] && bash "$here/suite.sh" "$source" "$work/suite" "${YIELDLAB_LAB:-}" >>"$work/grade.log" 2>&1 ||
			wf_die 1 "the shared suite was changed and could not be rebuilt"
	fi
	labs=$(wf_suite_labs "$work/suite") && [ -n "$labs" ] || wf_die 1 "the suite in $work/suite lists no lab"
	# Read-only, so the code it grades cannot rewrite it by mistake (as
	# root, or by chmod, it still could: the digest check protects the
	# other submissions).
	chmod -R a-w "$work/suite" && chmod -R u+w "$work/suite/build" || wf_die 1 "cannot set up $work/suite"
	while read -r l file; do
		chmod u+w "$work/suite/labs/$l/$file"
	done <<<"$labs"
	mkdir -p "$out"
}

# grade_or_complete: unpacks and grades the labs; every lab that got no
# state (unpacking failed, the overall limit struck, the grading stopped)
# is completed here.  Adds to flags.
grade_or_complete() {
	local l why=''
	if ! unpack; then
		flags+=(error) rc=unpack
		why="the submission could not be unpacked: $(head -c 2000 <<<"$unpacked")"
	else
		run_limited
		sweep_session
		mapfile -t -O "${#flags[@]}" flags < <(harness_flags)
	fi
	case $rc in 124 | 137) flags+=(timeout) ;; esac
	while read -r l _; do
		[ -s "$work/state/$l" ] && continue
		case $rc in
		unpack) complete "$l" error "$why"; echo error >"$work/state/$l" ;;
		124 | 137)
			complete "$l" timeout "not graded: the submission ran past its time limit of $limit s"
			echo timeout >"$work/state/$l" ;;
		*)
			complete "$l" error "not graded: the grading stopped (exit $rc; see grade.log)"
			echo error >"$work/state/$l"; flags+=(error) ;;
		esac
	done <<<"$labs"
}

# write_summary: WORK/summary.tsv (lab score max state) and WORK/status
# (the flags seen, worst first; ok when none), both from the signed
# fragments and the labs' states.
write_summary() {
	local l state f score max status=
	while read -r l _; do
		state=$(cat "$work/state/$l")
		read -r score max <<<"$(wf_frag_field "$out/labs/$l.frag" 2,3)"
		printf '%s\t%s\t%s\t%s\n' "$l" "${score:-}" "${max:-}" "$state"
		case $state in missing | build-error | timeout) flags+=("$state") ;; esac
	done <<<"$labs" >"$work/summary.tsv"
	for f in error timeout build-error missing crash hang; do
		[[ " ${flags[*]:-} " == *" $f "* ]] && status+=${status:++}$f
	done
	echo "${status:-ok}" >"$work/status"
}

# cap_logs: logs are cut to a sane size (the harness caps what a test
# prints; this also covers whatever else a flood reached).
cap_logs() {
	local cap=${YIELDLAB_LOG_CAP:-262144} f
	find "$work/grade" -type f -name '*.log' -size +"$cap"c -print0 2>/dev/null |
		while IFS= read -r -d '' f; do
			truncate -s "$cap" "$f" && printf '\n[... cut at %s bytes]\n' "$cap" >>"$f"
		done
}

# finish: results.json, grade/, warnings.txt; the suite and every side file
# are removed.
finish() {
	"$work/suite/build/bin/grade-report" --out "$out" >/dev/null 2>&1
	mv "$out" "$work/grade" && cp "$work/grade/results.json" "$work/results.json"
	cap_logs
	[ -n "$unpacked" ] && { echo "unpacking:"; sed 's/^/  /' <<<"$unpacked"; } >>"$work/warnings.txt"
	chmod -R u+w "$work/suite" 2>/dev/null
	rm -rf "$work/suite" "$work/unpacked" "$work/state" "$work"/*.make.log
	[ -s "$work/results.json" ] || wf_die 1 "no results.json was written for $sub"
}

# grade_submission: one submission, from the globals template digest source
# sub work limit loud (see above).  Exit 0 when results.json was written,
# else 1; in a subshell, so wf_die ends only this submission.
grade_submission() (
	local roots=() flags=() rc=0 sid='' unpacked='' labs
	meta="$work/suite/build/workflow"
	out="$work/suite/build/grade"
	copy_suite
	[ -n "$limit" ] || limit=$(default_limit)
	grade_or_complete
	write_summary
	finish
)

csv_field() {
	case $1 in
	*[,\"]*) printf '"%s"' "${1//\"/\"\"}" ;;
	*) printf '%s' "$1" ;;
	esac
}

# write_roster: OUT_BASE/roster.csv, one row per submission graded so far
# (this run or an earlier one), one column per lab ever graded; and
# OUT_BASE/grades.csv (student id, total) for an LMS.
write_roster() {
	python3 "$here/roster.py" "$base" "$keep" || wf_die 1 "could not write the roster in $base"
	echo "roster: $base/roster.csv (each lab: its $keep result); for an LMS: $base/grades.csv"
}

grade_one() {
	local sub=${YIELDLAB_SUB:-} name status
	[ -n "$sub" ] || usage "make grade-submission needs SUB=PATH"
	[ -e "$sub" ] || usage "SUB=$sub: no such file or folder"
	is_submission "$sub" || usage "SUB=$sub is neither a folder nor a .tar.gz/.tgz/.tar/.zip archive"
	name=$(sub_name "$sub")
	build_template
	mkdir -p "$base/$name"
	work="$base/$name/$tag"
	keep_previous "$work"
	grade_submission || exit 1
	echo
	echo "submission $name:"
	awk -F'\t' '{ printf "  %-24s %3s/%-3s  %s\n", $1, $2, $3, $4 }' "$base/$name/$tag/summary.tsv"
	sed 's/^/  /' "$base/$name/$tag/warnings.txt" 2>/dev/null
	status=$(cat "$base/$name/$tag/status")
	echo "status: $status"
	echo "results: $base/$name/$tag/results.json (log: $base/$name/$tag/grade.log)"
	exit 0
}

# list_subs DIR: the submissions in DIR, sorted; other entries are named
# on stderr and skipped.
list_subs() {
	local entry
	for entry in "$1"/*; do
		[ -e "$entry" ] || continue
		if is_submission "$entry"; then
			printf '%s\n' "$entry"
		else
			echo "grade-all: skipped $(basename "$entry"): not a folder or an archive" >&2
		fi
	done
}

grade_all() {
	local dir=${YIELDLAB_SUBS:-} path name names=() pids=() paths=() bad=0
	[ -n "$dir" ] || usage "make grade-all needs SUBS=DIR"
	[ -d "$dir" ] || usage "SUBS=$dir is not a folder"
	mapfile -t paths < <(list_subs "$dir")
	[ ${#paths[@]} -gt 0 ] || usage "SUBS=$dir holds no submission (folders or archives)"
	build_template
	echo "grading ${#paths[@]} submissions, $jobs at a time, into $base/"
	trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait; cleanup; exit 130' INT TERM
	for path in "${paths[@]}"; do
		name=$(sub_name "$path")
		# alice/ and alice.tar.gz: the second keeps its full file name
		[[ " ${names[*]:-} " == *" $name "* ]] && name=$(basename "$path")
		names+=("$name")
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		grade "$name" "$path" &
		pids+=($!)
	done
	wait
	trap - INT TERM
	write_roster
	for name in "${names[@]}"; do
		[ -s "$base/$name/$tag/results.json" ] || bad=1
	done
	return $bad
}

case $mode in
one) grade_one ;;
template) grade_submission; exit $? ;;
all) grade_all; exit $? ;;
*) usage "unknown mode '$mode'" ;;
esac
