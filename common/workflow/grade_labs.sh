#!/usr/bin/env bash
# The part of grading one submission that runs its code, under the time
# limit (grade_submission.sh starts it with timeout and setsid).  For each
# lab of the pristine suite in WORK/suite: find the student file in the
# submission, copy it (only it) in, and run that lab's make grade.
#
#   grade_labs.sh WORK SUBMISSION_ROOT quiet|loud
#
# Leaves WORK/state/<lab>: graded, missing or build-error.  A lab with no
# state when this ends (the limit struck) is completed by the caller.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

work=$1 root=$2 loud=$3
# The session is ours: whatever is left of it when we are done gets killed.
echo $$ >"$work/session"
suite="$work/suite"
meta="$suite/build/workflow"
max_bytes=$((1024 * 1024))

# top_dirs: ROOT and each folder at its top (a tarball of yieldlab/, a zip
# that macOS wrapped), where a student's tree may start.
top_dirs() {
	local d
	printf '%s\n' "$root"
	for d in "$root"/*/; do
		[ -d "$d" ] || continue
		case $(basename "$d") in __MACOSX | labs) continue ;; esac
		printf '%s\n' "${d%/}"
	done
}

# find_student LAB FILE ALONE: the submission's copy of LAB's student file:
# labs/LAB/FILE in a tree, LAB/FILE, or FILE alone when ALONE=1 (no other
# lab uses that name).  Prints nothing when there is none.
find_student() {
	local lab=$1 file=$2 alone=$3 base cand
	while IFS= read -r base; do
		for cand in "$base/labs/$lab/$file" "$base/$lab/$file"; do
			if [ -e "$cand" ] || [ -L "$cand" ]; then
				printf '%s\n' "$cand"
				return
			fi
		done
		if [ "$alone" = 1 ] && { [ -e "$base/$file" ] || [ -L "$base/$file" ]; }; then
			printf '%s\n' "$base/$file"
			return
		fi
	done < <(top_dirs)
}

# note LAB STATUS TEXT: every test of LAB scores 0 with TEXT as its output.
note() {
	printf '%s\n' "$3" >"$work/note.txt"
	"$suite/build/bin/grade-note" --out "$suite/build/grade" --lab "$1" \
		--list "$meta/lists/$1.list" --status "$2" --note-file "$work/note.txt"
}

say() {
	if [ "$loud" = loud ]; then printf '%s\n' "$*" | tee -a "$work/grade.log"
	else printf '%s\n' "$*" >>"$work/grade.log"; fi
}

# grade_lab LAB FILE SRC: copies SRC in and grades LAB; records the state.
grade_lab() {
	local lab=$1 file=$2 src=$3 id=${1%%_*} log="$work/$1.make.log" ran count
	cp "$src" "$suite/labs/$lab/$file" && touch "$suite/labs/$lab/$file"
	say "== $id: grading ${src#"$root"/}"
	if [ "$loud" = loud ]; then
		wf_make "$suite" BUILD=build grade LAB="$id" </dev/null 2>&1 | tee "$log"
	else
		wf_make "$suite" BUILD=build grade LAB="$id" </dev/null >"$log" 2>&1
	fi
	cat "$log" >>"$work/grade.log"
	ran=$(wf_frag_field "$suite/build/grade/labs/$lab.frag" 5)
	count=$(grep -c . "$meta/lists/$lab.list")
	if [ -z "$ran" ]; then
		echo build-error >"$work/state/$lab"
		note "$lab" error "$(printf '%s did not build, so %s scores 0. The compiler said:\n\n%s' \
			"$file" "$id" "$(grep -Ev '^(make|  (CC|LD|AR) )' "$log" | tail -60)")"
	elif [ "$ran" -lt "$count" ]; then
		echo graded >"$work/state/$lab"
		note "$lab" error "not run: the grader stopped after $ran of $count tests (see grade.log)"
	else
		echo graded >"$work/state/$lab"
	fi
}

# A file name that only one lab uses may also be handed in alone.
names=$(awk '{ print $2 }' "$meta/labs.txt" | sort | uniq -d)
while read -r lab file; do
	alone=1
	[ -n "$names" ] && grep -qxF "$file" <<<"$names" && alone=0
	src=$(find_student "$lab" "$file" "$alone")
	problem=
	if [ -z "$src" ]; then
		problem="is not in the submission"
	elif [ -L "$src" ] || [ ! -f "$src" ]; then
		problem="is not a regular file (a link or a folder is not graded)"
	elif [ "$(stat -c %s "$src")" -gt "$max_bytes" ]; then
		problem="is larger than 1 MiB"
	fi
	if [ -n "$problem" ]; then
		say "== ${lab%%_*}: $file $problem: 0 points"
		echo missing >"$work/state/$lab"
		where=
		[ -z "$src" ] && where=$(printf '\nLooked for labs/%s/%s (a copy of the whole tree, or an archive of it)%s.' \
			"$lab" "$file" "$([ "$alone" = 1 ] && echo " and $file on its own")")
		note "$lab" error "$(printf '%s %s, so %s scores 0.%s' "$file" "$problem" "${lab%%_*}" "$where")"
		continue
	fi
	grade_lab "$lab" "$file" "$src"
done <"$meta/labs.txt"
