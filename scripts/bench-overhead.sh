#!/usr/bin/env bash
# What the hook costs, side by side in one run:
#   (a) the physical floor: two ordered reads of the TSC around a call of a
#       trivial function (and, beside it, two bare rdtsc)
#   (b) the same call through extprof's hook (tsc; and tsc-unordered, the
#       bare reads, in turns with it: what ordering adds)
#   (c) the example checker, native
#   (d) the checker under extprof, all 18 predicates hooked (tsc; and
#       tsc-unordered)
#   (e) the checker under `uftrace record`, the same 18 patched dynamically
# and the instructions a hooked call executes (callgrind, when valgrind is there)
# then the hook's CPU per call for 1, 2, 4, 8 and 16 threads.  Every figure
# is the best of REPS runs (default 5): on a shared machine the least
# disturbed run is the one that says what the code costs.  CPU is user +
# system of every process and thread (/usr/bin/time, children included).
# docs/overhead.md shows a run and reads it.
#   scripts/bench-overhead.sh [N]      N: the checker's -n (default 7)
# BASE_BUILD=DIR (the build directory of another revision, e.g. main's) puts
# that build's hook beside this one's, in turns in the same loop, and its
# instructions per call beside these: what a change did to the hooked call.
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

n=${1:-7}
reps=${REPS:-5}
calls=${CALLS:-20000000}
base_shim=${BASE_BUILD:+$BASE_BUILD/preload/libextprof.so}
if [ -n "$base_shim" ] && [ ! -f "$base_shim" ]; then
	echo "$bench_name: no $base_shim (BASE_BUILD must be a build directory)" >&2
	exit 2
fi
# the same 18 functions as checker.hooks, as uftrace's regex
patch='^(type_ok|consistent|commit_justified|is_terminal|decision_is_stable|can_.*|do_.*)$'
bench_tmp extprof-overhead

bench_need cc /usr/bin/time python3 uftrace
cc -O2 -g -Wall -pthread "$EXTPROF_ROOT/scripts/bench/call.c" -o "$tmp/call"

# least FILE "FIELD...": for each FIELD, the least value of "FIELD x" in FILE, on one line
least() {
	python3 - "$1" "$2" <<'EOF'
import sys
words = open(sys.argv[1]).read().split()
print(*(min(float(words[i + 1]) for i in range(len(words) - 1) if words[i] == f)
        for f in sys.argv[2].split()))
EOF
}

# best "FIELD..." CMD...: for each FIELD, the least value of "FIELD x" in
# CMD's stdout over REPS runs, on one line
best() {
	local fields=$1
	shift
	: >"$tmp/best"
	for _ in $(seq "$reps"); do
		"$@" >>"$tmp/best"
	done
	least "$tmp/best" "$fields"
}

# hooked COUNTER CMD...: CMD with bench_empty hooked, counted with COUNTER
# (by the shim $hook_shim, this build's unless said)
hooked() {
	local counter=$1
	shift
	rm -rf "$tmp/d"
	LD_PRELOAD=${hook_shim:-$shim} EXTPROF_HOOKS=function:bench_empty \
		EXTPROF_COUNTER=$counter EXTPROF_DIR=$tmp/d EXTPROF_LOG=off "$@"
}

# timed OUT CMD...: wall, user and system seconds of CMD (and its children)
timed() {
	local out=$1
	shift
	/usr/bin/time -o "$tmp/time" -f '%e %U %S' "$@" >"$out" 2>"$out.err"
	awk '{printf "wall %s cpu %.3f\n", $1, $2 + $3}' "$tmp/time"
}
run_native() { timed "$tmp/native.out" "$checker" -n "$n" -w 1; }
# run_extprof [COUNTER]: the checker under extprof, tsc unless said
run_extprof() {
	rm -rf "$tmp/xd"
	timed "$tmp/extprof.out" env LD_PRELOAD="$shim" EXTPROF_SPEC="$spec" \
		EXTPROF_COUNTER="${1:-tsc}" EXTPROF_DIR="$tmp/xd" EXTPROF_LOG=off \
		"$checker" -n "$n" -w 1
}
run_uftrace() {
	rm -rf "$tmp/ud"
	timed "$tmp/uftrace.out" uftrace record -d "$tmp/ud" --no-libcall --no-event \
		-P "$patch" "$checker" -n "$n" -w 1
}

echo "extprof overhead, $(nproc) CPUs, $(bench_cpu)"
echo "load average at start: $(bench_load); best of $reps runs each"
echo

