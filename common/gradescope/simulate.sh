#!/usr/bin/env bash
# Runs an autograder zip on one submission the way Gradescope does, in a
# simulated /autograder, without Gradescope or Docker:
#
#   bash common/gradescope/simulate.sh ZIP SUBMISSION [ROOT]
#
# ZIP is what make autograder wrote; SUBMISSION a folder (copied as
# ROOT/submission, as an upload or a GitHub repository lands there) or a
# file (an upload of one file: put inside ROOT/submission).  ROOT
# (default build/gradescope-sim) gets source/ (the zip, unpacked),
# submission/ and results/results.json; YIELDLAB_AUTOGRADER_ROOT points
# setup.sh and run_autograder at it instead of /autograder.  Exit: that of
# run_autograder, 1 when setup.sh failed, 2 on usage.
set -euo pipefail
usage() {
	echo "yieldlab: $1" >&2
	echo "usage: bash common/gradescope/simulate.sh ZIP SUBMISSION [ROOT]" >&2
	exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage "needs the autograder zip and a submission"
zip=$1 sub=$2 root=${3:-build/gradescope-sim}
[ -f "$zip" ] || usage "no zip at '$zip' (make autograder writes one)"
[ -e "$sub" ] || usage "no submission at '$sub'"
command -v python3 >/dev/null 2>&1 || usage "python3 is needed (to unpack the zip)"

rm -rf "$root" && mkdir -p "$root/source" "$root/submission" "$root/results" ||
	usage "cannot create $root"
root=$(cd "$root" && pwd)
python3 -m zipfile -e "$zip" "$root/source" || usage "'$zip' is not a zip"
chmod +x "$root/source/setup.sh" "$root/source/run_autograder"
if [ -d "$sub" ]; then
	cp -a "$sub/." "$root/submission/"
else
	cp "$sub" "$root/submission/"
fi
echo "simulate: $root/source holds the zip, $root/submission the submission"
if ! YIELDLAB_AUTOGRADER_ROOT="$root" bash "$root/source/setup.sh" >"$root/setup.log" 2>&1; then
	tail -20 "$root/setup.log" >&2
	echo "simulate: setup.sh failed (log: $root/setup.log)" >&2
	exit 1
fi
rc=0
YIELDLAB_AUTOGRADER_ROOT="$root" "$root/source/run_autograder" >"$root/run.log" 2>&1 || rc=$?
tail -1 "$root/run.log"
python3 - "$root/results/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d.get('output', '').rstrip())
print('score: %s (%d tests)' % (d.get('score'), len(d.get('tests', []))))
PY
echo "simulate: results in $root/results/results.json (logs: $root/setup.log, $root/run.log)"
exit $rc
