#!/usr/bin/env bash
# Are the costs proportional to the work and unchanged by what else is
# hooked?  On the measurement tests' target (tests/targets/work.c), in one
# run, side by side:
#   - what calibration measured for each counter (calibration, nested
#     overhead at callers 0, 1, 2, resolution);
#   - functions of 16 ... 256 dependent multiplies and 256 ... 1024
#     independent adds: per-eval with tsc-unordered (bare rdtsc), with tsc
#     (ordered reads, the floor refined below the counter's step), and the
#     ratio of each to the one before (2 is right);
#   - outer(10, 100), which calls inner(100) ten times: outer's per-eval
#     hooked alone and with inner hooked too, at callers 0, 1 and 2, with
#     tsc and ns, and the ratio (1 is right).
# Each figure is the median of REPS runs (default 3).  docs/floors.md shows
# a run and reads it.
#   scripts/bench-costs.sh
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

reps=${REPS:-3}
work=$build/tests/targets/work
bench_tmp extprof-costs

# one COUNTER CALLERS HOOKS ARGS...: "name per_eval ..." and the header's
# figures of one run, on one line
one() {
	local counter=$1 callers=$2 hooks=$3
	shift 3
	rm -rf "$tmp/d"
	EXTPROF_DIR=$tmp/d EXTPROF_COUNTER=$counter EXTPROF_CALLERS=$callers \
		EXTPROF_HOOKS=$hooks EXTPROF_LOG=off LD_PRELOAD=$shim "$work" "$@" >/dev/null 2>&1
	"$extprof" report --format json "$tmp/d" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(" ".join(d["name"] + " " + str(d["per_eval"]) for d in r["declarations"]), end=" ")'
	local dumps=("$tmp"/d/*.xpd)
	"$extprof" dump "${dumps[0]}" |
		awk '/^(calibration|nested_overhead|resolution) / {printf "%s %s ", $1, $2} END {print ""}'
}

# median OUT COUNTER CALLERS HOOKS ARGS...: REPS runs of one, the median of
# each figure into OUT ("name value" lines)
median() {
	local out=$1
	shift
	: >"$tmp/runs"
	for _ in $(seq "$reps"); do
		one "$@" >>"$tmp/runs"
	done
	python3 - "$tmp/runs" >"$out" <<'EOF'
import statistics, sys
seen = {}
for line in open(sys.argv[1]):
    w = line.split()
    for k, v in zip(w[::2], w[1::2]):
        seen.setdefault(k, []).append(int(v))
for k, v in seen.items():
    print(k, statistics.median_low(v))
EOF
}

echo "extprof costs, $(nproc) CPUs, $(bench_cpu)"
echo "load average at start: $(bench_load); the median of $reps runs each"
echo

scale=("function:empty,function:mul*,function:add*" -n 20000 scale)
median "$tmp/raw" tsc-unordered 0 "${scale[@]}"
median "$tmp/tsc" tsc 0 "${scale[@]}"
nested=(-n 1000 -d 10 -k 100 nested)
for c in tsc ns; do
	for k in 0 1 2; do
		median "$tmp/alone.$c.$k" "$c" "$k" function:outer "${nested[@]}"
		median "$tmp/both.$c.$k" "$c" "$k" function:outer,function:inner "${nested[@]}"
	done
done

python3 - "$tmp" <<'EOF'
import sys
tmp = sys.argv[1]
def fig(name):
    return {k: int(v) for k, v in (l.split() for l in open(f"{tmp}/{name}"))}
raw, tsc = fig("raw"), fig("tsc")
print("calibration (ticks or ns): calibration, nested overhead at callers 0 / 1 / 2, resolution")
for c in ("tsc", "ns"):
    a = [fig(f"alone.{c}.{k}") for k in range(3)]
    print(f"  {c:13} {a[0]['calibration']:6} {a[0]['nested_overhead']:6} /"
          f" {a[1]['nested_overhead']} / {a[2]['nested_overhead']} {a[0]['resolution']:6}")
print(f"  tsc-unordered {raw['calibration']:6} {raw['nested_overhead']:6} (callers 0)"
      f" {raw['resolution']:6}")
print()
print("per-eval (ticks) of functions that double their work, and the ratio to the one before")
print(f"  {'function':10} {'tsc-unordered':>14} {'ratio':>6} {'tsc':>8} {'ratio':>6}")
for chain in (("empty",), ("mul16", "mul32", "mul64", "mul128", "mul256"),
              ("add256", "add512", "add1024")):
    prev = None
    for f in chain:
        r = lambda d: "" if prev is None or not d[prev] else f"{d[f] / d[prev]:6.2f}"
        print(f"  {f:10} {raw[f]:14} {r(raw):>6} {tsc[f]:8} {r(tsc):>6}")
        prev = f
print("  (right: 1.6 to 2.5 from one to the next)")
print()
print("outer(10, 100) calling inner(100): outer's per-eval hooked alone and with inner hooked")
print(f"  {'counter':8} {'callers':>7} {'alone':>7} {'with':>7} {'ratio':>6} {'inner':>6}")
for c in ("tsc", "ns"):
    for k in range(3):
        a, b = fig(f"alone.{c}.{k}"), fig(f"both.{c}.{k}")
        print(f"  {c:8} {k:7} {a['outer']:7} {b['outer']:7} {b['outer'] / a['outer']:6.3f}"
              f" {b['inner']:6}")
print("  (right: 1 +- 0.10)")
EOF
