#!/usr/bin/env bash
# The promise map: every promise a lab header makes names the grader tests
# that enforce it, and every grader test enforces some promise.
#
# In a lab's headers (labs/<lab>/*.h) a promise is written in a comment as
#     * Promise: what the code guarantees, in one sentence or more.
#     *   [tests: test_name, other_test_name]
# The check fails on a promise with no [tests: ...], a test name that is not
# in the lab's grade.c table, a grader test no promise names, or a lab
# header with no promise at all.  Prints PASS/FAIL lines (see check.sh).
set -euo pipefail
cd "$(dirname "$0")/../../.."

only=${LAB:-}
for dir in labs/*/; do
	lab=$(basename "$dir")
	if [ -n "$only" ] && [[ ",$only," != *",${lab%%_*},"* ]]; then
		continue
	fi
	python3 - "$dir" "$lab" <<'PY'
import glob, re, sys

lab_dir, lab = sys.argv[1], sys.argv[2]

def comment_text(path):
    """The header's comments, with their ' * ' prefixes removed."""
    out, inside = [], False
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        if not inside and "/*" in s:
            inside, s = True, s[s.index("/*") + 2:]
        if inside:
            end = "*/" in s
            s = s.split("*/")[0].lstrip("*").strip()
            out.append(s)
            inside = not end
        else:
            out.append("")
    return "\n".join(out)

tests = set(re.findall(r"GRADE_TEST\w*\(\s*(\w+)",
                       open(lab_dir + "grade.c", encoding="utf-8").read()))
problems, named, count = [], set(), 0
for header in sorted(glob.glob(lab_dir + "*.h")):
    text = comment_text(header)
    for chunk in re.split(r"\bPromise:", text)[1:]:
        count += 1
        m = re.search(r"\[tests?:\s*([^\]]*)\]", chunk)
        first = " ".join(chunk.split())[:70]
        if not m or not m.group(1).strip():
            problems.append(f"{header}: promise names no test: '{first}'")
            continue
        for name in re.split(r"[,\s]+", m.group(1).strip()):
            named.add(name)
            if name not in tests:
                problems.append(f"{header}: promise '{first}' names "
                                f"'{name}', which is not a test in grade.c")
if count == 0:
    problems.append(f"{lab_dir}: no header states a Promise:")
for name in sorted(tests - named):
    problems.append(f"{lab_dir}grade.c: test '{name}' enforces no promise "
                    "of the lab's headers")
for p in problems:
    print(f"  {p}")
if problems:
    print(f"FAIL {lab}: the promise map has {len(problems)} problem(s)")
else:
    print(f"PASS {lab}: {count} promises, each enforced by named tests "
          f"({len(tests)} tests)")
PY
done
