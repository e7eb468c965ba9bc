#!/usr/bin/env python3
"""Every measured figure a README quotes is checked against the committed CSV.

A figure carries an HTML comment (invisible on GitHub) right after it:

    median lag 1.25 ms<!-- data: ex02_lag_meter_cadence.csv; base=default,yield_every=1; median_lag_ms -->

    data: FILE; FILTER; EXPR[; tol=T]

  FILE    a CSV of data/ (data/mine/ with --data).
  FILTER  col=value pairs, comma separated (a value may hold spaces; a/b
          means a or b), or * for every row.  The rows it selects are the
          figure's rows.
  EXPR    arithmetic (+ - * / parentheses) over the row's columns, numbers,
          and [FILTER]col: a column of the one row another FILTER selects
          (ratios between rows: ns_per_yield / [mechanism=epoll_wait0]ns_per_yield).
          With several rows selected, prefix an aggregate: min: max:
          median: mean: or range: (the figure is written "A–B" and checks
          min and max).  sum: adds the rows up.
  tol     how far the quoted figure may be from the data: an absolute
          value (tol=0.5) or a share of it (tol=10%).  Without it the
          quoted figure must be the data rounded to the digits shown
          (1.3 for 1.25 to 1.35).

The figure is the last number before the comment on its line (commas,
**bold**, a unit and a Unicode minus are ignored).  In a table row a
single comment checks every cell:

    | budget 2 ms | 52 | 105.9 ms | ... <!-- row: ex03_budget_yield_budgets.csv; mechanism=loop,item_us=3,yield=budget 2 ms; _ yields loop_total_ms ... --> |

    row: FILE; FILTER; E1 E2 ...   one expression per cell, left to right
                                   (no spaces inside one; _ skips a cell)

A table row in a section on measured numbers (see MEASURED_SECTIONS) that
shows a figure with a unit must carry a row: comment, or say where its
figures come from instead with <!-- not measured here: why -->.

Usage: readme_numbers.py [--data DIR] README...   prints PASS/FAIL lines
       readme_numbers.py [--data DIR] --fix README...  rewrites each marked
           figure from the data (same digits), for after a make data
       readme_numbers.py --eval FILE 'FILTER' 'EXPR'  prints the value
"""
import csv
import math
import os
import re
import statistics
import sys

MEASURED_SECTIONS = re.compile(r"numbers from this machine|this machine's figures",
                               re.I)
MARKER = re.compile(r"<!--\s*(data|row):\s*(.*?)\s*-->")
EXEMPT = re.compile(r"<!--\s*not measured here:")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?|-?\.\d+")
UNIT_FIGURE = re.compile(r"\d\s*(?:ms|s|µs|us|ns|%|×)(?![a-z])")


class DataError(Exception):
    pass


class Table:
    """One CSV: '#' lines, a header row, data rows."""
    cache = {}

    @classmethod
    def load(cls, data_dir, name):
        path = os.path.join(data_dir, name)
        if path not in cls.cache:
            if not os.path.isfile(path):
                raise DataError(f"{path}: no such file")
            with open(path, encoding="utf-8") as f:
                lines = [l for l in f if not l.startswith("#") and l.strip()]
            rows = list(csv.reader(lines))
            cls.cache[path] = (rows[0], [dict(zip(rows[0], r)) for r in rows[1:]])
        return cls.cache[path]


def parse_filter(text):
    text = text.strip()
    if text in ("", "*"):
        return []
    pairs = []
    for part in text.split(","):
        if "=" not in part:
            raise DataError(f"filter '{text}': '{part}' is not col=value")
        col, val = part.split("=", 1)
        pairs.append((col.strip(), val.strip()))
    return pairs


def select(header, rows, flt, where):
    for col, _ in flt:
        if col not in header:
            raise DataError(f"{where}: no column '{col}' (columns: {','.join(header)})")
    return [r for r in rows if all(r[c] in v.split("/") for c, v in flt)]


