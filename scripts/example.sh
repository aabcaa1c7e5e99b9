#!/usr/bin/env bash
# The README's first command: install what is missing, build, and profile the
# bundled example (a model checker for two-phase commit with N resource
# managers, its search bounded at 100,000 states, 4 workers) with every one of
# its predicates hooked; prints the report.  Extra arguments go to extprof run
# (e.g. --counter var:checker_work for exact, repeatable figures).
#   scripts/example.sh [extprof run options...]
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/build.sh"
build_extprof

build=${BUILD_DIR:-$EXTPROF_ROOT/build}
out=$(mktemp -d "${TMPDIR:-/tmp}/extprof-example.XXXXXX")
trap 'rm -rf "$out"' EXIT

"$build/analyzer/extprof" run -o "$out/extprof.data" \
	--spec "$EXTPROF_ROOT/examples/checker/checker.hooks" "$@" \
	-- "$build/examples/checker/checker" -n 16 -m 100000 -w 4
