#!/usr/bin/env bash
# What the steps counter costs, side by side in one run:
#   (a) a stepped instruction: st_loop(L) of the steps target, every call
#       stepped, against the same calls never stepped (3L+3 instructions a call)
#   (b) an evaluation that is not stepped: st_straight() through the hook
#       with steps (the stubs' C path) and with tsc (their fast path), less
#       the bare calls
#   (c) the example checker's wall time natively, under tsc and under steps
#       (the defaults), its runs interleaved: A B C A B C ...
# Every figure of (a) and (b) is the least of REPS runs (default 5): on a
# shared machine the least disturbed run is the one that says what the code
# costs; (c) gives the median and the range of its REPS runs, and the
# ratios of the medians.  docs/measurement.md shows a run and reads it.
#   scripts/bench-steps.sh [N]      N: the checker's -n (default 16, as scripts/example.sh)
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

n=${1:-16}
reps=${REPS:-5}
target=$build/tests/targets/steps
bench_tmp extprof-steps

bench_need /usr/bin/time python3

# wall seconds of CMD... (its output thrown away)
wall() {
	/usr/bin/time -o "$tmp/time" -f '%e' "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	cat "$tmp/time"
}

# least FUNC ARGS...: the least of REPS runs of FUNC's printed seconds
least() {
	local best="" t
	for _ in $(seq "$reps"); do
		t=$("$@")
		best=$(python3 -c "import sys; a, b = sys.argv[1:]; print(b if not a else min(float(a), float(b)))" "$best" "$t")
	done
	echo "$best"
}

# shimmed COUNTER FIRST EVERY CMD...: wall seconds of CMD under the shim
shimmed() {
	local counter=$1 first=$2 every=$3
	shift 3
	rm -rf "$tmp/d"
	wall env LD_PRELOAD="$shim" EXTPROF_HOOKS="function:st_loop,function:st_straight" \
		EXTPROF_COUNTER="$counter" EXTPROF_STEP_FIRST="$first" EXTPROF_STEP_EVERY="$every" \
		EXTPROF_DIR="$tmp/d" EXTPROF_LOG=off "$@"
}

echo "extprof steps counter, $(nproc) CPUs, $(bench_cpu)"
echo "load average at start: $(bench_load)"
echo

# --- (a) a stepped instruction --------------------------------------------------------
loops=${LOOPS:-20}
trips=${TRIPS:-2000}
stepped=$(least shimmed steps 0 1 "$target" -n "$loops" -l "$trips" loop)
unstepped=$(least shimmed steps 0 0 "$target" -n "$loops" -l "$trips" loop)
python3 - "$stepped" "$unstepped" "$loops" "$trips" "$reps" <<'EOF'
import sys
stepped, unstepped = float(sys.argv[1]), float(sys.argv[2])
loops, trips, reps = map(int, sys.argv[3:])
insns = loops * (3 * trips + 3)
per = (stepped - unstepped) / insns * 1e6
print(f"(a) a stepped instruction: {loops} calls of st_loop({trips}), {insns:,} instructions, least of {reps} runs")
print(f"    every call stepped {stepped:.2f} s, none {unstepped:.2f} s: {per:.1f} us an instruction"
      f" ({1 / per * 1e6:,.0f} a second), one SIGTRAP each")
print()
EOF

# --- (b) an evaluation that is not stepped -----------------------------------------------
# Runs of N and of 2N calls: the difference is N calls, without the start-up
# (tsc calibrates its hook there, steps does not).
calls=${CALLS:-5000000}
per_call() { # per_call RUNNER...: ns a call
	local one two
	one=$(least "$@" "$target" -n "$calls" straight)
	two=$(least "$@" "$target" -n $((2 * calls)) straight)
	python3 -c "import sys; print((float(sys.argv[2]) - float(sys.argv[1])) / int(sys.argv[3]) * 1e9)" \
		"$one" "$two" "$calls"
}
bare_run() { wall env LD_PRELOAD= "$@"; }
bare=$(per_call bare_run)
tsc=$(per_call shimmed tsc 0 0)
steps=$(per_call shimmed steps 0 0)
python3 - "$bare" "$tsc" "$steps" "$calls" "$reps" <<'EOF'
import sys
bare, tsc, steps = map(float, sys.argv[1:4])
calls, reps = map(int, sys.argv[4:])
t, s = tsc - bare, steps - bare
print(f"(b) an evaluation that is not stepped: runs of {calls:,} and {2 * calls:,} calls of"
      f" st_straight(), the difference; least of {reps} runs each")
print(f"    ns a call: bare {bare:.1f}, tsc {tsc:.1f}, steps {steps:.1f}")
print(f"    the hook: tsc {t:.1f} ns (the stubs' fast path), steps {s:.1f} ns (their C path),"
      f" steps / tsc = {s / t:.2f}" if t > 0 else "    the hook: too small to see")
print()
EOF

# --- (c) the example checker -----------------------------------------------------------
run_checker() {
	case $1 in
	native) wall "$checker" -n "$n" -m 100000 -w 4 ;;
	*)
		rm -rf "$tmp/c"
		wall "$extprof" run -d "$tmp/c" --counter "$1" --spec "$spec" -- \
			"$checker" -n "$n" -m 100000 -w 4
		;;
	esac
}
: >"$tmp/checker"
for _ in $(seq "$reps"); do
	for c in native tsc steps; do
		echo "$c $(run_checker $c)" >>"$tmp/checker"
	done
done
python3 - "$tmp/checker" "$n" "$reps" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    c, t = line.split()
    runs.setdefault(c, []).append(float(t))
n, reps = sys.argv[2], sys.argv[3]
med = {c: statistics.median(v) for c, v in runs.items()}
print(f"(c) the example checker -n {n} -m 100000 -w 4, all 18 predicates hooked, {reps} runs each, interleaved")
for c in ("native", "tsc", "steps"):
    v = runs[c]
    print(f"    {c:7} median {med[c]:6.2f} s   range {min(v):6.2f} - {max(v):6.2f} s")
print(f"    tsc / native = {med['tsc'] / med['native']:.2f}, steps / native = {med['steps'] / med['native']:.2f},"
      f" steps / tsc = {med['steps'] / med['tsc']:.2f}   target <= 3: {'met' if med['steps'] <= 3 * med['tsc'] else 'NOT met'}")
EOF
rm -rf "$tmp/c"
"$extprof" run -d "$tmp/c" --counter steps --spec "$spec" -- "$checker" -n "$n" -m 100000 -w 4 \
	>/dev/null 2>"$tmp/report"
grep -A1 '^sampled' "$tmp/report" | sed 's/^ */    /'
