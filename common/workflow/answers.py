#!/usr/bin/env python3
"""No lab's answer may ship: scans a handout tree for the distinctive lines
of every reference solution.

    answers.py SUITE_DIR HANDOUT_DIR

A reference's distinctive lines are those of solutions/<lab>/<student file>
that are not in the lab's stub, ignoring trivial ones: shorter than 24
characters once blanks are collapsed, without a word of three letters, a
bare declaration ("struct event_base *base;"), or an idiom that three or
more files of the handout share.  Every text file of the handout is
searched; common/workflow/answers-allowed.txt lists the matches that are
allowed and why.  Prints each match; exit 0 none, 1 some, 2 usage.
"""
import os
import re
import sys

from labsinfo import labs_info

MIN_CHARS = 24
IDIOM_FILES = 3
DECLARATION = re.compile(r'^(static |const |struct |unsigned )*[A-Za-z_]\w*( \**\w+)(, \**\w+)*'
                         r'( = arg)?;$')


def norm(line):
    return re.sub(r'\s+', ' ', line.strip())


def trivial(line):
    return (len(line) < MIN_CHARS or not re.search(r'[A-Za-z_]\w\w', line)
            or DECLARATION.match(line) is not None)


def student_files(suite):
    for lab in labs_info(suite):
        yield lab['lab'], lab['student']


def text_files(top):
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in ('.git', 'solutions'))
        for name in sorted(files):
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            data = open(path, 'rb').read()
            if b'\0' not in data:
                yield os.path.relpath(path, top), data.decode('utf-8', 'replace')


def allowed(suite):
    path = os.path.join(suite, 'common', 'workflow', 'answers-allowed.txt')
    pairs = set()
    if os.path.isfile(path):
        for raw in open(path, encoding='utf-8'):
            if raw.startswith('#') or ' | ' not in raw:
                continue
            lab, rest = raw.rstrip('\n').split(' | ', 1)
            line = rest.rsplit(' | ', 1)[0]
            pairs.add((lab.strip(), norm(line)))
    return pairs


def distinctive(suite, handout):
    wanted = {}
    for lab, name in student_files(suite):
        ref = os.path.join(suite, 'solutions', lab, name)
        stub = os.path.join(handout, 'labs', lab, name)
        if not os.path.isfile(ref) or not os.path.isfile(stub):
            continue
        in_stub = {norm(l) for l in open(stub, encoding='utf-8', errors='replace')}
        for number, raw in enumerate(open(ref, encoding='utf-8', errors='replace'), 1):
            line = norm(raw)
            if line not in in_stub and not trivial(line):
                wanted.setdefault(line, (lab, name, number))
    return wanted


def main(argv):
    if len(argv) != 3 or not os.path.isdir(argv[1]) or not os.path.isdir(argv[2]):
        print('usage: answers.py SUITE_DIR HANDOUT_DIR', file=sys.stderr)
        return 2
    suite, handout = argv[1], argv[2]
    wanted = distinctive(suite, handout)
    ok = allowed(suite)
    files = list(text_files(handout))
    seen_in = {}
    for path, text in files:
        for line in {norm(l) for l in text.splitlines()} & wanted.keys():
            seen_in.setdefault(line, set()).add(path)
    hits = 0
    for path, text in files:
        for number, raw in enumerate(text.splitlines(), 1):
            line = norm(raw)
            if line not in wanted or len(seen_in[line]) >= IDIOM_FILES:
                continue
            lab, name, ref_line = wanted[line]
            if (lab, line) in ok:
                continue
            hits += 1
            print('%s:%d: a line of solutions/%s/%s:%d: %s'
                  % (path, number, lab, name, ref_line, line[:100]))
    print('answers: %d reference lines checked in %d files: %d found'
          % (len(wanted), len(files), hits), file=sys.stderr)
    return 1 if hits else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
