#!/usr/bin/env bash
# What the steps counter costs, by each of its engines, side by side in one run:
#   (a) a stepped instruction (the trap engine): st_loop(L) of the steps
#       target, every call stepped, against the same calls never stepped
#       (3L+3 instructions a call)
#   (b) a call of a 10-instruction function (xt_ten of the xlate target)
#       through the hook: bare, tsc (the stubs' fast path), steps by the code
#       cache (every call counted), steps by the trap engine (the C path,
#       none stepped); from runs of N and 2N calls, the difference
#   (c) the example checker (-n N -m 100000 -w 1, all 18 predicates
#       hooked): native, tsc, steps by the code cache (every evaluation),
#       steps by the trap engine (its default sample) and callgrind, the
#       runs interleaved: A B C D E A B C D E ...
#   (d) zlib's crc32 over a 4 KB buffer, 200,000 calls through Debian's libz,
#       crc32 hooked: the same five
# (a) and (b) give the least of REPS runs (default 5): on a shared machine
# the least disturbed run is the one that says what the code costs ((b) in
# CPU time: its calls are nanoseconds, a busy machine's waiting is not); (c) and
# (d) the median of REPS runs (callgrind: CG_REPS, default 1), of the wall
# time and of the CPU time (user + system, the program's and extprof's: the
# wall time of a loaded machine is mostly waiting), and the ratios of the
# medians.  docs/measurement.md shows a run and reads it.
#   scripts/bench-steps.sh [N]      N: the checker's -n (default 16)
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

n=${1:-16}
reps=${REPS:-5}
cg_reps=${CG_REPS:-1}
steps_target=$build/tests/targets/steps
xlate_target=$build/tests/targets/xlate
zcalls=$build/tests/targets/zcalls
bench_tmp extprof-steps

bench_need /usr/bin/time python3 valgrind

# timed CMD...: "WALL CPU" seconds of CMD (its output thrown away)
timed() {
	/usr/bin/time -o "$tmp/time" -f '%e %U %S' "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$tmp/time"
}

# wall CMD...: its wall seconds
wall() { timed "$@" | cut -d' ' -f1; }

# cpu CMD...: its CPU seconds, user and system
cpu() { timed "$@" | cut -d' ' -f2; }

# least FUNC ARGS...: the least of REPS runs of FUNC's printed seconds
least() {
	local best="" t
	for _ in $(seq "$reps"); do
		t=$("$@")
		best=$(python3 -c "import sys; a, b = sys.argv[1:]; print(b if not a else min(float(a), float(b)))" "$best" "$t")
	done
	echo "$best"
}

# shimmed HOW HOOKS COUNTER ENGINE FIRST EVERY CMD...: HOW's seconds (wall or cpu)
# of CMD under the shim
shimmed() {
	local how=$1 hooks=$2 counter=$3 engine=$4 first=$5 every=$6
	shift 6
	rm -rf "$tmp/d"
	"$how" env LD_PRELOAD="$shim" EXTPROF_HOOKS="$hooks" EXTPROF_COUNTER="$counter" \
		EXTPROF_STEP_ENGINE="$engine" EXTPROF_STEP_FIRST="$first" EXTPROF_STEP_EVERY="$every" \
		EXTPROF_DIR="$tmp/d" EXTPROF_LOG=off "$@"
}

echo "extprof steps counter, $(nproc) CPUs, $(bench_cpu)"
echo "load average at start: $(bench_load)"
echo

# --- (a) a stepped instruction --------------------------------------------------------
loops=${LOOPS:-20}
trips=${TRIPS:-2000}
stepped=$(least shimmed wall function:st_loop steps trap 0 1 "$steps_target" -n "$loops" -l "$trips" loop)
unstepped=$(least shimmed wall function:st_loop steps trap 0 0 "$steps_target" -n "$loops" -l "$trips" loop)
python3 - "$stepped" "$unstepped" "$loops" "$trips" "$reps" <<'EOF'
import sys
stepped, unstepped = float(sys.argv[1]), float(sys.argv[2])
loops, trips, reps = map(int, sys.argv[3:])
insns = loops * (3 * trips + 3)
per = (stepped - unstepped) / insns * 1e6
print(f"(a) a stepped instruction (trap engine): {loops} calls of st_loop({trips}), {insns:,} instructions, least of {reps} runs")
print(f"    every call stepped {stepped:.2f} s, none {unstepped:.2f} s: {per:.1f} us an instruction"
      f" ({1 / per * 1e6:,.0f} a second), one SIGTRAP each")
print()
EOF

# --- (b) a call of a 10-instruction function ---------------------------------------------
# Runs of N and of 2N calls: the difference is N calls, without the start-up;
# CPU seconds, which a busy machine's waiting does not add to.
calls=${CALLS:-5000000}
per_call() { # per_call RUNNER...: ns a call
	local one two
	one=$(least "$@" "$xlate_target" -n "$calls" ten)
	two=$(least "$@" "$xlate_target" -n $((2 * calls)) ten)
	python3 -c "import sys; print((float(sys.argv[2]) - float(sys.argv[1])) / int(sys.argv[3]) * 1e9)" \
		"$one" "$two" "$calls"
}
bare_run() { cpu env LD_PRELOAD= "$@"; }
bare=$(per_call bare_run)
tsc=$(per_call shimmed cpu function:xt_ten tsc translate 0 0)
translate=$(per_call shimmed cpu function:xt_ten steps translate 0 0)
trap=$(per_call shimmed cpu function:xt_ten steps trap 0 0)
python3 - "$bare" "$tsc" "$translate" "$trap" "$calls" "$reps" <<'EOF'
import sys
bare, tsc, translate, trap = map(float, sys.argv[1:5])
calls, reps = map(int, sys.argv[5:])
print(f"(b) a call of a 10-instruction function: runs of {calls:,} and {2 * calls:,} calls of"
      f" xt_ten(), the difference, CPU time; least of {reps} runs each")
