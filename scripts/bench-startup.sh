#!/usr/bin/env bash
# What the shim costs a process that has nothing to count (issue 12, case 5):
# the shells, compilers and helpers a profiled program starts inherit
# LD_PRELOAD and EXTPROF_*, so each of them loads the shim and looks for the
# functions named.  Side by side in one run, interleaved (A B C A B C ...):
#   native      sh -c true
#   loaded      the same with the shim preloaded, nothing named
#   unmatched   the same with EXTPROF_HOOKS naming a function sh does not have
#               (what every child of a profiled program is)
#   later       EXTPROF_HOOKS naming a library sh never loads (@libnone.so): it
#               waits for a dlopen, calibrating only if one brings it
#   matched     EXTPROF_HOOKS naming a function of sh's libc: it calibrates
#               and hooks (the cost a profiled process pays at start)
# Each figure is the median over RUNS starts (default 300) of one start's CPU
# time (user + system, the kernel's own accounting: load moves it less than
# wall time) and of its wall time, with their ratios to native.  SHIM_BASE=path/to/other/libextprof.so adds
# the unmatched case with that shim too, to compare two builds.
#
# Then what start-up costs as the hooks grow, over clang's libLLVM (the
# `_ZN4llvm` functions `extprof symbols` says the shim can hook), for
# `clang --version`: for each N of SIZES (default 10 100 1000 10000 17000),
#   names N     N of them named one by one in EXTPROF_SPEC (every k-th of
#               the list, so that they lie all over the library)
#   glob ~N     one glob whose matches are closest to N (a prefix of theirs)
# beside native clang and one glob hooking them all (`_ZN4llvm*`); each the
# median over LLVM_RUNS starts (default 5) of CPU time, interleaved, with
# the functions each hooked and the ratios names / glob ~N and names / all;
# with SHIM_BASE, the names nearest 1,000 and the glob of all through that
# shim too.  SIZES= skips it.
#   scripts/bench-startup.sh
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

bench_tmp extprof-startup

python3 - "$shim" "${SHIM_BASE:-}" "${RUNS:-300}" "$tmp" <<'EOF'
import os, statistics, sys, time

shim, base, runs, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
clean = {k: v for k, v in os.environ.items()
         if k != "LD_PRELOAD" and not k.startswith("EXTPROF_")}
def env(preload, hooks=None):
    e = dict(clean)
    if preload:
        e.update(LD_PRELOAD=preload, EXTPROF_DIR=tmp + "/d", EXTPROF_COUNTER="tsc")
    if hooks:
        e["EXTPROF_HOOKS"] = hooks
    return e

cases = [("native", env(None)),
         ("loaded", env(shim)),
         ("unmatched", env(shim, "function:no_such_function")),
         ("later", env(shim, "function:f@libnone.so")),
         ("matched", env(shim, "function:getpid@libc.so.6"))]
if base:
    cases.append(("unmatched, SHIM_BASE", env(base, "function:no_such_function")))
