#!/usr/bin/env bash
# Does the regression gate cry wolf?  RUNS identical runs of the example
# checker (the tests' -O2 build), every predicate hooked, and SLOW runs of its
# build whose type_ok does twice the work (checker-slow-O2), interleaved, on
# one counter (tsc by default).  Then `extprof diff --fail-above PCT` on every
# pair of identical runs (none should fail), and on each slow run against
# each identical one (each should fail, on type_ok alone).  Per declaration:
# how often it was over, how often a change was held back as within the
# margin, and the largest change of each kind.  docs/report.md quotes a run.
#   scripts/bench-gate.sh [N [MAX_STATES [RUNS [SLOW [PCT]]]]]
# N, MAX_STATES: the checker's -n and -m (default 128 and 20000: type_ok
# scans 128 RMs, some 200 ticks, consistent 16,384 pairs; about a second a
# run).  COUNTER=var:checker_work gates on the checker's own unit of work;
# WORKERS (default 2) is its -w; BUSY=K runs K spinning processes beside it;
# KEEP=1 keeps the runs and comparisons (their directory is said at the end).
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

n=${1:-128}
max_states=${2:-20000}
runs=${3:-10}
nslow=${4:-3}
pct=${5:-10}
counter=${COUNTER:-tsc}
workers=${WORKERS:-2}
nbusy=${BUSY:-0}
bench_tmp extprof-gate
# KEEP=1: the directory is left, and said
bench_at_exit() {
	if [ "${KEEP:-0}" != 0 ]; then
		echo "runs and comparisons kept in $tmp"
		tmp=""
	fi
}

# one_run NAME EXE: the checker under the shim into $tmp/NAME
one_run() {
	"$extprof" run -d "$tmp/$1" --counter "$counter" \
		--spec "$spec" -- \
		"$2" -n "$n" -m "$max_states" -w "$workers" >/dev/null 2>"$tmp/$1.err"
}

bench_busy_start "$nbusy"
echo "checker -n $n -m $max_states -w $workers, all 18 predicates hooked, counter $counter;" \
	"$runs identical runs and $nslow of the slower type_ok build, interleaved;" \
	"$nbusy busy processes; $(bench_cpu)"
echo "load average before: $(bench_load)"
for i in $(seq "$runs"); do
	one_run "same-$i" "$build/tests/targets/checker-O2"
	if [ "$i" -le "$nslow" ]; then
		one_run "slow-$i" "$build/tests/targets/checker-slow-O2"
	fi
done
echo "load average after:  $(bench_load)"

# diff_json A B: the comparison as JSON, its exit status beside it
diff_json() {
	local st=0
	"$extprof" diff --format json --fail-above "$pct" "$tmp/$1" "$tmp/$2" >"$tmp/$1-$2.json" ||
		st=$?
	echo "$1 $2 $st" >>"$tmp/pairs"
}
for i in $(seq "$runs"); do
	for j in $(seq $((i + 1)) "$runs"); do
		diff_json "same-$i" "same-$j"
	done
	for k in $(seq "$nslow"); do
		diff_json "same-$i" "slow-$k"
	done
done

python3 - "$tmp" "$pct" <<'EOF'
import json, sys

out, pct = sys.argv[1], sys.argv[2]
pairs = [l.split() for l in open(f"{out}/pairs")]
groups = {"identical": [p for p in pairs if p[1].startswith("same")],
          "slower type_ok": [p for p in pairs if p[1].startswith("slow")]}
for label, ps in groups.items():
    failed = sum(p[2] != "0" for p in ps)
    stat = {}
    for a, b, _ in ps:
        d = json.load(open(f"{out}/{a}-{b}.json"))
        for r in d["declarations"]:
            s = stat.setdefault(r["name"], {"over": 0, "held": 0, "real": 0.0, "noise": 0.0})
            c = r["change"]["cost"]
            changed = r["base"] and r["new"] and r["base"]["cost"] != r["new"]["cost"]
            if r["over"]:
                s["over"] += 1
            if not changed:
                continue
            c = float("inf") if c is None else c
            if r["real"]["cost"]:
                s["real"] = max(s["real"], c, key=abs)
            else:
                s["held"] += 1
                s["noise"] = max(s["noise"], c, key=abs)
    print()
    print(f"{label}: {len(ps)} pairs, {failed} failed --fail-above {pct}")
    fmt = "  {:<22} {:>5} {:>14} {:>14} {:>16}"
    print(fmt.format("declaration", "over", "within margin", "largest real", "largest held back"))
    show = lambda v: "-" if v == 0 else ("+inf %" if v == float("inf") else f"{v:+.1f} %")
    for name, s in sorted(stat.items(), key=lambda kv: (-kv[1]["over"], -kv[1]["held"], kv[0])):
        if s["over"] or s["held"] or s["real"]:
            print(fmt.format(name, s["over"], s["held"], show(s["real"]), show(s["noise"])))
print()
print("over: pairs where the declaration's cost grew by more than the threshold, beyond its")
print("margin; within margin: pairs where it changed, but not beyond what the counter can")
print("promise; largest: the cost change of most magnitude, in percent, of each kind")
EOF
