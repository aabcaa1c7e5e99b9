#!/usr/bin/env bash
# The README's first command: install what is missing, build, and profile the
# bundled example (a model checker for two-phase commit, 4 workers) with
# every one of its predicates hooked; prints the report.
#   scripts/example.sh [N [WORKERS]]
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/build.sh"
build_extprof

build=${BUILD_DIR:-$EXTPROF_ROOT/build}
n=${1:-7}
workers=${2:-4}
out=$(mktemp -d "${TMPDIR:-/tmp}/extprof-example.XXXXXX")
trap 'rm -rf "$out"' EXIT

exec "$build/analyzer/extprof" run -o "$out/extprof.data" \
	--spec "$EXTPROF_ROOT/examples/checker/checker.hooks" \
	-- "$build/examples/checker/checker" -n "$n" -w "$workers"
