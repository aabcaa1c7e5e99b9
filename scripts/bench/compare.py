#!/usr/bin/env python3
"""The tables of scripts/bench-compare.sh: every figure of one benchmark's
runs on two builds, side by side, and whether the new build's are within the
noise of the base build's.

    compare.py DIR NAME REPEATS [NOTE]  the table of NAME, from its runs in DIR
    compare.py --summary DIR        what the tables found, over all of them

DIR holds, for each run R (1 to REPEATS) of each build B (base, new):
NAME.B.R.out (the benchmark's output), NAME.B.R.status (its exit status) and
NAME.B.R.load (the load average before it).  A figure is a number of a line
of the output, known by the line's text up to its first number, the section
it is in (the unindented line above), the how-many-th such line it is, and
the number's place in the line; lines that name the load average are left
out (they say what the machine did, not the code).  The runs where a line
has as many numbers as in most runs are compared; a line without figures, or
that a build never has so, is compared by its presence (a row shown in some
runs only, a word that changed); words that change with the figures ("met",
"NOT met") are not compared, the figures are.
"""

import math
import os
import re
import statistics
import sys

# a number, 1,234 and +1.5 and +inf included, or a lone "-" (none, as 0)
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])"
                    r"|(?<![\w.])[-+]?inf\b|(?<!\S)-(?!\S)")
BUILDS = ("base", "new")


def figures(path):
    """{key: (line, [number text, ...])} of one output, a line's key its
    section (the unindented line above it), its text up to its first number
    and the how-many-th such line it is."""
    seen, out, section = {}, {}, ""
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip()
            if not line.strip() or "load" in line.lower():
                continue
            numbers = NUMBER.findall(line)
            m = NUMBER.search(line)
            prefix = " ".join(line[:m.start() if m else len(line)].split())
            if not line[0].isspace():
                section = ""
            key = (section, prefix)
            if not line[0].isspace():
                section = prefix
            k = seen.get(key, 0)
            seen[key] = k + 1
            out[key + (k,)] = (line, numbers)
    return out


def skeleton(line, index):
    """The line up to the end of its index-th number, the numbers as #."""
    end = [m.end() for m in NUMBER.finditer(line)][index]
    return " ".join(NUMBER.sub("#", line[:end]).split())


def value(text):
    return 0.0 if text == "-" else float(text.replace(",", ""))


def decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