# --- (a), (b): one call --------------------------------------------------------
# One process, the four loops in turn, 15 rounds each (scripts/bench/call.c,
# "pair"): the floors and the hook see the same machine.  Per run the least
# round, over REPS runs the least run; the medians say how much the host moved.
# The runs with the hook on tsc and on tsc-unordered alternate.
fields="bare_min floor_min raw_min hook_min bare_med floor_med raw_med hook_med"
: >"$tmp/pair.tsc"
: >"$tmp/pair.raw"
: >"$tmp/pair.base"
for _ in $(seq "$reps"); do
	hooked tsc "$tmp/call" pair $((calls / 20)) 15 >>"$tmp/pair.tsc"
	hooked tsc-unordered "$tmp/call" pair $((calls / 20)) 15 >>"$tmp/pair.raw"
	if [ -n "$base_shim" ]; then
		hook_shim=$base_shim hooked tsc "$tmp/call" pair $((calls / 20)) 15 >>"$tmp/pair.base"
	fi
done
# shellcheck disable=SC2046
python3 - $(least "$tmp/pair.tsc" "$fields") $(least "$tmp/pair.raw" "hook_min hook_med") <<'EOF'
import sys
bare, floor, raw, hook, bare_med, floor_med, raw_med, hook_med, uhook, uhook_med = \
    map(float, sys.argv[1:])
print("one call of a trivial function, ns of CPU per call (least round; median round)")
print(f"  bare call                                   {bare:7.2f}  {bare_med:7.2f}")
print(f"  (a) floor: ordered reads around the call    {floor:7.2f}  {floor_med:7.2f}")
print(f"      bare rdtsc, call, rdtsc                 {raw:7.2f}  {raw_med:7.2f}")
print(f"  (b) through extprof's hook (tsc)            {hook:7.2f}  {hook_med:7.2f}")
print(f"      through the hook, tsc-unordered         {uhook:7.2f}  {uhook_med:7.2f}")
r = hook / floor
print(f"  (b) / (a) = {r:.2f}   target <= 1.5: {'met' if r <= 1.5 else 'NOT met'}"
      f"   (medians: {hook_med / floor_med:.2f})")
print(f"  added to a bare call: floor {floor - bare:.2f}, hook {hook - bare:.2f}"
      f" ({(hook - bare) / (floor - bare):.2f} x)")
print(f"  ordering adds: {floor - raw:.2f} to the floor, {hook - uhook:.2f} to the hook"
      f" (medians: {floor_med - raw_med:.2f}, {hook_med - uhook_med:.2f})")
print()
EOF
if [ -n "$base_shim" ]; then
	# shellcheck disable=SC2046
	python3 - "$BASE_BUILD" $(least "$tmp/pair.tsc" "floor_min hook_min floor_med hook_med") \
		$(least "$tmp/pair.base" "floor_min hook_min floor_med hook_med") <<'EOF'
import sys
base = sys.argv[1]
floor, hook, floor_med, hook_med, bfloor, bhook, bfloor_med, bhook_med = map(float, sys.argv[2:])
print(f"the hooked call (tsc) against {base}'s, in turns: ns per call (least; median)")
print(f"  this build   {hook:7.2f}  {hook_med:7.2f}   / its floor {hook / floor:.2f}")
print(f"  base build   {bhook:7.2f}  {bhook_med:7.2f}   / its floor {bhook / bfloor:.2f}")
print(f"  this / base = {hook / bhook:.3f}   (medians: {hook_med / bhook_med:.3f})")
print()
EOF
fi

# Instructions per hooked call, which no neighbour can move: callgrind's count
# for M and 2M calls, the difference over M; through the hook (counter var:,
# so that calibration runs the same rounds both times) and without it.
if command -v valgrind >/dev/null; then
	ir() {
		rm -rf "$tmp/d"
		LD_PRELOAD=$1 EXTPROF_HOOKS=function:bench_empty EXTPROF_COUNTER=var:bench_bare_calls \
			EXTPROF_DIR=$tmp/d EXTPROF_LOG=off valgrind --tool=callgrind --smc-check=all \
			--callgrind-out-file="$tmp/cg.out" "$tmp/call" plain "$2" 1 2>&1 |
			awk '/Collected/ {gsub(",", "", $4); print $4}'
	}
	python3 - "$(ir "$shim" 100000)" "$(ir "$shim" 200000)" "$(ir "" 100000)" \
		"$(ir "" 200000)" <<'EOF'
import sys
a, b, c, d = map(int, sys.argv[1:])
hook, bare = (b - a) / 1e5, (d - c) / 1e5
print(f"instructions per call (callgrind): bare {bare:.0f}, through the hook {hook:.0f}:"
      f" the hook's own {hook - bare:.0f}")
