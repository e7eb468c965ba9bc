#!/usr/bin/env bash
# Grades one submission in its own folder, from a pristine suite built by
# suite.sh.  Used by make grade-submission, make grade-all and Gradescope's
# run_autograder.
#
#   grade_submission.sh --template DIR --sub PATH --work DIR
#                       [--digest SHA256 --source SUITE] [--limit SECONDS] [--quiet]
#
# PATH: a student's tree, or a .tar/.tar.gz/.tgz/.zip of it, or a folder
# holding student files, trees or such archives (unpacked safely, see
# unpack.py; nested folders are searched, see grade_labs.sh).  Leaves in WORK: results.json (Gradescope's
# format, every test of every selected lab), grade/ (per-lab fragments and
# each test's log, each cut to YIELDLAB_LOG_CAP bytes), grade.log, summary.tsv
# (lab score max state), warnings.txt (the compiler's warnings on the
# student files) and status.  Each lab runs under its own limit (see
# grade_labs.sh), all of it under an overall one (default: the labs'
# limits added up, plus a minute) in its own session, and whatever it
# leaves running is killed.  Settings come from the environment:
# YIELDLAB_LAB_TIMEOUT, YIELDLAB_BUILD_TIMEOUT, YIELDLAB_STUDENT_WERROR, YIELDLAB_WERROR,
# YIELDLAB_LOG_CAP.  Exit 0 when results.json was
# written, 1 when not, 2 on bad arguments.
# set -u only: what a submission does wrong (a hang, a build error, a bad
# archive) is recorded in the results, and results.json is written anyway.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage() {
	echo "yieldlab: $1" >&2
	echo "usage: grade_submission.sh --template DIR --sub PATH --work DIR [--digest SHA256 --source SUITE] [--limit SECONDS] [--quiet]" >&2
	exit 2
}

template='' sub='' work='' limit='' loud=loud digest='' source=
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
[ -f "$template/build/workflow/labs.txt" ] || usage "'$template' is not a suite built by suite.sh"
[ -e "$sub" ] || usage "no submission at '$sub'"
[ -z "$limit" ] || [[ $limit =~ ^[1-9][0-9]*$ ]] || usage "the time limit must be whole seconds, not '$limit'"
wf_check_lab_timeout "${YIELDLAB_LAB_TIMEOUT:-}" ||
	usage "LAB_TIMEOUT must be seconds, or exNN:seconds items, comma-separated, not '${YIELDLAB_LAB_TIMEOUT:-}'"

meta="$work/suite/build/workflow"
out="$work/suite/build/grade"

# default_limit: the labs' own limits (grade_labs.sh) added up, plus a
# minute to unpack, copy and report.
default_limit() {
	local lab sum=60
	while read -r lab _; do
		sum=$((sum + $(wf_lab_limit "$meta/lists/$lab.list" "${lab%%_*}")))
	done <"$meta/labs.txt"
	echo "$sum"
}

# unpack: sets root (where the submission's files are, empty for an
# archive) and writes WORK/roots, the folders to search for student files:
# the submission's folder, and WORK/unpacked/<archive>.d/ for the archive
# it is or each archive it holds (unpack.py: no path leaves its folder,
# no links, size caps).  What was skipped goes to WORK/unpack.err.
unpack() {
	local dest="$work/unpacked" archives=()
	: >"$work/unpack.err"
	if [ -d "$sub" ]; then
		root=$sub
		printf '%s\n' "$root" >"$work/roots"
		mapfile -d '' archives < <(find "$sub" -maxdepth 4 \( -name __MACOSX -o -name .git \) -prune -o \
			-type f \( -iname '*.tar' -o -iname '*.tar.gz' -o -iname '*.tgz' -o -iname '*.tar.xz' \
			-o -iname '*.tar.bz2' -o -iname '*.zip' \) -print0 | sort -z | head -z -n 20)
		[ ${#archives[@]} -gt 0 ] || return 0
	else
		root=
		: >"$work/roots"
		case $sub in
		*.tar | *.tar.gz | *.tgz | *.tar.xz | *.tar.bz2 | *.zip) archives=("$sub") ;;
		*)
			echo "not a folder, nor a .tar, .tar.gz, .tgz or .zip archive" >"$work/unpack.err"
			return 1 ;;
		esac
	fi
	printf '%s\n' "$dest" >>"$work/roots"
	command -v python3 >/dev/null 2>&1 || {
		echo "python3 is needed to unpack archives, and it is missing" >>"$work/unpack.err"
		return 1
	}
	python3 "$here/unpack.py" "$dest" "${archives[@]}" >>"$work/unpack.err" 2>&1 && return 0
	# An archive inside a folder that cannot be read is reported, not fatal.
	[ -d "$sub" ]
}

# Kills what the submission left running: everything in its session.
sweep_session() {
	local sid tries=0
	sid=$(cat "$work/session" 2>/dev/null)
	[[ $sid =~ ^[0-9]+$ ]] || return 0
	[ "$sid" != "$(ps -o sid= -p $$ | tr -d ' ')" ] || return 0
	while pgrep -s "$sid" >/dev/null 2>&1 && [ $tries -lt 50 ]; do
		pkill -KILL -s "$sid" 2>/dev/null
		sleep 0.1
		tries=$((tries + 1))
	done
}

