#!/usr/bin/env python3
"""Merges every graded lab of every submission into the roster.

    roster.py OUT_BASE latest|best

OUT_BASE/<name>/<labs>/summary.tsv (lab, score, max, state) is one
grading run of some labs of one submission (grade-all LAB=ex01, then
LAB=ex02, ...); earlier runs of the same labs are <labs>@<time>/.  For each submission and lab the roster keeps the latest
run's result (the newest summary.tsv) or the best score (ties: the
latest).  Writes OUT_BASE/roster.csv (submission, one column per lab,
total, status: the statuses of the runs kept, "ok" when all were) and
OUT_BASE/grades.csv (student_id,total: what Canvas or Moodle import maps to
a grade column).  Exit 0, 1 when nothing was graded, 2 on usage.
"""
import csv
import os
import sys


def runs(base):
    """(name, mtime, run_dir, rows) for every graded run under base."""
    for name in sorted(os.listdir(base)):
        top = os.path.join(base, name)
        if name.startswith('.') or not os.path.isdir(top):
            continue
        for tag in sorted(os.listdir(top)):
            summary = os.path.join(top, tag, 'summary.tsv')
            if not os.path.isfile(summary):
                continue
            rows = []
            for line in open(summary, encoding='utf-8', errors='replace'):
                f = line.rstrip('\n').split('\t')
                if len(f) == 4 and f[1].isdigit() and f[2].isdigit():
                    rows.append((f[0], int(f[1]), int(f[2]), f[3]))
            yield name, os.path.getmtime(summary), os.path.join(top, tag), rows


def choose(base, keep):
    """{name: {lab: (score, max, mtime, run_dir)}}"""
    kept = {}
    for name, mtime, run_dir, rows in runs(base):
        labs = kept.setdefault(name, {})
        for lab, score, top, _state in rows:
            old = labs.get(lab)
            newer = old is None or mtime >= old[2]
            better = old is None or score > old[0] or (score == old[0] and newer)
            if (keep == 'best' and better) or (keep == 'latest' and newer):
                labs[lab] = (score, top, mtime, run_dir)
    return kept


def status_of(run_dirs):
    words = []
    for d in sorted(run_dirs):
        try:
            text = open(os.path.join(d, 'status'), encoding='utf-8').read().strip()
        except OSError:
            text = 'error'
        for w in text.split('+'):
            if w and w != 'ok' and w not in words:
                words.append(w)
    return '+'.join(words) or 'ok'


def main(argv):
    if len(argv) != 3 or argv[2] not in ('latest', 'best') or not os.path.isdir(argv[1]):
        print('usage: roster.py OUT_BASE latest|best', file=sys.stderr)
        return 2
    base, keep = argv[1], argv[2]
    kept = choose(base, keep)
    if not kept:
        print('roster.py: nothing graded in %s' % base, file=sys.stderr)
        return 1
    labs = sorted({lab for per in kept.values() for lab in per})
    with open(os.path.join(base, 'roster.csv.tmp'), 'w', newline='') as f, \
            open(os.path.join(base, 'grades.csv.tmp'), 'w', newline='') as g:
        roster, grades = csv.writer(f, lineterminator='\n'), csv.writer(g, lineterminator='\n')
        roster.writerow(['submission'] + [l.split('_')[0] for l in labs] + ['total', 'status'])
        grades.writerow(['student_id', 'total'])
        for name in sorted(kept):
            per = kept[name]
            scores = [per[l][0] if l in per else '' for l in labs]
            total = sum(s for s in scores if s != '')
            roster.writerow([name] + scores + [total, status_of({v[3] for v in per.values()})])
            grades.writerow([name, total])
    os.replace(os.path.join(base, 'roster.csv.tmp'), os.path.join(base, 'roster.csv'))
    os.replace(os.path.join(base, 'grades.csv.tmp'), os.path.join(base, 'grades.csv'))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
