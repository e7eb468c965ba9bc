#!/usr/bin/env bash
# The part of grading one submission that runs its code (submissions.sh
# starts it under the submission's overall limit, in a session of its own).
# For each lab of the pristine suite in WORK/suite: find the student file in
# the submission, copy it (only it) in, and run that lab's make grade under
# the lab's own time limit, in a session of its own, so one lab's hang costs
# that lab and no other.
#
#   grade_labs.sh WORK quiet|loud UNPACKED ROOT...
#
# UNPACKED: what unpacking the submission's archives skipped (shown when a
# file is missing); ROOT...: the folders to search for student files (the
# submission, and where its archives were unpacked).  Reads, from the
# environment: YIELDLAB_LAB_TIMEOUT ("90", "ex01:90,ex03:120" or both: seconds per
# lab; default: the lab's test timeouts, scaled, plus YIELDLAB_BUILD_TIMEOUT,
# 60 s, to compile), YIELDLAB_STUDENT_WERROR and YIELDLAB_WERROR (passed to make),
# YIELDLAB_LOG_CAP (bytes of make output kept per lab, 256 KiB).
# Leaves WORK/state/<lab>: graded, missing, build-error or timeout; and
# appends to WORK/warnings.txt the compiler's words on each student file.  A lab
# with no state when this ends (the overall limit struck) is completed by
# the caller.
# set -u only: a lab that is missing, fails to build or times out is recorded
# in its state and the next lab is graded.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

work=$1 loud=$2 unpacked=$3
roots=("${@:4}")
suite="$work/suite"
meta="$suite/build/workflow"
max_bytes=$((1024 * 1024))
log_cap=${YIELDLAB_LOG_CAP:-262144}

# The submission's overall limit (submissions.sh) signals this script and
# its process group, never the lab's session (run_lab): that session is
# ended here before leaving.  Left running, its runner wrote the lab's
# results after the caller had marked the lab "ran past its time limit",
# and the report lost the tests it had not reached (47/58, not 47/100).
lab_sid=''
end_lab_session() { [ -z "$lab_sid" ] || pkill -KILL -s "$lab_sid" 2>/dev/null; }
trap 'end_lab_session; exit 143' TERM
trap 'end_lab_session; exit 130' INT