# run_limited: grade_labs.sh in a session of its own, under the limit; rc
# is its exit status (124 or 137: the limit struck).  Waiting in the
# background lets an interrupt end the whole session at once.
run_limited() {
	local tpid
	timeout --kill-after=10 "$limit" setsid --wait bash "$here/grade_labs.sh" \
		"$work" "$loud" </dev/null &
	tpid=$!
	trap 'sweep_session; kill "$tpid" 2>/dev/null; wf_die 130 "interrupted: $sub was not graded"' INT TERM
	wait "$tpid"
	rc=$?
	trap - INT TERM
}

# complete LAB STATUS TEXT: the lab's tests that have no result get one.
complete() {
	printf '%s\n' "$3" >"$work/note.txt"
	"$work/suite/build/bin/grade-note" --out "$out" --lab "$1" \
		--list "$meta/lists/$1.list" --status "$2" --note-file "$work/note.txt"
}

# Tests the harness saw crash or run past their timeout, before any note.
harness_flags() {
	local lab
	while read -r lab _; do
		wf_frag_tags "$out/labs/$lab.frag"
	done <"$meta/labs.txt" | sort -u | sed -n 's/^crash$/crash/p; s/^timeout$/hang/p'
}

rm -rf "$work" && mkdir -p "$work/state" || wf_die 1 "cannot create $work"
: >"$work/grade.log"
cp -a "$template" "$work/suite" || wf_die 1 "cannot copy the suite into $work"
# The template is shared by every submission of a grade-all: a copy that
# is not what it was before any of them ran is replaced by a fresh build.
if [ -n "$digest" ] && [ "$(wf_tree_digest "$work/suite")" != "$digest" ]; then
	echo "the shared suite had changed since it was built; grading with a suite rebuilt from $source" |
		tee -a "$work/grade.log" >&2
	chmod -R u+w "$work/suite" && rm -rf "$work/suite"
	[ -n "$source" ] && bash "$here/suite.sh" "$source" "$work/suite" "${YIELDLAB_LAB:-}" >>"$work/grade.log" 2>&1 ||
		wf_die 1 "the shared suite was changed and could not be rebuilt"
fi
# The copy is read-only but for build/ and the student files, so the code
# it grades cannot rewrite it by mistake (as root, or by chmod, it still
# could: the digest check above is what protects the other submissions).
chmod -R a-w "$work/suite" && chmod -R u+w "$work/suite/build" || wf_die 1 "cannot set up $work/suite"
while read -r lab file; do
	chmod u+w "$work/suite/labs/$lab/$file"
done <"$work/suite/build/workflow/labs.txt"
mkdir -p "$out"
[ -n "$limit" ] || limit=$(default_limit)

flags=()
if ! unpack; then
	flags+=(error)
	while read -r lab _; do
		echo error >"$work/state/$lab"
		complete "$lab" error "the submission could not be unpacked: $(head -c 2000 "$work/unpack.err")"
	done <"$meta/labs.txt"
else
	run_limited
	sweep_session
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && flags+=(timeout)
	mapfile -t -O "${#flags[@]}" flags < <(harness_flags)
	while read -r lab _; do
		[ -s "$work/state/$lab" ] && continue
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			complete "$lab" timeout "not graded: the submission ran past its time limit of $limit s"
			echo timeout >"$work/state/$lab"
		else
			complete "$lab" error "not graded: the grading stopped (exit $rc; see grade.log)"
			echo error >"$work/state/$lab"
			flags+=(error)
		fi
	done <"$meta/labs.txt"
fi

# summary.tsv and the submission's status, worst first.
while read -r lab _; do
	state=$(cat "$work/state/$lab")
	printf '%s\t%s\t%s\t%s\n' "$lab" "$(wf_frag_field "$out/labs/$lab.frag" 2)" \
		"$(wf_frag_field "$out/labs/$lab.frag" 3)" "$state"
	case $state in missing | build-error | timeout) flags+=("$state") ;; esac
done <"$meta/labs.txt" >"$work/summary.tsv"
status=
for f in error timeout build-error missing crash hang; do
	[[ " ${flags[*]:-} " == *" $f "* ]] && status+=${status:++}$f
done
echo "${status:-ok}" >"$work/status"

"$work/suite/build/bin/grade-report" --out "$out" >/dev/null 2>&1
mv "$out" "$work/grade" && cp "$work/grade/results.json" "$work/results.json"
# Logs are cut to a sane size (the harness caps what a test prints; this
# also covers whatever else a flood reached).
find "$work/grade" -type f -name '*.log' -size +"${YIELDLAB_LOG_CAP:-262144}"c -print0 2>/dev/null |
	while IFS= read -r -d '' f; do
		truncate -s "${YIELDLAB_LOG_CAP:-262144}" "$f" && printf '\n[... cut at %s bytes]\n' "${YIELDLAB_LOG_CAP:-262144}" >>"$f"
	done
for f in "$work"/warnings/*.txt; do
	[ -s "$f" ] || continue
	printf '%s:\n' "$(basename "$f" .txt)"
	sed 's/^/  /' "$f"
done >"$work/warnings.txt" 2>/dev/null
[ -s "$work/unpack.err" ] && { echo "unpacking:"; sed 's/^/  /' "$work/unpack.err"; } >>"$work/warnings.txt"
chmod -R u+w "$work/suite" 2>/dev/null
rm -rf "$work/suite" "$work/unpacked" "$work/state" "$work/note.txt" "$work/session" \
	"$work/unpack.err" "$work/roots" "$work/warnings" "$work"/*.make.log
[ -s "$work/results.json" ] || wf_die 1 "no results.json was written for $sub"
