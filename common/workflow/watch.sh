#!/usr/bin/env bash
# make watch LAB=exNN: grades the lab, then again each time its student
# file is saved, until Ctrl-C.  Polls the file's modification time once a
# second (no inotify or other extra package needed).
#
#   YIELDLAB_LAB=exNN YIELDLAB_MAKE=make watch.sh LAB_DIR:STUDENT_FILE
#
# YIELDLAB_WATCH_RUNS=N stops after N gradings (make check uses it).
# set -u only: a grading that fails (a build error) is shown, and the watch goes on.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

want=${YIELDLAB_LAB:-} max_runs=${YIELDLAB_WATCH_RUNS:-0}
usage() {
	echo "yieldlab: $1" >&2
	echo "usage: make watch LAB=exNN   (regrades the lab each time you save its file; Ctrl-C stops)" >&2
	exit 2
}
[ -n "$want" ] || usage "make watch needs LAB=exNN"
[ $# -eq 1 ] || usage "LAB=$want names more than one lab"
[[ $max_runs =~ ^[0-9]+$ ]] || usage "YIELDLAB_WATCH_RUNS must be a whole number, not '$max_runs'"
lab=${1%%:*} file=${1#*:} id=${1%%_*}
path="labs/$lab/$file"
[ -f "$path" ] || wf_die 1 "$path is missing"

# Our make may run with -j; the grading make is not handed its job slots.
MAKEFLAGS=$(sed 's/ --jobserver-[a-z]*=[^ ]*//g; s/ -j[0-9]*//g' <<<"${MAKEFLAGS:-}")
export MAKEFLAGS

mtime() { date -r "$path" +%s.%N 2>/dev/null; }

runs=0
grade() {
	runs=$((runs + 1))
	echo "== watch: grading $id at $(date +%H:%M:%S)"
	"${YIELDLAB_MAKE:-make}" --no-print-directory grade LAB="$id"
	echo "== watch: waiting for $path to change (Ctrl-C stops)"
}

trap 'echo; echo "== watch: stopped"; exit 0' INT TERM
last=$(mtime)
grade
while [ "$max_runs" -eq 0 ] || [ "$runs" -lt "$max_runs" ]; do
	sleep 1
	# An editor may replace the file: between its rename and its write
	# there is no file, and that is no save yet.
	now=$(mtime) || continue
	[ "$now" = "$last" ] && continue
	last=$now
	grade
done
