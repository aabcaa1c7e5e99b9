#!/usr/bin/env bash
# The README's first command: install what is missing, build, and profile the
# bundled example (a model checker for two-phase commit with N resource
# managers, its search bounded at 100,000 states, 4 workers) with every one of
# its predicates hooked; prints the report, then what the run cost in time.
# The counter is steps (exact instruction counts, without a PMU) unless the
# arguments name another.  Extra arguments go to extprof run (e.g. --counter
# var:checker_work for the checker's own unit of work, --counter tsc for time).
#   scripts/example.sh [extprof run options...]
# It prints nothing else: the installation and the build are quiet, their
# output in build/setup.log (BUILD_DIR/setup.log), shown when they fail
# (scripts/build.sh).
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/build.sh"
build_extprof

build=${BUILD_DIR:-$EXTPROF_ROOT/build}
checker=("$build/examples/checker/checker" -n 16 -m 100000 -w 4)
out=$(mktemp -d "${TMPDIR:-/tmp}/extprof-example.XXXXXX")
trap 'rm -rf "$out"' EXIT

counter=(--counter steps)
for a in "$@"; do
	case $a in --counter | --counter=*) counter=() ;; esac
done

now() { date +%s.%N; }
t0=$(now)
"${checker[@]}" >/dev/null
t1=$(now)
"$build/analyzer/extprof" run -d "$out/extprof.data" \
	--spec "$EXTPROF_ROOT/examples/checker/checker.hooks" "${counter[@]}" "$@" \
	-- "${checker[@]}"
t2=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
	printf "\nexample: the checker took %.2f s under extprof, %.2f s without it\n", c - b, b - a }'
