#!/usr/bin/env python3
"""The include rules of docs/architecture.md, checked on the built tree.

    check_layers.py SOURCE_ROOT BUILD_DIR

Every #include "..." of the project's C files is resolved as the compiler
resolves it: the including file's folder first, then the -I folders of the
translation unit that reaches it (from BUILD_DIR/compile_commands.json).
Three rules, each from the table below:

  - layers: inside a side, a folder includes headers only of its own folder
    and of the folders before it in that side's list, never of one after
    (but the side's port, whose files may include any of its folders);
  - private: no file outside a private folder includes a header from it;
  - no circle: in a side checked for circles, no two files depend on each
    other, through calls and data (a symbol one object file leaves undefined
    and another defines, read with nm) or through a header that is code of
    its own (no .c beside it, or a function defined inline), a file being
    its .c and its .h together.

Each violation is said on one line; the status is 1 if there is any, 2 if
the build directory cannot be read.
"""
import json
import os
import re
import shlex
import subprocess
import sys

# ---- the rules: one entry a side -------------------------------------------
#
# layers: the side's folders (relative to the side's root), lowest first; "."
#   is the side's root itself.  A folder not listed is an error, so that a
#   new folder gets its place.
# port: a folder of the side whose own files may include any of the side's
#   folders (everything may include it: it is first in the layers).
# private: whether files outside the side may include its headers;
#   seen_by: the exceptions, a path (file or folder) -> the side's folders it
#   may include from (None: any).
# acyclic: whether the side's files may depend on each other in a circle.
#
# The shim's folders are listed in the order of the data path, from what
# every part stands on (the port's interface, the shared state) up to what
# drives the rest (start-up, the interposed libc calls, then entry.c).  The
# port (arch/) is the one exception to the order, in one direction only:
# every folder may include its interface (arch.h), and its files, each the
# machine's half of one stage (the stubs of count/, the translator of
# steps/), may include that stage's headers.  Its calls are held to "no
# circle" like any file's.
RULES = {
    "analyzer": {
        "layers": ["util", "read", "model", "report", "export", "run", "diff", "doubling",
                   "attach", "symbols", "cmd", "."],
        "private": False,
        "acyclic": True,
    },
    # the ELF reader both sides link: its port (arch/<cpu>/insn.c, the patch
    # planner) under the same rule as the shim's
    "elf": {
        "layers": ["arch", "."],
        "port": "arch",
        "private": False,
        "acyclic": True,
    },
    "preload": {
        "layers": ["arch", "core", "store", "steps", "count", "resolve", "host", "."],
        "port": "arch",
        "private": True,
        "seen_by": {
            # the shim's own unit tests, and the dump writer's
            "tests/unit": None,
        },
        "acyclic": True,
    },
}
# What any file may include: the definitions both sides share.
SHARED = ["include"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A function a header defines (static inline): code the includer runs, as
# much an arrow to the header's file as a call would be.
INLINE = re.compile(r"^static\s+(?:__attribute__\s*\(\(.*?\)\)\s+)?inline\b[^;]*?\)\s*\{",
                    re.M | re.S)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_layers.py SOURCE_ROOT BUILD_DIR")
    root = os.path.realpath(sys.argv[1])
    build = os.path.realpath(sys.argv[2])
    try:
        with open(os.path.join(build, "compile_commands.json")) as f:
            commands = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_layers: {build}/compile_commands.json: {e}", file=sys.stderr)
        return 2

    def rel(path):
        return os.path.relpath(path, root)

    def inside(path):
        return not rel(path).startswith("..") and not path.startswith(build + os.sep)

    edges = {}  # file -> set of files it includes (source-tree files only)
    objects = {}  # object file -> its source file

    def scan(path, idirs, seen):
        if path in seen:
            return
        seen.add(path)
        try:
            text = open(path, errors="replace").read()
        except OSError:
            return
        for name in INCLUDE.findall(text):
            for d in [os.path.dirname(path)] + idirs:
                cand = os.path.realpath(os.path.join(d, name))
                if os.path.isfile(cand):
                    break
            else:
                continue  # a system header, or one the build generates elsewhere
            if not inside(cand):
                continue
            edges.setdefault(path, set()).add(cand)
            scan(cand, idirs, seen)

    for c in commands:
        args = c.get("arguments") or shlex.split(c["command"])
        cwd = c["directory"]
        src = os.path.realpath(os.path.join(cwd, c["file"]))
        if not inside(src):
            continue
        idirs = []
        for i, a in enumerate(args):
            d = None
            if a in ("-I", "-iquote", "-isystem") and i + 1 < len(args):
                d = args[i + 1]
            elif a.startswith("-I") and len(a) > 2:
                d = a[2:]
            elif a.startswith("-iquote") and len(a) > 7:
                d = a[7:]
            if d is not None:
                idirs.append(os.path.realpath(os.path.join(cwd, d)))
        if "output" in c:
            objects[os.path.realpath(os.path.join(cwd, c["output"]))] = src
        scan(src, idirs, set())

    problems = []

    def side_of(path):
        r = rel(path)
        top = r.split(os.sep, 1)[0]
        return top if top in RULES else None

    def folder_in(side, path):
        return os.path.dirname(os.path.relpath(path, os.path.join(root, side))) or "."

    def rank(side, folder):
        layers = RULES[side]["layers"]
        # a folder's subfolders (arch/x86_64) share its place; a folder at
        # the side's top that is not listed has none (the side's "." is its
        # root's own files only)
        while folder not in layers and os.sep in folder:
            folder = os.path.dirname(folder)
        return layers.index(folder) if folder in layers else None

    for src, targets in sorted(edges.items()):
        s_side = side_of(src)
        for t in sorted(targets):
            t_side = side_of(t)
            if any(rel(t).startswith(p + os.sep) for p in SHARED):
                continue
            if t_side and t_side != s_side and RULES[t_side]["private"]:
                seen = [folders for path, folders in RULES[t_side].get("seen_by", {}).items()
                        if rel(src) == path or rel(src).startswith(path + os.sep)]
                t_top = folder_in(t_side, t).split(os.sep, 1)[0]
                if seen and (seen[0] is None or t_top in seen[0]):
                    continue
                problems.append(f"{rel(src)}: includes {rel(t)}, private to {t_side}/")
                continue
            if s_side and s_side == t_side and RULES[s_side]["layers"]:
                a = rank(s_side, folder_in(s_side, src))
                b = rank(s_side, folder_in(s_side, t))
                if a is None or b is None:
                    unknown = src if a is None else t
                    problems.append(f"{rel(unknown)}: its folder {folder_in(s_side, unknown)}/ has no "
                                    f"place in the layers of {s_side}/ (tests/style/check_layers.py)")
                elif b > a and folder_in(s_side, src).split(os.sep, 1)[0] != RULES[s_side].get("port"):
                    problems.append(f"{rel(src)}: includes {rel(t)}, a folder above its own "
                                    f"({folder_in(s_side, t)}/ after {folder_in(s_side, src)}/)")

    problems += circles(root, edges, objects, side_of)
    for p in dict.fromkeys(problems):
        print(p)
    if problems:
        print(f"check_layers: {len(set(problems))} violations of the include rules "
              "(docs/architecture.md)", file=sys.stderr)
        return 1
    print(f"check_layers: {len(edges)} files, the include rules kept")
    return 0


def circles(root, edges, objects, side_of):
    """The circles among the files of each side whose rule says acyclic."""
    def unit(path):  # a file's .c and .h are one unit
        return os.path.splitext(os.path.relpath(path, root))[0]

    graph = {}

    def arrow(a, b, why):
        ua, ub = unit(a), unit(b)
        if ua != ub:
            graph.setdefault(ua, {}).setdefault(ub, why)

    checked = {s for s, r in RULES.items() if r["acyclic"]}
    # An include is an arrow when the header is code of its own (types, inline
    # functions: no .c beside it), or defines a function inline (the includer
    # runs its code); a header that only declares a .c file's functions is the
    # arrows nm finds below, to the file that defines what is used.
    def own_code(header):
        if not header.endswith(".h") or not os.path.isfile(header[:-2] + ".c"):
            return True
        try:
            return INLINE.search(open(header, errors="replace").read()) is not None
        except OSError:
            return False

    for src, targets in edges.items():
        if side_of(src) in checked:
            for t in targets:
                if side_of(t) == side_of(src) and own_code(t):
                    arrow(src, t, "includes")
    # calls and data: the symbols an object leaves undefined that another defines
    defined, wanted = {}, {}
    for obj, src in objects.items():
        if side_of(src) not in checked or not os.path.isfile(obj):
            continue
        out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) < 2:
                continue
            if f[1] == "U":
                wanted.setdefault(src, set()).add(f[0])
            elif f[1] in "TDBRWVtdbr" and f[1].isupper():
                defined.setdefault(f[0], set()).add(src)
    for src, syms in wanted.items():
        for sym in syms:
            for d in defined.get(sym, ()):
                if side_of(d) == side_of(src):
                    arrow(src, d, f"uses {sym}")

    # Tarjan's strongly connected components, iteratively
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = n[0]
        n[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]
                    n[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    members = set(comp)
                    arrows = [f"{a} -> {b} ({graph[a][b]})" for a in sorted(members)
                              for b in sorted(graph.get(a, {})) if b in members]
                    out.append("a circle of files: " + "; ".join(arrows))
    return out


if __name__ == "__main__":
    sys.exit(main())