class Expr:
    """A tiny recursive-descent evaluator: + - * / ( ) numbers columns [ref]col."""
    TOKEN = re.compile(r"\s*(\[[^\]]*\][A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*|"
                       r"\d+(?:\.\d*)?|\.\d+|[-+*/()])")

    def __init__(self, text, header, rows, where):
        self.text, self.header, self.rows, self.where = text, header, rows, where
        self.toks, pos = [], 0
        while pos < len(text):
            m = self.TOKEN.match(text, pos)
            if not m:
                raise DataError(f"{where}: cannot read expression '{text}'")
            self.toks.append(m.group(1))
            pos = m.end()
            if text[pos:].strip() == "":
                break

    def value(self, row):
        self.i, self.row = 0, row
        v = self.sum()
        if self.i != len(self.toks):
            raise DataError(f"{self.where}: trailing '{self.toks[self.i]}' in '{self.text}'")
        return v

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def sum(self):
        v = self.product()
        while self.peek() in ("+", "-"):
            op = self.toks[self.i]
            self.i += 1
            w = self.product()
            v = v + w if op == "+" else v - w
        return v

    def product(self):
        v = self.atom()
        while self.peek() in ("*", "/"):
            op = self.toks[self.i]
            self.i += 1
            w = self.atom()
            v = v * w if op == "*" else v / w
        return v

    def atom(self):
        t = self.peek()
        if t is None:
            raise DataError(f"{self.where}: '{self.text}' ends too early")
        self.i += 1
        if t == "(":
            v = self.sum()
            self.i += 1
            return v
        if t == "-":
            return -self.atom()
        if t[0].isdigit() or t[0] == ".":
            return float(t)
        if t[0] == "[":
            ref, col = t[1:].split("]", 1)
            hits = select(self.header, self.rows, parse_filter(ref), self.where)
            if len(hits) != 1:
                raise DataError(f"{self.where}: [{ref}] selects {len(hits)} rows, not 1")
            return self.column(hits[0], col)
        return self.column(self.row, t)

    def column(self, row, col):
        if col not in row:
            raise DataError(f"{self.where}: no column '{col}'")
        try:
            return float(row[col])
        except ValueError:
            raise DataError(f"{self.where}: column '{col}' holds '{row[col]}', not a number")


AGGREGATES = {"min": min, "max": max, "median": statistics.median,
              "mean": statistics.mean, "sum": sum}


def evaluate(data_dir, fname, ftext, etext, where):
    """The value(s) an expression gives: a list of one, or two for range:."""
    header, rows = Table.load(data_dir, fname)
    hits = select(header, rows, parse_filter(ftext), where)
    if not hits:
        raise DataError(f"{where}: {fname}: no row where {ftext}")
    agg = None
    m = re.match(r"(min|max|median|mean|sum|range):(.*)", etext.strip())
    if m:
        agg, etext = m.group(1), m.group(2)
    expr = Expr(etext, header, rows, where)
    values = [expr.value(r) for r in hits]
    if agg is None:
        if len(values) != 1:
            raise DataError(f"{where}: {ftext} selects {len(values)} rows; "
                            "name one, or use min:/max:/median:/range:")
        return values
    if agg == "range":
        return [min(values), max(values)]
    return [AGGREGATES[agg](values)]


def quoted_numbers(text):
    """The numbers written in text, in order (commas, bold and − handled)."""
    text = text.replace("−", "-").replace("**", "")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    text = re.sub(r"(?<=\d)\s*[–-]\s*(?=\d)", " ", text)   # a range A–B
    return [(m.group(0), float(m.group(0))) for m in NUMBER.finditer(text)]


def close_enough(shown, written, value, tol):
    if tol is not None:
        if tol.endswith("%"):
            return abs(written - value) <= abs(value) * float(tol[:-1]) / 100 + 1e-12
        return abs(written - value) <= float(tol) + 1e-12
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return abs(written - value) <= 0.5 * 10 ** -decimals * (1 + 1e-9) + 1e-12


