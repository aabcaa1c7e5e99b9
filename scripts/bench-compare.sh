#!/usr/bin/env bash
# Do two builds give the same benchmark results?  What structure work (moves,
# renames, a header split: the code unchanged, only its place) must show:
# every benchmark (scripts/bench-*.sh, these scripts, with NO_BUILD=1) run on
# BASE_BUILD and on NEW_BUILD, two build directories of two revisions (neither
# is configured or rebuilt), in turns, base new / new base / base new ...,
# REPEATS times each, so that a load that drifts falls on both.  Then,
# benchmark by benchmark, every figure its output has (each number of each
# line, the load averages left out: scripts/bench/compare.py), the base runs'
# beside the new runs', and a verdict:
#   =      the same in every run of both (counts, instructions, sizes: exact)
#   ok     within the noise: the medians of the two builds' runs differ by no
#          more than the larger spread (max - min) of either build's runs,
#          plus one unit of the last digit printed
#   MOVED  beyond it: re-run that benchmark alone (--only NAME) to confirm
# then how many of each, and exit status 1 when a figure moved.  Each figure
# is a ratio or a count of the benchmark's own side-by-side runs, so load moves
# them less than it moves an absolute time, but a shared machine's load still
# shows: the load average before each run is printed beside its benchmark.
#   scripts/bench-compare.sh [--quick] [--repeats K] [--only NAME,...] BASE_BUILD NEW_BUILD
# --quick: each benchmark smaller (fewer repeats inside it, smaller sizes) and
# 2 runs per build instead of 3 (27 minutes on the 2-vCPU VM at a load of 10
# to 20 from others' builds); the full mode runs each benchmark as it is by
# default (hours; bench-merge alone writes 2.9 GB of dumps in TMPDIR).  NAME is a
# benchmark's name without bench- (attach, costs, gate, merge, nesting,
# overhead, reproducibility, startup, steps).  KEEP=1 keeps every run's
# output (its directory is said at the end).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
all=(attach costs gate merge nesting overhead reproducibility startup steps)

usage="usage: scripts/bench-compare.sh [--quick] [--repeats K] [--only NAME,...] BASE_BUILD NEW_BUILD"
quick=0 repeats="" names=("${all[@]}")
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--repeats)
		[[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
		repeats=$2
		shift
		;;
	--only)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		IFS=, read -ra names <<<"$2"
		shift
		;;
	-*) echo "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
for n in "${names[@]}"; do
	if [ "$n" = compare ] || [ ! -f "$here/bench-$n.sh" ]; then
		echo "bench-compare: no benchmark named $n" >&2
		exit 2
	fi
done
builds=()
for b in "$1" "$2"; do
	if [ ! -f "$b/preload/libextprof.so" ] || [ ! -x "$b/analyzer/extprof" ]; then
		echo "bench-compare: $b is not a built extprof tree" >&2
		exit 2
	fi
	builds+=("$(cd "$b" && pwd)")
done
[ -n "$repeats" ] || repeats=$((quick ? 2 : 3))
NO_BUILD=1
BUILD_DIR=${builds[1]}
# shellcheck source=scripts/lib/bench.sh
. "$here/lib/bench.sh"
bench_tmp extprof-bench-compare
out=$tmp
# KEEP=1: the directory is left, and said
bench_at_exit() {
	if [ "${KEEP:-0}" != 0 ]; then
		echo "every run's output kept in $out"
		tmp=""
	fi
}

# bench_setup NAME: the environment (run_env) and arguments (run_args) of
# NAME's runs: none in the full mode; in the quick mode, each smaller
bench_setup() {
	run_env=() run_args=()
	[ "$quick" = 1 ] || return 0
	case $1 in
	attach) run_args=(2 8) ;;
	costs) run_env=(REPS=1) ;;
	gate) run_args=(128 20000 3 1) ;;
	merge) run_env=(REPS=1) run_args=(100 10 1000 4000) ;;
	nesting) run_env=(REPS=3) run_args=(1000000) ;;
	overhead) run_env=(REPS=1 CALLS=2000000) run_args=(6) ;;
	reproducibility) run_args=(128 30000 2 2) ;;
	startup) run_env=(RUNS=100 SIZES=1000 LLVM_RUNS=3) ;;
	steps) run_env=(REPS=1 CALLS=3000000 LOOPS=5) run_args=(8) ;;
	esac
}

# one NAME BUILD R: run R of benchmark NAME on BUILD (base or new), into $out
one() {
	local name=$1 which=$2 r=$3 dir st=0
	dir=${builds[0]}
	[ "$which" = base ] || dir=${builds[1]}
	cut -d' ' -f1 /proc/loadavg >"$out/$name.$which.$r.load"
	# the knobs that would put a third build beside these are left out
	env -u BASE_BUILD -u SHIM_BASE -u KEEP "${run_env[@]}" BUILD_DIR="$dir" NO_BUILD=1 \
		"$here/bench-$name.sh" "${run_args[@]}" >"$out/$name.$which.$r.out" \
		2>"$out/$name.$which.$r.err" </dev/null || st=$?
	echo "$st" >"$out/$name.$which.$r.status"
	# a benchmark's status 1 may be a goal missed (bench-merge's), said on its
	# stdout; what it said on stderr is said here
	if [ "$st" != 0 ] && [ -s "$out/$name.$which.$r.err" ]; then
		echo "bench-compare: bench-$name on $dir ended with status $st:" >&2
		tail -n 3 "$out/$name.$which.$r.err" | sed 's/^/  /' >&2
	fi
}

echo "bench-compare: base ${builds[0]}, new ${builds[1]}; $repeats runs per build," \
	"$([ "$quick" = 1 ] && echo quick || echo full); $(bench_cpu), $(nproc) CPUs"
echo
start=$SECONDS
# rounds NAME FIRST LAST: runs FIRST to LAST of NAME on each build, in turns
rounds() {
	local r
	for r in $(seq "$2" "$3"); do
		if [ $((r % 2)) = 1 ]; then
			one "$1" base "$r"
			one "$1" new "$r"
		else
			one "$1" new "$r"
			one "$1" base "$r"
		fi
	done
}

for name in "${names[@]}"; do
	bench_setup "$name"
	t0=$SECONDS
	rounds "$name" 1 "$repeats"
	n=$repeats
	# Among hundreds of figures a few fall outside the noise two or three runs
	# show: such a benchmark runs as many times again, and all its runs are
	# compared; what moved then moved twice.
	if ! python3 "$here/bench/compare.py" "$out" "$name" "$n" >"$out/$name.table"; then
		rounds "$name" $((n + 1)) $((2 * n))
		python3 "$here/bench/compare.py" "$out" "$name" $((2 * n)) \
			"a figure moved in the first $n runs of each build: $n more of each, all compared" \
			>"$out/$name.table" || true
	fi
	sed "/^== /s/\$/; $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s/" "$out/$name.table"
done
echo "$(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s in all"
python3 "$here/bench/compare.py" --summary "$out"
