#!/usr/bin/env bash
# What a hooked call costs after extprof attach, beside what it costs under
# extprof run, side by side in one run: three copies of
# scripts/bench/attached.c run at once, each timing its own calls (the CPU
# ns per call of bench_hooked and of its never-hooked twin bench_bare, the
# least of each 250 ms window):
#   R  started under extprof run, bench_hooked hooked from the start
#   C  the same: a control, for what two identical processes differ by
#   A  started plain; after PLAIN seconds attached to for ATTACHED seconds
# and the windows of the processes are paired by time: A's hooked calls
# against R's while A is attached, and C's against R's.
# Both count tsc, so both take the stubs' fast path.  docs/attach.md shows
# a run.
#   scripts/bench-attach.sh [PLAIN [ATTACHED]]      (default 4 and 12 seconds)
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

plain=${1:-4}
attached=${2:-12}
calls=${CALLS:-200000}
bench_tmp extprof-bench-attach
pids=()
# the copies still running stop at the file's appearance
bench_at_exit() {
	touch "$tmp/stop"
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}

bench_need cc python3
cc -O2 -g -Wall "$EXTPROF_ROOT/scripts/bench/attached.c" -o "$tmp/attached"

# R and C: under extprof run (its report, at the end, goes where extprof puts it)
for f in r c; do
	"$extprof" run -d "$tmp/$f" --counter tsc -H function:bench_hooked -- \
		"$tmp/attached" "$calls" "$tmp/stop" >"$tmp/$f.out" 2>"$tmp/$f.err" &
	pids+=($!)
done
# A: plain, attached to later
"$tmp/attached" "$calls" "$tmp/stop" >"$tmp/a.out" 2>"$tmp/a.err" &
apid=$!
pids+=("$apid")
for f in r c a; do
	for _ in $(seq 100); do grep -q '^ready' "$tmp/$f.out" && break; sleep 0.1; done
done
sleep "$plain"
date_attach=$(python3 -c 'import time; print(time.clock_gettime(time.CLOCK_MONOTONIC))')
"$extprof" attach -d "$tmp/a" --counter tsc --duration "$attached" -H function:bench_hooked \
	"$apid" >"$tmp/attach.out" 2>"$tmp/attach.err"
date_detach=$(python3 -c 'import time; print(time.clock_gettime(time.CLOCK_MONOTONIC))')
sleep 1
touch "$tmp/stop"
for p in "${pids[@]}"; do wait "$p"; done
pids=()
grep -q '^extprof: attached to process' "$tmp/attach.err" ||
	{ echo "bench-attach: the attachment failed:" >&2; cat "$tmp/attach.err" >&2; exit 1; }

python3 - "$tmp/r.out" "$tmp/a.out" "$date_attach" "$date_detach" "$plain" "$tmp/c.out" <<'PY'
import statistics, sys

def windows(path):
    w = {}
    for line in open(path):
        f = line.split()
        if len(f) == 6 and f[0] == "window":
            w[int(f[1])] = (float(f[3]), float(f[5]))
    return w

r, a, c = windows(sys.argv[1]), windows(sys.argv[2]), windows(sys.argv[6])
t_attach, t_detach, plain = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
# windows wholly inside the attachment (0.25 s each), the first 0.5 s left
# out (the attaching itself: calibration, the patch); and wholly before it
first, last = int((t_attach + 0.5) / 0.25) + 1, int(t_detach / 0.25) - 2
during = [k for k in sorted(a) if first <= k <= last and k in r and k in c]
before = [k for k in sorted(a) if k < int(t_attach / 0.25) - 1 and k in r]
if len(during) < 8 or len(before) < 4:
    sys.exit("bench-attach: too few windows (%d attached, %d before)" % (len(during), len(before)))

def med(v):
    return statistics.median(v)

ratio = [a[k][1] / r[k][1] for k in during]
control = [c[k][1] / r[k][1] for k in during]
print("bench-attach: CPU ns per call, the least of each 250 ms window; medians over windows")
print("  %-34s bare %6.2f   hooked %6.2f   (%d windows)" % (
    "R, under extprof run", med([r[k][0] for k in during]), med([r[k][1] for k in during]),
    len(during)))
print("  %-34s bare %6.2f   hooked %6.2f" % (
    "C, under extprof run too", med([c[k][0] for k in during]), med([c[k][1] for k in during])))
print("  %-34s bare %6.2f   hooked %6.2f" % (
    "A, attached, the same windows", med([a[k][0] for k in during]), med([a[k][1] for k in during])))
print("  %-34s bare %6.2f   hooked %6.2f   (%d windows, not hooked yet)" % (
    "A, before the attachment", med([a[k][0] for k in before]), med([a[k][1] for k in before]),
    len(before)))
for name, v in (("attached (A) / under extprof run (R)", ratio),
                ("control: run (C) / run (R)", control)):
    q = statistics.quantiles(v, n=4)
    print("hooked call, %-37s window by window: median %.3f (quartiles %.3f to %.3f)" % (
        name + ",", med(v), q[0], q[2]))
print("hook cost (hooked - bare): attached %.2f ns, under extprof run %.2f ns" % (
    med([a[k][1] - a[k][0] for k in during]), med([r[k][1] - r[k][0] for k in during])))
PY