SPAN = re.compile(r"−?-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def rewrite(text, values):
    """text with its last len(values) numbers replaced by values, written
    with the same decimals (and thousands commas) as before."""
    spans = list(SPAN.finditer(text))[-len(values):] if values else []
    if len(spans) < len(values):
        return text
    out, last = [], 0
    for m, v in zip(spans, values):
        old = m.group(0)
        body = old.replace(",", "").replace("−", "-")
        decimals = len(body.split(".")[1]) if "." in body else 0
        new = f"{v:,.{decimals}f}" if "," in old else f"{v:.{decimals}f}"
        if old.startswith("−"):
            new = new.replace("-", "−", 1)
        out += [text[last:m.start()], new]
        last = m.end()
    return "".join(out) + text[last:]


def fix_line(line, data_dir, where):
    """The line with every marked figure rewritten from the data: first the
    figure before each data: marker, then the cells of a row: marker."""
    out, last = [], 0
    for m in MARKER.finditer(line):
        seg = line[last:m.start()]
        if m.group(1) == "data":
            parts = [p.strip() for p in m.group(2).split(";")]
            seg = rewrite(seg, evaluate(data_dir, parts[0], parts[1], parts[2], where))
        out += [seg, m.group(0)]
        last = m.end()
    line = "".join(out) + line[last:]
    rows = [m for m in MARKER.finditer(line) if m.group(1) == "row"]
    if not rows:
        return line
    head, tail = line[:rows[0].start()], line[rows[0].start():]
    cells = head.split("|")
    first = 1 if head.lstrip().startswith("|") else 0
    for r in rows:
        rparts = [p.strip() for p in r.group(2).split(";")]
        for n, e in enumerate(rparts[2].split()):
            if e == "_" or first + n >= len(cells):
                continue
            values = evaluate(data_dir, rparts[0], rparts[1], e, where)
            cell = cells[first + n]
            visible = MARKER.split(cell)[0] if MARKER.search(cell) else cell
            nums = list(SPAN.finditer(visible))[:len(values)]
            if nums:
                cut = nums[-1].end()
                cells[first + n] = rewrite(cell[:cut], values) + cell[cut:]
    return "|".join(cells) + tail


def fmt(v):
    return f"{v:.6g}"


def check_figure(shown_list, values, tol, where):
    if len(shown_list) < len(values):
        return [f"{where}: expected {len(values)} number(s) before the marker"]
    pairs = zip(shown_list[-len(values):], values)
    return [f"{where}: written {s}, the data says {fmt(v)}"
            for (s, w), v in pairs if not close_enough(s, w, v, tol)]


def check_data_marker(body, before, data_dir, where):
    parts = [p.strip() for p in body.split(";")]
    if len(parts) not in (3, 4):
        return [f"{where}: 'data: FILE; FILTER; EXPR[; tol=T]' expected, got '{body}'"]
    tol = parts[3].split("=", 1)[1] if len(parts) == 4 else None
    values = evaluate(data_dir, parts[0], parts[1], parts[2], where)
    return check_figure(quoted_numbers(before), values, tol, where)


def check_row_marker(body, line, data_dir, where):
    parts = [p.strip() for p in body.split(";")]
    if len(parts) not in (3, 4):
        return [f"{where}: 'row: FILE; FILTER; E1 E2 ...[; tol=T]' expected"]
    tol = parts[3].split("=", 1)[1] if len(parts) == 4 else None
    cells = [c for c in MARKER.sub("", line).strip().strip("|").split("|")]
    exprs = parts[2].split()
    if len(exprs) > len(cells):
        return [f"{where}: {len(exprs)} expressions for {len(cells)} cells"]
    errors = []
    for n, (cell, e) in enumerate(zip(cells, exprs), 1):
        if e == "_":
            continue
        values = evaluate(data_dir, parts[0], parts[1], e, f"{where} cell {n}")
        nums = quoted_numbers(cell)
        # the figure is the first number of the cell (two for a range)
        errors += check_figure(nums[:len(values)], values, tol, f"{where} cell {n}")
    return errors


def check_readme(path, data_dir):
    errors, figures, section = [], 0, ""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = False
    for lineno, line in enumerate(lines, 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        if line.startswith("#"):
            section = line
        where = f"{path}:{lineno}"
        markers = list(MARKER.finditer(line))
        for m in markers:
            try:
                if m.group(1) == "data":
                    before = MARKER.sub("", line[:m.start()])
                    errors += check_data_marker(m.group(2), before, data_dir, where)
                    figures += 1
                else:
                    errors += check_row_marker(m.group(2), line, data_dir, where)
                    figures += sum(1 for e in m.group(2).split(";")[2].split() if e != "_")
            except DataError as e:
                errors.append(str(e))
        if (not markers and MEASURED_SECTIONS.search(section) and line.startswith("|")
                and UNIT_FIGURE.search(line) and not EXEMPT.search(line)
                and not re.match(r"\|[\s|:-]*$", line)):
            errors.append(f"{where}: a figure with no data: or row: marker "
                          "(or <!-- not measured here: ... -->)")
    return errors, figures


def main(argv):
    data_dir = "data"
    if argv[:1] == ["--data"]:
        data_dir, argv = argv[1], argv[2:]
    if argv[:1] == ["--fix"]:
        for path in argv[1:]:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            try:
                lines = [fix_line(l, data_dir, f"{path}:{i}") for i, l in enumerate(lines, 1)]
            except DataError as e:
                print(e, file=sys.stderr)
                return 1
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
        return 0
    if argv[:1] == ["--eval"]:
        try:
            print(" ".join(fmt(v) for v in evaluate(data_dir, argv[1], argv[2], argv[3], "eval")))
        except DataError as e:
            print(e, file=sys.stderr)
            return 1
        return 0
    status = 0
    for path in argv:
        errors, figures = check_readme(path, data_dir)
        if errors:
            status = 1
            for e in errors:
                print(f"FAIL readme numbers: {e}")
        else:
            print(f"PASS readme numbers: {path}: {figures} figures match {data_dir}/")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