argv = ["/bin/sh", "-c", "true"]
devnull = os.open(os.devnull, os.O_RDWR)
wall = {name: [] for name, _ in cases}
cpu = {name: [] for name, _ in cases}
for _ in range(runs):
    for name, e in cases:
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, e,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                           (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, _, ru = os.wait4(pid, 0)
        wall[name].append(time.perf_counter() - t0)
        cpu[name].append(ru.ru_utime + ru.ru_stime)
print(f"sh -c true, median of {runs} starts each, interleaved; load average "
      f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
print(f"  {'':22s} {'cpu ms':>8s} {'x native':>9s} {'added':>8s}   {'wall ms':>8s} {'x native':>9s}")
for name, _ in cases:
    c, w = statistics.median(cpu[name]), statistics.median(wall[name])
    c0, w0 = statistics.median(cpu["native"]), statistics.median(wall["native"])
    print(f"  {name:22s} {c * 1e3:8.3f} {c / c0:9.2f} {(c - c0) * 1e3:+8.3f}   "
          f"{w * 1e3:8.3f} {w / w0:9.2f}")
EOF

sizes=${SIZES-10 100 1000 10000 17000}
[ -n "$sizes" ] || exit 0
bench_need clang
clang_bin=$(readlink -f "$(command -v clang)")
llvm=$(ldd "$clang_bin" | awk '/libLLVM/ { print $3; exit }')
if [ -z "$llvm" ]; then
	echo "$bench_name: $clang_bin loads no libLLVM" >&2
	exit 2
fi
"$extprof" symbols "$llvm" '_ZN4llvm*' >"$tmp/llvm.syms"

python3 - "$shim" "$clang_bin" "$llvm" "$tmp" "${LLVM_RUNS:-5}" "$sizes" "${SHIM_BASE:-}" <<'EOF'
import os, re, statistics, sys

shim, clang, llvm, tmp, runs, sizes, base = sys.argv[1:8]
runs, sizes = int(runs), [int(n) for n in sizes.split()]
obj = os.path.basename(llvm)
# the functions the shim can hook, by name (without a version), in order
names = sorted({f[2].split("@")[0] for f in (l.split() for l in open(tmp + "/llvm.syms"))
                if len(f) > 2 and f[1] == "OK"})
clean = {k: v for k, v in os.environ.items()
         if k != "LD_PRELOAD" and not k.startswith("EXTPROF_")}


def env(tag, lines, preload=shim):
    path = f"{tmp}/{tag}.spec"
    with open(path, "w") as f:
        f.writelines(f"function:{l}@{obj}\n" for l in lines)
    return dict(clean, LD_PRELOAD=preload, EXTPROF_DIR=tmp + "/d", EXTPROF_COUNTER="tsc",
                EXTPROF_SPEC=path)


def prefix_near(n):
    """The prefix P of the names for which P* matches the closest to n of them."""
    best = ("_ZN4llvm", len(names))
    for length in range(9, 48):
        count = {}
        for name in names:
            count[name[:length]] = count.get(name[:length], 0) + 1
        for p, c in count.items():
            if abs(c - n) < abs(best[1] - n):
                best = (p, c)
        if abs(best[1] - n) <= n // 20:
            break
    return best[0]


cases = [("native", clean), ("glob all", env("all", ["_ZN4llvm*"]))]
for n in sizes:
    pick = names[::max(1, len(names) // n)][:n]
    cases.append((f"names {n}", env(f"names{n}", pick)))
    cases.append((f"glob ~{n}", env(f"glob{n}", [prefix_near(n) + "*"])))
if base:
    n = min(sizes, key=lambda s: abs(s - 1000))
    pick = names[::max(1, len(names) // n)][:n]
    cases.append((f"names {n}, SHIM_BASE", env(f"base{n}", pick, base)))
    cases.append(("glob all, SHIM_BASE", env("baseall", ["_ZN4llvm*"], base)))


def start(e, err=None):
    """One start of clang --version under @e: its CPU time; its stderr into @err."""
    devnull = os.open(os.devnull, os.O_RDWR)
    fd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) if err else devnull
    pid = os.posix_spawn(clang, [clang, "--version"], e,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, fd, 2)])
    _, status, ru = os.wait4(pid, 0)
    os.close(devnull)
    if err:
        os.close(fd)
    if status:
        sys.exit(f"bench-startup: clang --version ended with status {status:#x}")
    return ru.ru_utime + ru.ru_stime


hooked = {}
for name, e in cases:
    start(e, tmp + "/err")
    m = re.search(r"hooked ([0-9,]+)/", open(tmp + "/err").read())
    hooked[name] = m.group(1) if m else "-"
cpu = {name: [] for name, _ in cases}
for _ in range(runs):
    for name, e in cases:
        cpu[name].append(start(e))
med = {name: statistics.median(v) for name, v in cpu.items()}
print(f"\nclang --version with {obj}: CPU (user + system), median of {runs} starts each, "
      f"interleaved; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
print(f"  {'':20s} {'hooked':>7s} {'cpu ms':>8s} {'x native':>9s}   "
      f"{'names/glob ~N':>13s} {'names/glob all':>14s}")
for name, _ in cases:
    line = (f"  {name:20s} {hooked[name]:>7s} {med[name] * 1e3:8.1f} "
            f"{med[name] / med['native']:9.1f}")
    if name.endswith("SHIM_BASE") and name.startswith("names"):
        line += f"   {'':13s} {med[name] / med['glob all, SHIM_BASE']:14.2f}"
    elif name.startswith("names"):
        n = name.split()[1]
        line += (f"   {med[name] / med['glob ~' + n]:13.2f} "
                 f"{med[name] / med['glob all']:14.2f}")
    print(line)
EOF
