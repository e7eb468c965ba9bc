#!/usr/bin/env bash
# Grades one submission in its own folder, from a pristine suite built by
# suite.sh.  Used by make grade-submission, make grade-all and Gradescope's
# run_autograder.
#
#   grade_submission.sh --template DIR --sub PATH --work DIR
#                       [--limit SECONDS] [--quiet]
#
# PATH: a student's tree, or a .tar/.tar.gz/.tgz/.zip of it, or a folder
# holding only student files.  Leaves in WORK: results.json (Gradescope's
# format, every test of every selected lab), grade/ (per-lab fragments and
# each test's log), grade.log, summary.tsv (lab score max state) and
# status.  The code runs under an overall limit (default: every test
# running into its timeout, plus two minutes to build) in its own session,
# and whatever it leaves running is killed.  Exit 0 when results.json was
# written, 1 when not, 2 on bad arguments.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

usage() {
	echo "yieldlab: $1" >&2
	echo "usage: grade_submission.sh --template DIR --sub PATH --work DIR [--limit SECONDS] [--quiet]" >&2
	exit 2
}

template='' sub='' work='' limit='' loud=loud
while [ $# -gt 0 ]; do
	case $1 in
	--template) template=${2:-}; shift 2 || usage "--template needs a value" ;;
	--sub) sub=${2:-}; shift 2 || usage "--sub needs a value" ;;
	--work) work=${2:-}; shift 2 || usage "--work needs a value" ;;
	--limit) limit=${2:-}; shift 2 || usage "--limit needs a value" ;;
	--quiet) loud=quiet; shift ;;
	*) usage "unknown argument '$1'" ;;
	esac
done
[ -n "$template" ] && [ -n "$sub" ] && [ -n "$work" ] || usage "--template, --sub and --work are required"
[ -f "$template/build/workflow/labs.txt" ] || usage "'$template' is not a suite built by suite.sh"
[ -e "$sub" ] || usage "no submission at '$sub'"
[ -z "$limit" ] || [[ $limit =~ ^[1-9][0-9]*$ ]] || usage "the time limit must be whole seconds, not '$limit'"

meta="$work/suite/build/workflow"
out="$work/suite/build/grade"

# default_limit: every listed test running into its (scaled) timeout, plus
# 120 s to copy and compile: a submission cannot need more unless it hangs
# outside a test.
default_limit() {
	awk -v scale="${YIELDLAB_TIMEOUT_SCALE:-1}" '
		$3 == "pts" { sum += $4 }
		END { if (scale < 1) scale = 1; printf "%d\n", sum * scale + 120 }
	' "$meta"/lists/*.list
}

# unpack: sets root to the folder holding the submission's files.
unpack() {
	local dest="$work/unpacked"
	if [ -d "$sub" ]; then
		root=$sub
		return 0
	fi
	mkdir -p "$dest"
	root=$dest
	case $sub in
	*.tar | *.tar.gz | *.tgz | *.tar.xz | *.tar.bz2)
		tar -xf "$sub" -C "$dest" --no-same-owner --no-same-permissions 2>"$work/unpack.err" ;;
	*.zip)
		if command -v unzip >/dev/null 2>&1; then
			unzip -qq -o "$sub" -d "$dest" >"$work/unpack.err" 2>&1
		else
			python3 -m zipfile -e "$sub" "$dest" 2>"$work/unpack.err"
		fi ;;
	*)
		echo "not a folder, nor a .tar, .tar.gz, .tgz or .zip archive" >"$work/unpack.err"
		return 1 ;;
	esac
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
		"$work" "$root" "$loud" </dev/null &
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
cp -a "$template" "$work/suite" || wf_die 1 "cannot copy the suite into $work"
mkdir -p "$out"
: >"$work/grade.log"
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
	case $state in missing | build-error) flags+=("$state") ;; esac
done <"$meta/labs.txt" >"$work/summary.tsv"
status=
for f in error timeout build-error missing crash hang; do
	[[ " ${flags[*]:-} " == *" $f "* ]] && status+=${status:++}$f
done
echo "${status:-ok}" >"$work/status"

"$work/suite/build/bin/grade-report" --out "$out" >/dev/null 2>&1
mv "$out" "$work/grade" && cp "$work/grade/results.json" "$work/results.json"
rm -rf "$work/suite" "$work/unpacked" "$work/state" "$work/note.txt" "$work/session" \
	"$work/unpack.err" "$work"/*.make.log
[ -s "$work/results.json" ] || wf_die 1 "no results.json was written for $sub"
