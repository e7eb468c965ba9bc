# Shared by the scripts of common/workflow and common/gradescope (sourced,
# not run).  Everything here works on a suite directory given as an
# argument, so the same code serves the repository, a pristine copy of it,
# and Gradescope's /autograder/source.

# wf_die STATUS MESSAGE...: prints "yieldlab: MESSAGE" on stderr, exits.
wf_die() {
	local status=$1
	shift
	printf 'yieldlab: %s\n' "$*" >&2
	exit "$status"
}

# wf_jobs: the job count of the make that started us (-jN, --jobs=N; a bare
# -j means one per core), or 1.  Call before wf_clean_env.
wf_jobs() {
	local word jobs=1
	for word in ${MAKEFLAGS:-}; do
		case $word in
		--) break ;;
		--jobs=*) jobs=${word#--jobs=} ;;
		-j) jobs=$(nproc) ;;
		-j[0-9]*) jobs=${word#-j} ;;
		esac
	done
	[[ $jobs =~ ^[1-9][0-9]*$ ]] || jobs=1
	echo "$jobs"
}

# wf_clean_env: a pristine build must not see the knobs of the run that
# started it.  Command-line variables (LAB=, CFLAGS=) travel in MAKEFLAGS,
# and make reads the others from the environment.
wf_clean_env() {
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
	unset LAB T SOL SAN BUILD O STRICT CC CFLAGS CPPFLAGS LDFLAGS LDLIBS \
		WERROR V SRC CHART LEVEL SUB SUBS DIST
}

# wf_make DIR ARGS...: make in DIR, quietly, in a clean environment.
wf_make() {
	local dir=$1
	shift
	(wf_clean_env && make -s --no-print-directory -C "$dir" "$@")
}

# wf_labs_info DIR [LAB]: `make -s labs-info` of the suite in DIR, the one
# source of lab metadata: a header line ("id lab student threads tsan needs
# provided"), then one line per lab (common/CONTRIBUTING.md).
wf_labs_info() {
	wf_make "$1" labs-info LAB="${2:-}"
}

# wf_labs DIR [LAB]: one "lab student_file" line per lab of the suite in DIR.
wf_labs() {
	local info
	info=$(wf_labs_info "$@") || return
	awk 'NR > 1 { print $2, $3 }' <<<"$info"
}

# wf_suite_labs DIR: one "lab student_file" line per lab a pristine suite
# (suite.sh) in DIR was built for: the labs with a saved test list, with
# their student files from make labs-info.
wf_suite_labs() {
	local labs lab file
	labs=$(wf_labs "$1") || return
	while read -r lab file; do
		[ -f "$1/build/workflow/lists/$lab.list" ] && printf '%s %s\n' "$lab" "$file"
	done <<<"$labs"
	return 0
}

# wf_is_ours PATH: true for a path a pristine copy of the suite holds.
# Build trees (build/, build-*/) and dist/ are products, .git is history.
wf_is_ours() {
	case $1 in
	build | build/* | build-* | dist/* | .git/*) return 1 ;;
	esac
	return 0
}

# wf_suite_files ROOT [with-solutions]: the suite's files, NUL-separated,
# relative to ROOT.  In a git checkout: the tracked files and the untracked
# ones git does not ignore (a lab being written is not committed yet);
# elsewhere: every file.  solutions/ only when asked for.
wf_suite_files() {
	local root=$1 want_solutions=${2:-} path
	{
		if [ -e "$root/.git" ] && git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
			git -C "$root" ls-files -z --cached --others --exclude-standard
		else
			(cd "$root" && find . -name .git -prune -o \( -type f -o -type l \) -print0 |
				sed -z 's|^\./||')
		fi
	} | while IFS= read -r -d '' path; do
		wf_is_ours "$path" || continue
		[[ $path == solutions/* && $want_solutions != with-solutions ]] && continue
		# git lists a tracked file someone has just deleted
		[ -e "$root/$path" ] || [ -L "$root/$path" ] || continue
		printf '%s\0' "$path"
	done
}

# wf_copy_files ROOT DEST: copies the NUL-separated paths on stdin from ROOT
# to DEST, keeping modification times (make must not rebuild a copy).
wf_copy_files() {
	mkdir -p "$2" &&
		tar -C "$1" --null -T - -cf - | tar -C "$2" --warning=no-timestamp -xf -
}

# The results files have one reader, the runner (grade-run, beside the
# grade directory's build tree): it counts only fragments it signed.
wf_grade_run() {
	local out=${1%/labs/*}
	"${YIELDLAB_GRADE_RUN:-$out/../bin/grade-run}" "$2" --out "$out" \
		--lab "$(basename "$1" .frag)" "${@:3}" 2>/dev/null
}

# wf_frag_field FRAG N[,N...]: fields of a lab's result (1 lab, 2 score,
# 3 max, 4 passed, 5 count; several: one line, a space between), empty
# when the file is missing, garbled or not signed.
wf_frag_field() {
	[ -f "$1" ] || return 0
	wf_grade_run "$1" field "$2"
}

# wf_frag_tags FRAG: the status tags of the fragment's tests, one a line.
wf_frag_tags() {
	[ -f "$1" ] || return 0
	wf_grade_run "$1" tags | awk '{ print $2 }'
}

# wf_lab_limit LIST ID: a lab's time limit in seconds.  YIELDLAB_LAB_TIMEOUT is
# "90" (every lab), "ex01:90,ex03:120" (those labs) or both; otherwise the
# timeouts of the lab's tests (LIST, its grader's --list), times
# YIELDLAB_TIMEOUT_SCALE, plus YIELDLAB_BUILD_TIMEOUT (60 s) to compile.
wf_lab_limit() {
	local item all='' mine=''
	for item in ${YIELDLAB_LAB_TIMEOUT:+${YIELDLAB_LAB_TIMEOUT//,/ }}; do
		case $item in
		"$2":*) mine=${item#*:} ;;
		*:*) ;;
		*) all=$item ;;
		esac
	done
	if [ -n "$mine" ]; then echo "$mine"
	elif [ -n "$all" ]; then echo "$all"
	else
		awk -v scale="${YIELDLAB_TIMEOUT_SCALE:-1}" -v build="${YIELDLAB_BUILD_TIMEOUT:-60}" '
			$3 == "pts" { sum += $4 }
			END { if (scale < 1) scale = 1; printf "%d\n", sum * scale + build }
		' "$1"
	fi
}

# wf_check_lab_timeout VALUE: true when VALUE is a valid YIELDLAB_LAB_TIMEOUT.
wf_check_lab_timeout() {
	[ -z "$1" ] || [[ $1 =~ ^(([a-z]+[0-9]+:)?[1-9][0-9]*)(,([a-z]+[0-9]+:)?[1-9][0-9]*)*$ ]]
}

# wf_tree_digest DIR: one sha256 of every file's path and content under DIR.
wf_tree_digest() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-64)
}
