#!/usr/bin/env python3
"""check_layers.py on small trees made for it: it must find each kind of
violation it is there for, and pass a tree that keeps the rules.

    test_check_layers.py CHECK_LAYERS CC

Each tree is a few C files under preload/ and analyzer/, compiled to
objects with CC, and the compile_commands.json that names them; the
checker's status and lines are compared with what the tree holds.
"""
import json
import os
import subprocess
import sys
import tempfile

CHECK, CC = sys.argv[1], sys.argv[2]


def make_tree(root, files):
    """Write @files (path -> text) under @root, compile each .c, and list them."""
    commands = []
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    build = os.path.join(root, "build")
    os.makedirs(build, exist_ok=True)
    for path in files:
        if not path.endswith(".c"):
            continue
        obj = os.path.join(build, path.replace("/", "_") + ".o")
        side = path.split("/", 1)[0]
        args = [CC, "-I" + os.path.join(root, side), "-c", os.path.join(root, path), "-o", obj]
        subprocess.run(args, check=True)
        commands.append({"directory": build, "arguments": args, "file": os.path.join(root, path),
                         "output": obj})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(commands, f)
    return build


def check(name, files, status, lines):
    """The checker over the tree @files: its status @status, each of @lines in its output."""
    with tempfile.TemporaryDirectory() as root:
        build = make_tree(root, files)
        r = subprocess.run([sys.executable, CHECK, root, build], capture_output=True, text=True)
    out = r.stdout + r.stderr
    missing = [l for l in lines if l not in out]
    if r.returncode != status or missing:
        print(f"FAIL {name}: status {r.returncode} (want {status}), missing {missing}\n{out}")
        return False
    print(f"ok   {name}")
    return True


# a lower folder (core/) and a higher one (host/) of the shim, each a header
# and its .c, and whatever other files a case adds
def shim(core_c, host_c=None, **more):
    files = {"preload/core/a.h": "int core_fn(void);\n", "preload/core/a.c": core_c}
    if host_c is not None:
        files.update({"preload/host/b.h": "int host_fn(void);\n", "preload/host/b.c": host_c})
    files.update({(path if "/" in path else path.replace("__", "/") + ".c"): text
                  for path, text in more.items()})
    return files


CORE_OK = '#include "core/a.h"\nint core_fn(void) { return 1; }\n'
ok = True
ok &= check("layers kept, no circle",
            shim(CORE_OK, '#include "core/a.h"\n#include "host/b.h"\n'
                          "int host_fn(void) { return core_fn(); }\n"),
            0, ["the include rules kept"])
ok &= check("an include upward",
            shim('#include "host/b.h"\nint core_fn(void) { return 1; }\n',
                 '#include "host/b.h"\nint host_fn(void) { return 2; }\n'),
            1, ["preload/core/a.c: includes preload/host/b.h, a folder above its own"])
ok &= check("a circle of calls",
            shim("int host_fn(void);\nint core_fn(void) { return host_fn(); }\n",
                 '#include "core/a.h"\nint host_fn(void) { return core_fn(); }\n'),
            1, ["a circle of files: preload/core/a -> preload/host/b (uses host_fn)",
                "preload/host/b -> preload/core/a (uses core_fn)"])
ok &= check("a circle through an inline function",
            shim('#include "core/c.h"\nint core_fn(void) { return c_in(); }\n',
                 preload__core__c="int core_fn(void);\nint c_fn(void) { return core_fn(); }\n",
                 **{"preload/core/c.h": "static inline int c_in(void) { return 4; }\n"}),
            1, ["preload/core/a -> preload/core/c (includes)",
                "preload/core/c -> preload/core/a (uses core_fn)"])
ok &= check("the shim's header outside it",
            shim(CORE_OK, analyzer__util__x='#include "../../preload/core/a.h"\n'
                                            "int x_fn(void) { return 3; }\n"),
            1, ["analyzer/util/x.c: includes preload/core/a.h, private to preload/"])
ok &= check("a folder with no place",
            shim(CORE_OK, preload__misc__c='#include "core/a.h"\n'
                                           "int c_fn(void) { return core_fn(); }\n"),
            1, ["its folder misc/ has no place in the layers of preload/"])
sys.exit(0 if ok else 1)