# shown PATH: a found file as the student knows it: relative to the
# submission, or "archive.zip: path/in/it".
shown() {
	local p=$1 r
	for r in "${roots[@]}"; do
		case $p in "$r"/*) p=${p#"$r"/}; break ;; esac
	done
	sed 's|\.d/|: |' <<<"$p"
}

# all_files: every file of the submission (archives unpacked), NUL-separated.
all_files() {
	local r
	for r in "${roots[@]}"; do
		[ -d "$r" ] || continue
		find "$r" -maxdepth 10 \( -name __MACOSX -o -name .git \) -prune -o \
			\( -type f -o -type l \) -print0
	done
}

# found_list: up to 25 files of the submission, for a "missing" message.
found_list() {
	local n=0 p total
	total=$(all_files | tr -cd '\0' | wc -c)
	[ "$total" -gt 0 ] || { echo "The submission holds no file at all."; return; }
	echo "The submission holds $total file(s):"
	while IFS= read -r -d '' p; do
		n=$((n + 1))
		[ $n -le 25 ] || { echo "  ... and $((total - 25)) more"; break; }
		echo "  $(shown "$p")"
	done < <(all_files | sort -z)
}

# find_student LAB FILE ALONE: prints the one copy of LAB's student file to
# grade.  Copies identical to a file of the suite (the stub, say) count
# only when there is no other;
# then copies in a folder named after the lab (labs/LAB/FILE, LAB/FILE,
# exNN/FILE, at any depth) come first; FILE anywhere else counts only when
# ALONE=1 (no other lab uses that name).  Identical copies (a tree and its
# tarball) are one.  Exit 1, printing the copies, when they differ.
find_student() {
	local lab=$1 file=$2 alone=$3 id=${1%%_*} p strong=() weak=() pick=() worked=() sums suite_sums
	while IFS= read -r -d '' p; do
		[ "${p##*/}" = "$file" ] || continue   # (no fork: every file, every lab)
		case $p in
		*/"$lab/$file" | */"$id/$file") strong+=("$p") ;;
		*) weak+=("$p") ;;
		esac
	done < <(all_files | sort -z)
	# A copy of one of the suite's own files (the untouched stub, a file
	# of the handout uploaded beside the real work) is never anyone's
	# answer: it counts only when nothing else is there.
	suite_sums=$(find "$suite" -path "$suite/build" -prune -o -type f -name "$file" -print0 |
		xargs -0 -r sha256sum | cut -c1-64)
	[ "$alone" = 1 ] || weak=()
	mapfile -t worked < <(for p in "${strong[@]}" "${weak[@]}"; do
		[ -L "$p" ] || ! grep -qxF "$(sha256sum <"$p" | cut -c1-64)" <<<"$suite_sums" && printf '%s\n' "$p"
	done)
	if [ ${#worked[@]} -gt 0 ]; then
		mapfile -t strong < <(printf '%s\n' "${strong[@]}" | grep -xFf <(printf '%s\n' "${worked[@]}"))
		mapfile -t weak < <(printf '%s\n' "${weak[@]}" | grep -xFf <(printf '%s\n' "${worked[@]}"))
	else
		weak=()   # only the suite's own files: at most the stub is graded
	fi
	if [ ${#strong[@]} -gt 0 ]; then pick=("${strong[@]}")
	elif [ ${#weak[@]} -gt 0 ]; then pick=("${weak[@]}")
	else return 0; fi
	sums=$(for p in "${pick[@]}"; do
		if [ -L "$p" ]; then echo "link:$p"; else sha256sum <"$p"; fi
	done | sort -u | wc -l)
	if [ "$sums" -gt 1 ]; then
		for p in "${pick[@]}"; do shown "$p"; done
		return 1
	fi
	printf '%s\n' "${pick[0]}"
}

# note LAB STATUS TEXT: every test of LAB without a result scores 0 with
# TEXT as its output.
note() {
	printf '%s\n' "$3" | "$suite/build/bin/grade-note" --out "$suite/build/grade" --lab "$1" \
		--list "$meta/lists/$1.list" --status "$2" --note-file /dev/stdin
}

say() {
	if [ "$loud" = loud ]; then printf '%s\n' "$*" | tee -a "$work/grade.log"
	else printf '%s\n' "$*" >>"$work/grade.log"; fi
}

# cap_stream BYTES: passes at most BYTES through, drains the rest, and
# says how much was cut (a flood must neither fill the disk nor block).
cap_stream() {
	local cut
	head -c "$1"
	cut=$(wc -c)
	[ "$cut" -gt 0 ] && printf '\n[... %d more bytes of output cut]\n' "$cut"
	return 0
}

lab_limit() { wf_lab_limit "$meta/lists/$1.list" "${1%%_*}"; }

# run_lab ID LIMIT LOG: the lab's make grade in its own session under
# LIMIT; rc is its status (124 or 137: the limit struck).  Whatever it
# leaves in that session is killed.  The session's id is the pid of the
# background job that calls setsid: a job of a shell without job control is
# never a process group leader, so setsid makes the session in that very
# process (no fork), and the id needs no file.
run_lab() {
	local out capper
	# Not a pipe we wait on: what is left of the session still holds its
	# write end, so it is killed first, and only then is the log complete.
	exec {out}> >(cap_stream "$log_cap" >"$3")
	capper=$!
	(
		wf_clean_env
		exec setsid --wait timeout --kill-after=5 "$2" \
			make -s --no-print-directory -C "$suite" BUILD=build grade LAB="$1" \
			STUDENT_WERROR="${YIELDLAB_STUDENT_WERROR:-0}" WERROR="${YIELDLAB_WERROR:-1}"
	) </dev/null >&"$out" 2>&1 {out}>&- &
	lab_sid=$!
	exec {out}>&-
	wait "$lab_sid"
	rc=$?
	end_lab_session
	lab_sid=''
	wait "$capper"
}

# add_warnings LAB TEXT: TEXT (when any) under the lab's name in
# WORK/warnings.txt, which is shown to the instructor.
add_warnings() {
	[ -n "$2" ] || return 0
	printf '%s:\n' "$1"
	sed 's/^/  /' <<<"$2"
} >>"$work/warnings.txt"

# grade_lab LAB FILE SRC: copies SRC in and grades LAB; records the state.
grade_lab() {
	local lab=$1 file=$2 src=$3 id=${1%%_*} log="$work/$1.make.log" ran count limit warned
	cp "$src" "$suite/labs/$lab/$file" && touch "$suite/labs/$lab/$file"
	limit=$(lab_limit "$lab")
	say "== $id: grading $(shown "$src") (time limit $limit s)"
	run_lab "$id" "$limit" "$log"
	[ "$loud" = loud ] && cat "$log"
	cat "$log" >>"$work/grade.log"
	warned=$(grep -E "^labs/$lab/$file:[0-9]+:[0-9]+: (warning|error)" "$log" |
		sed "s|^labs/$lab/||" | head -40)
	ran=$(wf_frag_field "$suite/build/grade/labs/$lab.frag" 5)
	count=$(grep -c . "$meta/lists/$lab.list")
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo timeout >"$work/state/$lab"
		say "== $id: ran past its time limit of $limit s; the other labs are graded"
		warned+=${warned:+$'\n'}"$id ran past its time limit of $limit s: its tests without a result score 0"
		note "$lab" timeout "not graded: $id ran past its time limit of $limit s (its tests' timeouts plus time to build), so its remaining tests score 0. Any other lab of the submission is still graded."
	elif [ -z "$ran" ]; then
		echo build-error >"$work/state/$lab"
		note "$lab" error "$(printf '%s did not build, so %s scores 0. The compiler said:\n\n%s' \
			"$file" "$id" "$(grep -Ev '^(make|  (CC|LD|AR) )' "$log" | tail -60)")"
	elif [ "$ran" -lt "$count" ]; then
		echo graded >"$work/state/$lab"
		note "$lab" error "not run: the grader stopped after $ran of $count tests (see grade.log)"
	else
		echo graded >"$work/state/$lab"
	fi
	add_warnings "$lab" "$warned"
	rm -f "$log"
}

# missing LAB FILE PROBLEM [DETAIL]: the lab scores 0 and says why.
missing() {
	say "== ${1%%_*}: $2 $3: 0 points"
	echo missing >"$work/state/$1"
	note "$1" error "$(printf '%s %s, so %s scores 0.%s' "$2" "$3" "${1%%_*}" "${4:+$'\n\n'$4}")"
}

# A file name that only one lab uses may also be handed in alone.
labs=$(wf_suite_labs "$suite") || wf_die 1 "the suite in $suite lists no lab"
names=$(awk '{ print $2 }' <<<"$labs" | sort | uniq -d)
while read -r lab file; do
	alone=1
	[ -n "$names" ] && grep -qxF "$file" <<<"$names" && alone=0
	if ! copies=$(find_student "$lab" "$file" "$alone"); then
		missing "$lab" "$file" "is in the submission more than once, with different contents" \
			"$(printf 'Found:\n%s\n\nKeep one copy (or hand in one tree) and submit again.' "$(sed 's/^/  /' <<<"$copies")")"
		continue
	fi
	src=$copies
	if [ -z "$src" ]; then
		where="Looked for labs/$lab/$file or $lab/$file at any depth (a tree, or an archive of it)$([ "$alone" = 1 ] && echo ", and $file anywhere")."
		[ -n "$unpacked" ] && where+=$'\n'"Unpacking the archives: $(head -c 1500 <<<"$unpacked")"
		missing "$lab" "$file" "is not in the submission" "$(printf '%s\n%s' "$where" "$(found_list)")"
	elif [ -L "$src" ] || [ ! -f "$src" ]; then
		missing "$lab" "$file" "is not a regular file (a link or a folder is not graded)"
	elif [ "$(stat -c %s "$src")" -gt "$max_bytes" ]; then
		missing "$lab" "$file" "is larger than 1 MiB"
	else
		grade_lab "$lab" "$file" "$src"
	fi
done <<<"$labs"
