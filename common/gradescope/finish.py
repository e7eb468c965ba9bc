#!/usr/bin/env python3
"""Gradescope's final touches to a graded submission's results.json.

    finish.py --check CONF [TESTS]
    finish.py CONF GRADED_DIR RESULTS_JSON

CONF is autograder.conf (KEY=VALUE lines, # comments; read, never run).
--check: exit 2, naming the line, when a setting is not valid; with TESTS
("lab test" lines, written by setup.sh from the graders' --list), also
when a VISIBILITY key names a lab or a test the suite does not have.
Otherwise reads GRADED_DIR (the work folder of submissions.sh one --template: results.json,
summary.tsv, status, warnings.txt) and writes RESULTS_JSON with:
  - each test's "visibility": VISIBILITY.<lab>.<test>, else
    VISIBILITY.<lab>, else VISIBILITY (visible);  <lab> is ex01 or its
    full folder name;
  - "stdout_visibility" (STDOUT_VISIBILITY, hidden);
  - a top-level "output": OUTPUT, then a line per lab (score, what
    happened), then the compiler's warnings on the student files and what
    unpacking skipped; "output_format": "text".
Each test's own output is the harness's and is kept as it is.
"""
import json
import os
import re
import sys

VISIBILITIES = ('visible', 'hidden', 'after_due_date', 'after_published')
KEYS = re.compile(r'^(LAB|SUB_TIMEOUT|LAB_TIMEOUT|STUDENT_WERROR|WERROR|VISIBILITY'
                  r'(\.[A-Za-z0-9_]+([./][A-Za-z0-9_]+)?)?|STDOUT_VISIBILITY|OUTPUT)$')
STATES = {
    'graded': 'graded',
    'missing': 'its student file was not found (see its tests)',
    'build-error': 'did not build (see its tests for the compiler messages)',
    'timeout': 'ran out of time (see its tests)',
    'error': 'could not be graded (see its tests)',
}


def read_conf(path):
    """[(line_number, key, value)]; raises ValueError on a bad line."""
    entries = []
    for n, raw in enumerate(open(path, encoding='utf-8'), 1):
        line = raw.strip()
        if not line or line.startswith('#'):
            continue
        if '=' not in line:
            raise ValueError('%s:%d: not KEY=VALUE: %s' % (path, n, line))
        key, value = (p.strip() for p in line.split('=', 1))
        if not KEYS.match(key):
            raise ValueError('%s:%d: unknown setting %s' % (path, n, key))
        entries.append((n, key, value))
    return entries


def check(entries, path):
    for n, key, value in entries:
        bad = None
        if key.startswith('VISIBILITY') or key == 'STDOUT_VISIBILITY':
            if value not in VISIBILITIES:
                bad = 'must be one of ' + ', '.join(VISIBILITIES)
        elif key == 'SUB_TIMEOUT' and value and not re.match(r'^[1-9][0-9]*$', value):
            bad = 'must be whole seconds'
        elif key == 'LAB_TIMEOUT' and value and not re.match(
                r'^(([a-z]+[0-9]+:)?[1-9][0-9]*)(,([a-z]+[0-9]+:)?[1-9][0-9]*)*$', value):
            bad = 'must be seconds, or exNN:seconds items, comma-separated'
        elif key in ('STUDENT_WERROR', 'WERROR') and value not in ('0', '1', ''):
            bad = 'must be 0 or 1'
        if bad:
            raise ValueError('%s:%d: %s=%s: %s' % (path, n, key, value, bad))


def visibility_for(settings, test_name):
    lab, _, test = test_name.partition('/')
    short = lab.split('_')[0]
    for key in ('VISIBILITY.%s.%s' % (short, test), 'VISIBILITY.%s.%s' % (lab, test),
                'VISIBILITY.%s/%s' % (short, test), 'VISIBILITY.%s/%s' % (lab, test),
                'VISIBILITY.%s' % short, 'VISIBILITY.%s' % lab, 'VISIBILITY'):
        if settings.get(key):
            return settings[key]
    return 'visible'


def summary(settings, graded):
    lines = []
    if settings.get('OUTPUT'):
        lines += [settings['OUTPUT'], '']
    path = os.path.join(graded, 'summary.tsv')
    total = top = 0
    for row in open(path, encoding='utf-8', errors='replace') if os.path.isfile(path) else []:
        f = row.rstrip('\n').split('\t')
        if len(f) != 4:
            continue
        score, most = int(f[1] or 0), int(f[2] or 0)
        total, top = total + score, top + most
        lines.append('%-22s %3d/%-3d %s' % (f[0], score, most, STATES.get(f[3], f[3])))
    lines.append('%-22s %3d/%-3d' % ('total', total, top))
    try:
        notes = open(os.path.join(graded, 'warnings.txt'), encoding='utf-8', errors='replace').read()
    except OSError:
        notes = ''
    if notes.strip():
        werror = settings.get('STUDENT_WERROR') == '1'
        lines += ['', 'Notes on your submission (the compiler\'s messages, and '
                  'any time limit reached)%s:'
                  % ('; a compiler warning fails the build here' if werror
                     else '; a warning alone costs no points'),
                  notes[:8000].rstrip()]
    return '\n'.join(lines) + '\n'


def check_names(entries, path, tests_path):
    """VISIBILITY.<lab>[.<test>] must name a lab and a test the suite has
    (TESTS_PATH: "lab test" lines): a misspelt name would leave a test
    visible that the instructor meant to hide."""
    tests = {}
    for line in open(tests_path, encoding='utf-8'):
        if line.split():
            lab, test = line.split()[:2]
            tests.setdefault(lab, set()).add(test)
            tests.setdefault(lab.split('_')[0], set()).add(test)
    for n, key, _ in entries:
        m = re.match(r'^VISIBILITY[.]([A-Za-z0-9_]+)(?:[./]([A-Za-z0-9_]+))?$', key)
        if not m:
            continue
        lab, test = m.groups()
        if lab not in tests:
            raise ValueError('%s:%d: %s: no lab %s in this assignment (its labs: %s)'
                             % (path, n, key, lab, ', '.join(sorted(
                                 l for l in tests if '_' not in l))))
        if test and test not in tests[lab]:
            raise ValueError('%s:%d: %s: %s has no test %s (its tests: '
                             'build/grader/%s --list)'
                             % (path, n, key, lab, test, lab.split('_')[0]))


def main(argv):
    if len(argv) in (3, 4) and argv[1] == '--check':
        try:
            entries = read_conf(argv[2])
            check(entries, argv[2])
            if len(argv) == 4:
                check_names(entries, argv[2], argv[3])
        except (ValueError, OSError) as e:
            print('autograder.conf: %s' % e, file=sys.stderr)
            return 2
        return 0
    if len(argv) != 4:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    conf, graded, out = argv[1:]
    try:
        entries = read_conf(conf)
        check(entries, conf)
    except (ValueError, OSError) as e:
        print('finish.py: %s; using the defaults' % e, file=sys.stderr)
        entries = []
    settings = {key: value for _, key, value in entries}
    results = json.load(open(os.path.join(graded, 'results.json'), encoding='utf-8'))
    for test in results.get('tests', []):
        test['visibility'] = visibility_for(settings, test.get('name', ''))
    results['stdout_visibility'] = settings.get('STDOUT_VISIBILITY') or 'hidden'
    results['output'] = summary(settings, graded)
    results['output_format'] = 'text'
    with open(out + '.tmp', 'w', encoding='utf-8') as f:
        json.dump(results, f, indent=1)
        f.write('\n')
    os.replace(out + '.tmp', out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