EOF
	if [ -n "$base_shim" ]; then
		python3 - "$(ir "$base_shim" 100000)" "$(ir "$base_shim" 200000)" \
			"$(ir "$shim" 100000)" "$(ir "$shim" 200000)" <<'EOF'
import sys
a, b, c, d = map(int, sys.argv[1:])
base, this = (b - a) / 1e5, (d - c) / 1e5
print(f"  through the base build's hook {base:.0f}, this build's {this:.0f} ({this - base:+.0f})")
EOF
	fi
	echo
fi

# --- (c), (d), (e): the checker ---------------------------------------------------
res=$(best "cpu wall" run_native)
read -r nat_cpu nat_wall <<<"$res"
res=$(best "cpu wall" run_extprof tsc-unordered)
read -r raw_cpu raw_wall <<<"$res"
res=$(best "cpu wall" run_extprof)
read -r ext_cpu ext_wall <<<"$res"
# what the hooks saw: every evaluation, re-entry and abandoned call of the last run
hcalls=$("$extprof" report --format json "$tmp/xd" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(sum(d["evaluations"] + d["recursive"] + d["outside"] + d["abandoned"]
          for d in r["declarations"]))')
res=$(best "cpu wall" run_uftrace)
read -r uft_cpu uft_wall <<<"$res"
# uftrace must have seen the same calls, or the comparison means nothing
ucalls=$(uftrace report -d "$tmp/ud" -f call --no-pager 2>/dev/null |
	awk '$1 ~ /^[0-9,]+$/ {gsub(",", "", $1); s += $1} END {print s + 0}')
for f in native extprof uftrace; do
	if ! cmp -s "$tmp/native.out" "$tmp/$f.out"; then
		echo "bench-overhead: the checker's output under $f differs" >&2
		exit 1
	fi
done
python3 - "$n" "$hcalls" "$ucalls" "$nat_cpu" "$nat_wall" "$ext_cpu" "$ext_wall" \
	"$raw_cpu" "$raw_wall" "$uft_cpu" "$uft_wall" <<'EOF'
import sys
n, hcalls, ucalls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
nc, nw, ec, ew, rc, rw, uc, uw = map(float, sys.argv[4:])
print(f"the example checker, -n {n} -w 1, 18 predicates: {hcalls:,} hooked calls"
      f" (uftrace recorded {ucalls:,})")
print(f"  {'':28} {'wall s':>8} {'cpu s':>8} {'added cpu ns/call':>18} {'added wall ns/call':>19}")
print(f"  {'(c) native':28} {nw:8.3f} {nc:8.3f}")
for name, c, w in (("(d) extprof (tsc)", ec, ew), ("    extprof (tsc-unordered)", rc, rw),
                   ("(e) uftrace record -P", uc, uw)):
    print(f"  {name:28} {w:8.3f} {c:8.3f} {(c - nc) * 1e9 / hcalls:18.1f}"
          f" {(w - nw) * 1e9 / hcalls:19.1f}")
r = (ec - nc) / (uc - nc)
print(f"  extprof / uftrace, added cpu per call: {r:.3f}"
      f"   target <= 1/3: {'met' if r <= 1 / 3 else 'NOT met'}")
print(f"  extprof / uftrace, added wall per call: {(ew - nw) / (uw - nw):.3f}")
print(f"  ordering adds {(ec - rc) * 1e9 / hcalls:.1f} ns of cpu per hooked call"
      f" (tsc against tsc-unordered)")
print()
EOF

# --- threads ------------------------------------------------------------------
echo "the hook's added CPU per call, by threads ($calls calls in all, split evenly)"
printf '  %7s %9s %9s %9s %8s\n' threads "bare ns" "hooked ns" "added ns" "vs 1"
one=""
for t in 1 2 4 8 16; do
	m=$((calls / t))
	b=$(best cpu_ns "$tmp/call" plain "$m" "$t")
	h=$(best cpu_ns hooked tsc "$tmp/call" plain "$m" "$t")
	python3 - "$t" "$b" "$h" "${one:-0}" <<'EOF'
import sys
t, b, h, one = int(sys.argv[1]), *map(float, sys.argv[2:])
added = h - b
print(f"  {t:7} {b:9.2f} {h:9.2f} {added:9.2f} {added / one if one else 1:8.2f}")
EOF
	[ -n "$one" ] || one=$(python3 -c "print($h - $b)")
done
echo "  flat means \"vs 1\" stays near 1.00 (target: flat from 1 to 16 threads)"