def label(line, index, width=58):
    """The line with its index-th number in brackets, cut to width around it."""
    spans = [m.span() for m in NUMBER.finditer(line)]
    a, b = spans[index]
    text = " ".join((line[:a] + "[" + line[a:b] + "]" + line[b:]).split())
    at = text.index("[")
    if len(text) > width:
        start = max(0, min(at - width // 2, len(text) - width))
        text = ("..." if start else "") + text[start:start + width] + "..."
        text = text[:width + 6]
    return text


def show(values):
    return " ".join(values) if values else "-"


def verdict(base, new):
    """'=' (the same in every run), 'ok' (within the noise, or a build has one
    run of this figure only) or 'MOVED', and the noise."""
    texts = base + new
    if len(set(texts)) == 1:
        return "=", 0.0
    if min(len(base), len(new)) < 2:
        # one run of a build has no spread to measure the noise by
        return "ok", 0.0
    b, n = [value(t) for t in base], [value(t) for t in new]
    if any(math.isinf(v) for v in b + n):
        # no spread to measure: moved when each build says one thing, another
        moved = len(set(base)) == 1 and len(set(new)) == 1
        return ("MOVED" if moved else "ok"), 0.0
    unit = 10.0 ** -max(decimals(t) for t in texts)
    noise = max(max(b) - min(b), max(n) - min(n)) + unit
    moved = abs(statistics.median(n) - statistics.median(b)) > noise + unit * 1e-6
    return ("MOVED" if moved else "ok"), noise


def table(out, name, repeats, note=None):
    runs = {(b, r): f"{out}/{name}.{b}.{r}" for b in BUILDS for r in range(1, repeats + 1)}
    got = {k: figures(p + ".out") for k, p in runs.items()}
    status = {k: open(p + ".status").read().strip() for k, p in runs.items()}
    load = {k: open(p + ".load").read().split()[0] for k, p in runs.items()}
    order = []
    for k in runs:
        order += [key for key in got[k] if key not in order]
    counts = {"=": 0, "ok": 0, "MOVED": 0}
    moved = []
    print(f"== {name}: {repeats} runs per build, in turns; load before each:"
          f" base {' '.join(load[('base', r)] for r in range(1, repeats + 1))},"
          f" new {' '.join(load[('new', r)] for r in range(1, repeats + 1))}")
    if note:
        print(f"  ({note})")
    rows = []

    def row(text, base, new, v, noise, aside=""):
        counts[v] += 1
        note = "" if v == "=" else f" (noise {noise:.3g})" if noise else ""
        rows.append((text, show(base), show(new), v + note + aside))
        if v == "MOVED":
            moved.append(f"{name}: {text}: base {show(base)}, new {show(new)}")

    st = {b: [status[(b, r)] for r in range(1, repeats + 1)] for b in BUILDS}
    row("exit status", st["base"], st["new"], "=" if len(set(st["base"] + st["new"])) == 1
        else "MOVED", 0)
    for key in order:
        # the line's shape: how many numbers it has in most runs ("233-287"
        # is one number in a run where both ends are 233); each number is
        # compared in the runs where the line reads the same up to it
        have = [len(got[k][key][1]) for k in runs if key in got[k]]
        shape = max(set(have), key=lambda c: (have.count(c), c))
        first = next(got[k][key] for k in runs if key in got[k] and len(got[k][key][1]) == shape)
        nb, nn = (sum(key in got[(b, r)] for r in range(1, repeats + 1)) for b in BUILDS)
        if not shape or not nb or not nn:
            # a line without figures, or one a build never has: moved when
            # one build always has it and the other never does
            v = ("=" if nb == nn == repeats else
                 "MOVED" if {nb, nn} == {0, repeats} else "ok")
            row(" ".join(first[0].split())[:64],
                [f"in {nb}/{repeats} runs"], [f"in {nn}/{repeats} runs"], v, 0)
            continue
        for i in range(shape):
            # the runs where the line reads the same up to this number
            ref = skeleton(first[0], i)
            at = {b: [got[(b, r)][key] for r in range(1, repeats + 1) if key in got[(b, r)]]
                  for b in BUILDS}
            base, new = ([v[1][i] for v in at[b] if len(v[1]) > i and skeleton(v[0], i) == ref]
                         for b in BUILDS)
            missing = 2 * repeats - len(base) - len(new)
            aside = f" ({missing} runs without it)" if missing else ""
            # a build whose line reads otherwise before this number (a range
            # where the other has one value) has nothing to set beside it
            v, noise = verdict(base, new) if base and new else ("ok", 0.0)
            row(label(first[0], i), base, new, v, noise, aside)
    wb = max(len(r[1]) for r in rows + [("", "base")])
    wn = max(len(r[2]) for r in rows + [("", "", "new")])
    print(f"  {'figure (the line, the number in brackets)':64}  {'base':>{wb}}  {'new':>{wn}}  verdict")
    for text, b, n, v in rows:
        print(f"  {text:64}  {b:>{wb}}  {n:>{wn}}  {v}")
    print()
    with open(f"{out}/{name}.verdict", "w") as f:
        f.write(f"{counts['=']} {counts['ok']} {counts['MOVED']}\n")
        f.writelines(m + "\n" for m in moved)
    return 1 if moved else 0


def summary(out):
    same = ok = n_moved = 0
    moved, names = [], []
    for v in sorted(f for f in os.listdir(out) if f.endswith(".verdict")):
        names.append(v[:-len(".verdict")])
        with open(f"{out}/{v}") as f:
            a, b, c = map(int, f.readline().split())
            same, ok, n_moved = same + a, ok + b, n_moved + c
            moved += [line.rstrip() for line in f]
    print(f"{len(names)} benchmarks, {same + ok + n_moved} figures: {same} the same in every run,"
          f" {ok} within the noise, {n_moved} moved beyond it")
    for m in moved:
        print(f"  MOVED {m}")
    return 1 if moved else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--summary":
        return summary(argv[2])
    if len(argv) in (4, 5) and argv[3].isdigit() and int(argv[3]) > 0:
        return table(argv[1], argv[2], int(argv[3]), *argv[4:])
    print("usage: compare.py DIR NAME REPEATS [NOTE] | compare.py --summary DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
