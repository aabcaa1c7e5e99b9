#!/usr/bin/env bash
# What the shim costs a process that has nothing to count:
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