print(f"    ns a call: bare {bare:.1f}, tsc {tsc:.1f}, steps by the code cache {translate:.1f},"
      f" steps by the trap engine (none stepped) {trap:.1f}")
print(f"    the hook (less the bare call): tsc {tsc - bare:.1f} ns, code cache {translate - bare:.1f} ns,"
      f" trap engine {trap - bare:.1f} ns")
ok = translate <= 2 * tsc
print(f"    code cache / tsc = {translate / tsc:.2f} a call   target <= 2: {'met' if ok else 'NOT met'}")
print()
EOF

# --- (c) and (d): five ways, interleaved ------------------------------------------------
# run_way WAY OUT HOOKS... -- CMD...: "WALL CPU" of CMD that way
run_way() {
	local way=$1 out=$2 hooks=()
	shift 2
	while [ "$1" != -- ]; do
		hooks+=(-H "$1")
		shift
	done
	shift
	rm -rf "$out"
	case $way in
	native) timed "$@" ;;
	tsc) timed "$extprof" run -d "$out" --counter tsc "${hooks[@]}" -- "$@" ;;
	translate) timed "$extprof" run -d "$out" --counter steps "${hooks[@]}" -- "$@" ;;
	trap) timed "$extprof" run -d "$out" --counter steps --step-engine trap "${hooks[@]}" -- "$@" ;;
	callgrind) timed valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$@" ;;
	esac
}

# compare LABEL TARGETS HOOKS... -- CMD...: the five ways, REPS times, and their ratios
# (against the targets, when TARGETS is yes)
compare() {
	local label=$1 goals=$2 file=$tmp/runs.$RANDOM
	shift 2
	: >"$file"
	for r in $(seq "$reps"); do
		for way in native tsc translate trap callgrind; do
			if [ "$way" = callgrind ] && [ "$r" -gt "$cg_reps" ]; then
				continue
			fi
			echo "$way $(run_way "$way" "$tmp/w" "$@")" >>"$file"
		done
	done
	python3 - "$file" "$label" "$reps" "$cg_reps" "$goals" <<'EOF'
import statistics, sys
wall, cpu = {}, {}
for line in open(sys.argv[1]):
    w, a, b = line.split()
    wall.setdefault(w, []).append(float(a))
    cpu.setdefault(w, []).append(float(b))
label, reps, cg_reps, targets = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] == "yes"
print(f"{label}, {reps} runs each ({cg_reps} of callgrind), interleaved")
names = {"native": "native", "tsc": "tsc", "translate": "steps, code cache",
         "trap": "steps, trap engine", "callgrind": "callgrind"}
mw = {w: statistics.median(v) for w, v in wall.items()}
mc = {w: statistics.median(v) for w, v in cpu.items()}
for w in ("native", "tsc", "translate", "trap", "callgrind"):
    print(f"    {names[w]:19} wall median {mw[w]:7.2f} s (range {min(wall[w]):.2f} - {max(wall[w]):.2f}),"
          f" cpu median {mc[w]:7.2f} s")
for what, m in (("wall", mw), ("cpu", mc)):
    t = m["translate"]
    line = (f"    {what}: code cache / native = {t / m['native']:.2f}, / tsc = {t / m['tsc']:.2f},"
            f" / trap engine = {t / m['trap']:.2f}, / callgrind = {t / m['callgrind']:.3f}")
    if targets:
        line += (f"   targets <= 1.5 x tsc: {'met' if t <= 1.5 * m['tsc'] else 'NOT met'},"
                 f" <= callgrind / 10: {'met' if t <= m['callgrind'] / 10 else 'NOT met'}")
    print(line)
print()
EOF
}

hooks=()
while read -r h; do
	case $h in '#'* | '') continue ;; esac
	hooks+=("$h")
done <"$spec"
compare "(c) the example checker -n $n -m 100000 -w 1, all 18 predicates hooked" yes \
	"${hooks[@]}" -- "$checker" -n "$n" -m 100000 -w 1
compare "(d) zlib's crc32 of 4 KB, 200,000 calls through Debian's libz, crc32 hooked" no \
	'function:crc32@libz.so.1' -- "$zcalls" crc32 4096 200000

rm -rf "$tmp/c"
"$extprof" run -d "$tmp/c" --counter steps --spec "$spec" -- "$checker" -n "$n" -m 100000 -w 1 \
	>/dev/null 2>"$tmp/report"
echo "the code cache's report of (c):"
grep -E '^counted|^ +[0-9,]+ ran in part' "$tmp/report" | sed 's/^ */    /'
