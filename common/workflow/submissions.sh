#!/usr/bin/env bash
# make grade-submission SUB=PATH   grades one student's work
# make grade-all SUBS=DIR          grades every submission in DIR (-j: in
#                                  parallel) and writes roster.csv
#
#   submissions.sh one|all OUT_BASE     (run from the top of the suite)
#
# Input from the environment (set by workflow.mk): YIELDLAB_SUB or YIELDLAB_SUBS,
# YIELDLAB_LAB (the labs, as LAB=), YIELDLAB_LIMIT (seconds per submission,
# SUB_TIMEOUT), YIELDLAB_KEEP (latest or best: which result of a lab the roster
# keeps), and the grading settings grade_submission.sh reads (YIELDLAB_LAB_TIMEOUT,
# YIELDLAB_STUDENT_WERROR, YIELDLAB_WERROR).  Each submission is graded in
# OUT_BASE/<name>/<labs>/ (<labs>: ex01, ex01+ex02, or all; an earlier
# run of the same labs is kept beside it as <labs>@<time>) against its own
# copy of a pristine suite built once per run from this suite's own files;
# the template is read-only, and each copy is checked against the
# template's digest taken before any submission ran (a mismatch: that
# submission gets a suite rebuilt from this one).  roster.csv merges every
# lab graded so far, and grades.csv is the total per student for an LMS.  Exit: 0 every submission
# got its results.json, whatever its score or status (a hang is reported,
# not an error of ours); 1 the suite does not build or grading itself
# failed; 2 bad arguments.
# set -u only: a submission that cannot be graded is reported and the next
# one is graded; the roster is written at the end.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

mode=${1:-} base=${2:-}
lab=${YIELDLAB_LAB:-} limit=${YIELDLAB_LIMIT:-} keep=${YIELDLAB_KEEP:-latest}
jobs=$(wf_jobs)
tag=${lab:-all}
tag=${tag//,/+}

usage() {
	echo "yieldlab: $1" >&2
	cat >&2 <<-'EOF'
	usage: make grade-submission SUB=PATH [LAB=exNN] [SUB_TIMEOUT=SECONDS]
	       make [-jN] grade-all SUBS=DIR [LAB=exNN] [SUB_TIMEOUT=SECONDS]
	  PATH  a student's tree, a .tar.gz/.tgz/.tar/.zip of it, or a folder
	        holding just the student files
	  DIR   a folder of such submissions, one entry per student
	EOF
	exit 2
}

[ -n "$base" ] || usage "submissions.sh needs a mode and an output folder"
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

template="$base/.suite-$$"
digest=
cleanup() { chmod -R u+w "$template" 2>/dev/null; rm -rf "$template"; }
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
	bash "$here/suite.sh" . "$template" "$lab" || exit 1
	chmod -R a-w "$template"
	digest=$(wf_tree_digest "$template")
}

# grade NAME PATH: one submission, quietly; prints its one-line result.
grade() {
	local name=$1 path=$2 work="$base/$1/$tag" total child
	mkdir -p "$base/$1"
	keep_previous "$work"
	bash "$here/grade_submission.sh" --template "$template" --digest "$digest" \
		--source . --sub "$path" --work "$work" --quiet ${limit:+--limit "$limit"} \
		>/dev/null 2>"$base/.$name.err" &
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
	keep_previous "$base/$name/$tag"
	bash "$here/grade_submission.sh" --template "$template" --digest "$digest" --source . \
		--sub "$sub" --work "$base/$name/$tag" ${limit:+--limit "$limit"} || exit 1
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
all) grade_all; exit $? ;;
*) usage "unknown mode '$mode'" ;;
esac
