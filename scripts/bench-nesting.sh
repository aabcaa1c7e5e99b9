#!/usr/bin/env bash
# What recording the nesting costs a hooked call made inside another: on the
# measurement tests' target (tests/targets/work.c), outer(10, K) calling
# inner(K) ten times, both hooked, side by side in one run:
#   - the instructions per inner call (callgrind's count for M and 2M calls
#     of outer, the difference over 10 M), through this build's hook and
#     through BASE_BUILD's (the build directory of a revision before it);
#   - the CPU time of the whole run (user + system, /usr/bin/time), the two
#     builds in turns, the best of REPS runs (default 5) each, and their ratio.
# Without BASE_BUILD, this build's figures alone.  With the fast path
# (var:work_global, the default COUNTER) and the C path
# (COUNTER=var:work_global CALLERS=1).
#   BASE_BUILD=/path/to/base/build scripts/bench-nesting.sh [M]
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

m=${1:-2000000}
reps=${REPS:-5}
counter=${COUNTER:-var:work_global}
callers=${CALLERS:-0}
work=$build/tests/targets/work
base_shim=${BASE_BUILD:+$BASE_BUILD/preload/libextprof.so}
if [ -n "$base_shim" ] && [ ! -f "$base_shim" ]; then
	echo "$bench_name: BASE_BUILD must be the build directory of another revision" >&2
	exit 2
fi
bench_need valgrind /usr/bin/time python3
bench_tmp extprof-nesting

# run SHIM N [TOOL...]: the target, N calls of outer(10, 5), under SHIM
run() {
	local shim_=$1 n=$2
	shift 2
	rm -rf "$tmp/d"
	LD_PRELOAD=$shim_ EXTPROF_HOOKS=function:outer,function:inner EXTPROF_COUNTER=$counter \
		EXTPROF_CALLERS=$callers EXTPROF_DIR=$tmp/d EXTPROF_LOG=off \
		"$@" "$work" -n "$n" -d 10 -k 5 nested >/dev/null 2>&1
}

# ir SHIM N: callgrind's instructions for the whole run
ir() {
	run "$1" "$2" valgrind --tool=callgrind --smc-check=all \
		--callgrind-out-file="$tmp/cg.out" --log-file="$tmp/vg.log"
	awk '/Collected/ {gsub(",", "", $4); print $4}' "$tmp/vg.log"
}

# cpu SHIM: user + system seconds of one run of M calls
cpu() {
	run "$1" "$m" /usr/bin/time -f '%U %S' -o "$tmp/t"
	awk '{print $1 + $2}' "$tmp/t"
}

echo "$bench_name: outer(10, 5) calling inner(5), both hooked, counter $counter," \
	"callers $callers; $(bench_cpu)"
small=$((m / 20))
if [ -n "$base_shim" ]; then
	python3 - "$(ir "$base_shim" "$small")" "$(ir "$base_shim" $((2 * small)))" \
		"$(ir "$shim" "$small")" "$(ir "$shim" $((2 * small)))" "$small" <<'EOF'
import sys
a, b, c, d, n = map(int, sys.argv[1:])
base, this = (b - a) / (10 * n), (d - c) / (10 * n)
print(f"instructions per inner call (callgrind): base {base:.1f}, this {this:.1f}"
      f" ({this - base:+.1f})")
EOF
else
	python3 - "$(ir "$shim" "$small")" "$(ir "$shim" $((2 * small)))" "$small" <<'EOF'
import sys
c, d, n = map(int, sys.argv[1:])
print(f"instructions per inner call (callgrind): this {(d - c) / (10 * n):.1f}")
EOF
fi
: >"$tmp/times"
for _ in $(seq "$reps"); do
	if [ -n "$base_shim" ]; then
		echo "base $(cpu "$base_shim")" >>"$tmp/times"
	fi
	echo "this $(cpu "$shim")" >>"$tmp/times"
done
python3 - "$tmp/times" "$m" <<'EOF'
import sys
best = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    best[k] = min(best.get(k, 1e9), float(v))
calls = 10 * int(sys.argv[2])
if "base" not in best:
    print(f"CPU of {sys.argv[2]} outer calls, best of the runs: this {best['this']:.3f} s")
    sys.exit()
print(f"CPU of {sys.argv[2]} outer calls, best of the runs: base {best['base']:.3f} s,"
      f" this {best['this']:.3f} s; this / base = {best['this'] / best['base']:.3f}"
      f" ({(best['this'] - best['base']) / calls * 1e9:+.2f} ns per inner call)")
EOF
