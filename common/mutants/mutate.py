#!/usr/bin/env python3
"""mutate: one small change at a time to a C file, each written as a patch.

    mutate.py SOURCE LABEL OUT_DIR [--sample N --seed S]

Writes OUT_DIR/<id>.patch for every mutant of SOURCE (a unified diff with
a/LABEL and b/LABEL, the same format as solutions/wrong/), and prints one
line per mutant: "<id> <line> <operator> <what changed>".

A mutant id is the operator and a hash of the line it changes and the change
itself, so it stays the same when unrelated lines move; equivalence lists
(solutions/mutants/<lab>.equiv) name mutants by id.

No mutation tool for C is packaged for Debian 12 (mull needs an LLVM it does
not ship), so this is a small one.  It reads the code line by line and
changes only code: comments, strings, character constants and preprocessor
lines are left alone.
"""
import difflib
import hashlib
import random
import re
import sys

# ---- reading the code: which characters of a line are code ----------------


def code_masks(lines):
    """For each line, a list of booleans: True where the character is code
    (not inside a comment, string or character constant)."""
    masks, in_comment = [], False
    for line in lines:
        mask, i = [False] * len(line), 0
        in_str = None
        while i < len(line):
            two = line[i:i + 2]
            if in_comment:
                if two == "*/":
                    in_comment, i = False, i + 2
                    continue
            elif in_str:
                if line[i] == "\\":
                    i += 2
                    continue
                if line[i] == in_str:
                    in_str = None
            elif two == "/*":
                in_comment, i = True, i + 2
                continue
            elif two == "//":
                break
            elif line[i] in "\"'":
                in_str = line[i]
            else:
                mask[i] = True
            i += 1
        if line.lstrip().startswith("#"):
            mask = [False] * len(line)
        masks.append(mask)
    return masks


def code_matches(pattern, line, mask):
    """Matches of pattern that lie wholly in code."""
    for m in re.finditer(pattern, line):
        if all(mask[m.start():m.end()]):
            yield m


# ---- operators: each yields (operator, new_line) for one line --------------

SWAPS = [
    ("rel", r"(?<![<>=!-])<=", "<"),
    ("rel", r"(?<![<>=!-])>=", ">"),
    ("rel", r"(?<![<>-])<(?![<=])", "<="),
    ("rel", r"(?<![<>-])>(?![>=])", ">="),
    ("rel", r"==", "!="),
    ("rel", r"!=", "=="),
    ("logic", r"&&", "||"),
    ("logic", r"\|\|", "&&"),
    ("logic", r"!(?=[A-Za-z_(])", ""),
    ("arith", r"(?<=\s)\+(?=\s)", "-"),
    ("arith", r"(?<=\s)-(?=\s)", "+"),
    ("arith", r"\+\+", "--"),
    ("arith", r"--", "++"),
    ("const", r"(?<![\w.])0(?![\w.])", "1"),
    ("const", r"(?<![\w.])1(?![\w.])", "0"),
    ("call", r"\bevent_free\(", "event_del("),
    ("call", r"\bpthread_cond_broadcast\(", "pthread_cond_signal("),
    ("call", r"\bevent_base_loopcontinue\([^;]*\)", "0"),
]


def swap_mutants(line, mask):
    for op, pattern, repl in SWAPS:
        for m in code_matches(pattern, line, mask):
            # "a->b" is not a comparison, "-1" is a constant, not arithmetic.
            if op == "rel" and line[max(0, m.start() - 1)] == "-":
                continue
            yield op, line[:m.start()] + repl + line[m.end():]


DECL = re.compile(r"^\s*(const\s+|static\s+|struct\s+\w+\s*\*?\s*\w+\s*[=;]|"
                  r"(unsigned|int|long|size_t|bool|double|char|int64_t|"
                  r"uint64_t|uint8_t|short|float|void|ssize_t)\b)")
SIMPLE_STMT = re.compile(r"^\s+[A-Za-z_*(][^{};]*;\s*$")
CONTROL = re.compile(r"^\s*(return|if|else|for|while|do|switch|case|break|"
                     r"continue|goto|default)\b")


def is_simple_statement(line, mask):
    """A whole call or assignment on one line, not a declaration or control."""
    if not SIMPLE_STMT.match(line) or CONTROL.match(line) or DECL.match(line):
        return False
    code = "".join(c for c, k in zip(line, mask) if k)
    return code.count("(") == code.count(")") and code.strip().endswith(";")


def line_mutants(lines, masks, i):
    """Every mutant that changes line i (and, for a swap, line i + 1)."""
    line, mask = lines[i], masks[i]
    for op, new in swap_mutants(line, mask):
        yield op, {i: new}
    # "(void)arg;" only silences a warning: deleting it changes nothing.
    if is_simple_statement(line, mask) and not line.lstrip().startswith("(void)"):
        indent = line[:len(line) - len(line.lstrip())]
        yield "delete", {i: indent + ";"}
        nxt = i + 1
        if (nxt < len(lines) and is_simple_statement(lines[nxt], masks[nxt])
                and lines[nxt][:len(indent)] == indent
                and not lines[nxt][len(indent)].isspace()):
            yield "reorder", {i: lines[nxt], nxt: line}
    m = re.match(r"^(\s*)while \((.*)\)$", line)
    if m and i + 1 < len(lines) and "pthread_cond_wait" in lines[i + 1]:
        yield "call", {i: f"{m.group(1)}if ({m.group(2)})"}


# ---- output ------------------------------------------------------------------


def mutant_id(op, lines, change):
    key = op + "|" + "|".join(f"{lines[k]}>{v}" for k, v in sorted(change.items()))
    return f"{op}-{hashlib.sha1(key.encode()).hexdigest()[:8]}"


def patch_text(lines, change, label):
    new = list(lines)
    for k, v in change.items():
        new[k] = v
    diff = difflib.unified_diff([l + "\n" for l in lines], [l + "\n" for l in new],
                                f"a/{label}", f"b/{label}", n=3)
    return "".join(diff)


def all_mutants(lines):
    masks = code_masks(lines)
    seen = set()
    for i in range(len(lines)):
        for op, change in line_mutants(lines, masks, i):
            mid = mutant_id(op, lines, change)
            if mid in seen:
                continue
            seen.add(mid)
            yield mid, i + 1, op, change


def main(argv):
    args = argv[1:]
    sample, seed = None, 1
    if "--sample" in args:
        k = args.index("--sample")
        sample = int(args[k + 1])
        del args[k:k + 2]
    if "--seed" in args:
        k = args.index("--seed")
        seed = int(args[k + 1])
        del args[k:k + 2]
    if len(args) != 3:
        print("usage: mutate.py SOURCE LABEL OUT_DIR [--sample N] [--seed S]",
              file=sys.stderr)
        return 2
    source, label, out_dir = args
    lines = open(source, encoding="utf-8").read().splitlines()
    mutants = list(all_mutants(lines))
    if sample is not None and sample < len(mutants):
        mutants = sorted(random.Random(seed).sample(mutants, sample),
                         key=lambda m: m[1])
    for mid, line_no, op, change in mutants:
        with open(f"{out_dir}/{mid}.patch", "w", encoding="utf-8") as f:
            f.write(patch_text(lines, change, label))
        k = min(change)
        what = f"{lines[k].strip()} -> {change[k].strip()}"
        print(f"{mid} {line_no} {op} {what[:100]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
