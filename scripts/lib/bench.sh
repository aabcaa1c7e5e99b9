# shellcheck shell=bash
# What the benchmarks (scripts/bench-*.sh) share; each sources it first:
#   - strict mode, and the build (scripts/build.sh: quiet, BUILD_DIR or build/;
#     NO_BUILD=1 takes BUILD_DIR as it is, configuring and building nothing, as
#     scripts/bench-compare.sh runs them on two builds, of two revisions);
#   - the paths they run: $build, $extprof, $shim, $checker (the example) and
#     $spec (its hooks), $bench_name (the script's name, for its messages);
#   - bench_need, bench_tmp, bench_busy_start/stop, bench_cpu, bench_load.
# On any exit (an error, ^C, TERM) the neighbours bench_busy_start started
# are stopped, bench_at_exit runs if the script defines it, and the
# temporary directory is removed.
set -euo pipefail
shopt -s inherit_errexit
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/build.sh
. "$EXTPROF_ROOT/scripts/build.sh"
build=${BUILD_DIR:-$EXTPROF_ROOT/build}
if [ "${NO_BUILD:-0}" = 0 ]; then
	build_extprof
elif [ ! -f "$build/preload/libextprof.so" ] || [ ! -x "$build/analyzer/extprof" ]; then
	echo "$(basename "$0" .sh): $build is not a built extprof tree" >&2
	exit 2
fi
# shellcheck disable=SC2034 # for the scripts that source this one
{
	extprof=$build/analyzer/extprof
	shim=$build/preload/libextprof.so
	checker=$build/examples/checker/checker
	spec=$EXTPROF_ROOT/examples/checker/checker.hooks
}
bench_name=$(basename "$0" .sh)
tmp=""
bench_busy=()

# bench_need TOOL...: exit 2, naming the first tool missing from the PATH.
bench_need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "$bench_name: $t is missing" >&2; exit 2; }
	done
}

# bench_tmp PREFIX: a new directory in TMPDIR (or /tmp) into $tmp, removed on exit.
bench_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
}

# bench_busy_start K: K processes that spin and never sleep beside the runs
# (the worst neighbour for a timer), until bench_busy_stop or the exit.
bench_busy_start() {
	local i
	for ((i = 0; i < $1; i++)); do
		yes >/dev/null &
		bench_busy+=($!)
	done
}

# bench_busy_stop: stop the spinning processes and wait for them.
bench_busy_stop() {
	if [ ${#bench_busy[@]} -gt 0 ]; then
		kill "${bench_busy[@]}" 2>/dev/null || true
		wait "${bench_busy[@]}" 2>/dev/null || true
	fi
	bench_busy=()
}

# bench_cpu: the CPU's model name, as /proc/cpuinfo says it.
bench_cpu() {
	grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'
}

# bench_load: the load averages over 1, 5 and 15 minutes.
bench_load() {
	cut -d' ' -f1-3 /proc/loadavg
}

bench_exit() {
	bench_busy_stop
	if declare -F bench_at_exit >/dev/null; then
		bench_at_exit
	fi
	if [ -n "$tmp" ]; then
		rm -rf "$tmp"
	fi
}
trap bench_exit EXIT
trap 'exit 130' INT TERM
