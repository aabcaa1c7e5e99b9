#!/usr/bin/env bash
# Is the floor reproducible under load?  The example checker, every predicate
# hooked, counter tsc: RUNS times on an otherwise idle machine, then RUNS
# times beside BUSY spinning processes this script starts (and stops, on any
# exit).  Per declaration: the spread (max - min) / min of per_eval and of
# observed over all the runs, and how many per_evals are within 3 % of their
# median.  docs/measurement.md shows a run and reads it.
#   scripts/bench-reproducibility.sh [N [MAX_STATES [RUNS [BUSY]]]]
# N and MAX_STATES are the checker's -n and -m.  The default, -n 128 -m 30000,
# makes the predicates as costly as they get while each still runs tens of
# thousands of times (floors settle) and a run takes a second or two: with
# N RMs, consistent compares N² pairs (about 11 µs), type_ok, is_terminal and
# decision_is_stable scan N.  The guards and transitions are O(1) at any N.
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

n=${1:-128}
max_states=${2:-30000}
runs=${3:-8}
nbusy=${4:-2}
bench_tmp extprof-repro
# Without address space randomisation, as `extprof run --no-aslr` runs a
# program, to take where the heap and the stacks fall out of the comparison
# (docs/measurement.md).  ASLR=1 keeps the randomisation.
norand=(setarch "$(uname -m)" -R)
[ "${ASLR:-0}" = 0 ] || norand=()
aslr_note=$([ "${ASLR:-0}" = 0 ] && echo "no ASLR" || echo "ASLR on")

# one_run LABEL I: the checker under the shim, its report as JSON, its wall time
one_run() {
	local dir=$tmp/$1-$2 t0 t1
	t0=$(date +%s.%N)
	"${norand[@]}" env LD_PRELOAD="$shim" EXTPROF_DIR="$dir" EXTPROF_COUNTER=tsc \
		EXTPROF_LOG=off EXTPROF_SPEC="$spec" \
		"$checker" -n "$n" -m "$max_states" -w 1 >"$tmp/$1-$2.out"
	t1=$(date +%s.%N)
	echo "$1 $2 $t0 $t1" >>"$tmp/times"
	"$extprof" report --format json "$dir" >"$tmp/$1-$2.json"
	# the hook's own floor, measured by the shim at start-up: the speed of the
	# CPU during this run, as a pure instruction stream that no load can enter
	"$extprof" dump "$dir"/*.xpd | awk '$1 == "nested_overhead" && !n {print $2; n = 1}' \
		>"$tmp/$1-$2.nested"
	rm -rf "$dir"
}

echo "checker -n $n -m $max_states -w 1, all 18 predicates hooked, counter tsc, $aslr_note;" \
	"$runs runs idle, $runs beside $nbusy busy processes ($(nproc) CPUs)"
echo "load average before: $(bench_load)"
for i in $(seq "$runs"); do
	one_run idle "$i"
done
bench_busy_start "$nbusy"
for i in $(seq "$runs"); do
	one_run busy "$i"
done
echo "load average under load: $(bench_load)"
bench_busy_stop

python3 - "$tmp" "$runs" <<'EOF'
import json, os, statistics, sys

out, runs = sys.argv[1], int(sys.argv[2])
labels = [(l, i) for l in ("idle", "busy") for i in range(1, runs + 1)]
reports = {k: json.load(open(f"{out}/{k[0]}-{k[1]}.json")) for k in labels}
times = {}
for line in open(f"{out}/times"):
    l, i, t0, t1 = line.split()
    times[(l, int(i))] = float(t1) - float(t0)

def spread(v):
    lo, hi = min(v), max(v)
    if hi == lo:
        return "0.0 %"
    return "inf" if lo == 0 else f"{100 * (hi - lo) / lo:.1f} %"

for l in ("idle", "busy"):
    w = [times[(l, i)] for i in range(1, runs + 1)]
    cal = sorted({reports[(l, i)]["calibration"] for i in range(1, runs + 1)})
    print(f"{l}: wall {min(w):.2f}-{max(w):.2f} s (spread {spread(w)}), calibration {cal}")
w = list(times.values())
print(f"all: wall spread {spread(w)}")
outs = {open(f"{out}/{k[0]}-{k[1]}.out").read() for k in labels}
print(f"checker output: {'the same in every run' if len(outs) == 1 else 'DIFFERS'}")
print()

rows = {}
for k in labels:
    for d in reports[k]["declarations"]:
        rows.setdefault(d["name"], {})[k] = d
hdr = ("declaration", "evaluations", "per_eval idle", "per_eval busy", "spread",
       "observed spread", "within 3 %")
fmt = "{:<22} {:>11} {:>15} {:>15} {:>8} {:>16} {:>11}"
print(fmt.format(*hdr))
order = sorted(rows, key=lambda s: -max(d["per_eval"] for d in rows[s].values()))
for name in order:
    r = rows[name]
    if len(r) != len(labels):
        print(f"{name}: missing from some runs")
        continue
    evals = {d["evaluations"] for d in r.values()}
    pe = {l: [r[(l, i)]["per_eval"] for i in range(1, runs + 1)] for l in ("idle", "busy")}
    allpe = pe["idle"] + pe["busy"]
    obs = [d["observed"] for d in r.values()]
    med = statistics.median(allpe)
    within = sum(abs(p - med) <= 0.03 * med for p in allpe)
    rng = lambda v: f"{min(v)}-{max(v)}" if min(v) != max(v) else f"{v[0]}"
    print(fmt.format(name, evals.pop() if len(evals) == 1 else "DIFFER",
                     rng(pe["idle"]), rng(pe["busy"]), spread(allpe), spread(obs),
                     f"{within}/{len(allpe)}"))
print()
print("spread = (max - min) / min over all runs; within 3 % = runs whose per_eval is within")
print("3 % of the median of all runs (a per_eval of 0 in every run counts as within)")

# Run by run: the shim's nested overhead (what a hooked call costs its caller,
# measured at start-up before any of the program's work) says how fast the CPU
# ran; a floor cannot be steadier than that.
nested = {k: int(open(f"{out}/{k[0]}-{k[1]}.nested").read() or 0) for k in labels}
top = [n for n in order if max(d["per_eval"] for d in rows[n].values()) > 0][:4]
print()
print("run by run: the hook's own nested overhead (ticks, measured at start-up) and per_eval")
print(f"{'run':<8} {'wall s':>6} {'nested':>6} " + " ".join(f"{n[:18]:>18}" for n in top))
for k in labels:
    print(f"{k[0] + ' ' + str(k[1]):<8} {times[k]:6.2f} {nested[k]:6} " +
          " ".join(f"{rows[n][k]['per_eval']:>18}" for n in top))
least = min(nested.values())
same = [k for k in labels if nested[k] == least]
print()
print(f"runs at the least nested overhead ({least} ticks): {len(same)}/{len(labels)}; among them:")
for n in top:
    v = [rows[n][k]["per_eval"] for k in same]
    med = statistics.median(v)
    within = sum(abs(p - med) <= 0.03 * med for p in v)
    print(f"  {n:<22} per_eval {min(v)}-{max(v)}, spread {spread(v)}, within 3 %: {within}/{len(v)}")
EOF
