#!/usr/bin/env python3
"""tables: the tables the guides show that are facts about the tree.

    tables.py --write   rewrite every generated block (make docs)
    tables.py --check   exit 1 naming each block that is out of date

A generated block sits between
    <!-- begin generated: NAME (make docs) -->
    <!-- end generated: NAME -->
in a Markdown file; NAME picks the table below.  Nothing else in the file
is touched.  The tables are read from the tree: `make labs-info`, each lab's
README title, grade.c's test table, the Promise: lines of its headers,
solutions/wrong/ and solutions/alt/, and data/mutation_score.csv.
"""
import csv
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "common", "workflow"))
from labsinfo import labs_info  # noqa: E402  (after its folder is on the path)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def labs():
    """(lab, id, student file, title) of every lab, in order."""
    out = []
    for info in labs_info(ROOT):
        lab, student = info["lab"], info["student"]
        first = read(f"labs/{lab}/README.md").split("\n", 1)[0]
        title = first.split("—", 1)[1].strip() if "—" in first else lab
        out.append((lab, info["id"], student, title))
    return out


def count(pattern, paths):
    return sum(len(re.findall(pattern, read(p))) for p in paths)


def rel(path):
    return os.path.relpath(path, ROOT)


def mutation_scores():
    path = os.path.join(ROOT, "data", "mutation_score.csv")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        rows = csv.DictReader(l for l in f if not l.startswith("#"))
        return {r["lab"]: r for r in rows}


def labs_table(prefix):
    rows = ["| lab | topic | you edit |", "|---|---|---|"]
    for lab, lid, student, title in labs():
        rows.append(f"| [{lid}]({prefix}labs/{lab}/README.md) | {title} | `{student}` |")
    return rows


def strength_table():
    scores = mutation_scores()
    rows = ["| lab | graded tests | promises in its headers | wrong solutions, each caught by the test it names | correct alternatives at full marks | mutation score |",
            "|---|---|---|---|---|---|"]
    for lab, lid, _, _ in labs():
        tests = count(r"GRADE_TEST\w*\(\s*\w+", [f"labs/{lab}/grade.c"])
        headers = [rel(h) for h in glob.glob(os.path.join(ROOT, "labs", lab, "*.h"))]
        promises = count(r"\bPromise:", headers)
        wrong = len(glob.glob(os.path.join(ROOT, "solutions", "wrong", lab, "*.patch")))
        alts = len(glob.glob(os.path.join(ROOT, "solutions", "alt", lab, "*.c")))
        s = scores.get(lab)
        score = f"{s['score_pct']}% ({s['killed']} of {int(s['generated']) - int(s['not_built']) - int(s['equivalent'])})" if s else "not measured"
        rows.append(f"| {lid} | {tests} | {promises} | {wrong} | {alts} | {score} |")
    return rows


def describe(patch_text):
    """The mistake, from the header comment the patch adds."""
    added = [l[1:].strip().lstrip("*").strip() for l in patch_text.splitlines()
             if l.startswith("+") and not l.startswith("+++")]
    words = []
    for line in added:
        if "wrong solution" in line and "—" in line:
            words = [line.split("—", 1)[1].strip()]
        elif words:
            if not line or line.startswith("Caught by") or line.startswith("/"):
                break
            words.append(line)
    text = " ".join(words).replace("|", "\\|")
    return text if len(text) < 160 else text[:157].rsplit(" ", 1)[0] + " ..."


def wrong_table():
    rows = ["| lab | wrong solution | the mistake | caught by |", "|---|---|---|---|"]
    for lab, lid, _, _ in labs():
        for p in sorted(glob.glob(os.path.join(ROOT, "solutions", "wrong", lab, "*.patch"))):
            text = read(rel(p))
            m = re.search(r"Caught by:\s*([a-z0-9_]+)", text)
            name = os.path.basename(p)[:-len(".patch")]
            rows.append(f"| {lid} | [{name}]({lab}/{name}.patch) | {describe(text)} | `{m.group(1) if m else '?'}` |")
    return rows


BUILD_S = 60   # YIELDLAB_BUILD_TIMEOUT's default (common/workflow/lib.sh)


def lab_limit_s(lab):
    """A lab's time limit as wf_lab_limit computes it by default: its
    tests' timeouts (the GRADE_TEST rows of its grade.c) plus the build."""
    rows = re.findall(r"GRADE_TEST(?:_TSAN)?\(\s*\w+,\s*\d+,\s*(\d+)",
                      read(f"labs/{lab}/grade.c"))
    return int(sum(int(ms) for ms in rows) / 1000) + BUILD_S


def limits_table():
    limits = [(lid, lab_limit_s(lab)) for lab, lid, _, _ in labs()]
    every = sum(s for _, s in limits) + BUILD_S
    longest = max(s for _, s in limits)
    rows = ["| lab | " + " | ".join(lid for lid, _ in limits) +
            " | every lab (`SUB_TIMEOUT`) |",
            "|---|" + "---|" * (len(limits) + 1),
            "| time limit | " + " | ".join(f"{s} s" for _, s in limits) +
            f" | {every} s |",
            "",
            f"Gradescope's timeout must be above the limit of what one "
            f"assignment grades: {longest // 60 + 1} minutes covers any one "
            f"lab, every lab in one assignment needs {every // 60 + 1} "
            f"minutes."]
    return rows


BLOCKS = {
    ("common/gradescope/README.md", "time-limits"): limits_table,
    ("README.md", "labs"): lambda: labs_table(""),
    ("solutions/README.md", "grader-strength"): strength_table,
    ("solutions/wrong/README.md", "wrong-solutions"): wrong_table,
}


def rewrite(text, name, rows):
    begin = f"<!-- begin generated: {name} (make docs) -->"
    end = f"<!-- end generated: {name} -->"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        return None
    return pattern.sub(lambda m: begin + "\n" + "\n".join(rows) + "\n" + end, text)


def main(argv):
    if argv[1:] not in (["--write"], ["--check"]):
        print("usage: tables.py --write | --check", file=sys.stderr)
        return 2
    stale = 0
    for (path, name), make in BLOCKS.items():
        text = read(path)
        new = rewrite(text, name, make())
        if new is None:
            print(f"FAIL docs: {path} has no generated block '{name}'")
            stale += 1
        elif new != text and argv[1] == "--check":
            print(f"FAIL docs: {path}: the '{name}' table is out of date: run make docs")
            stale += 1
        elif new != text:
            with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
                f.write(new)
            print(f"  wrote the '{name}' table in {path}")
        elif argv[1] == "--check":
            print(f"PASS docs: {path}: the '{name}' table matches the tree")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
