#!/usr/bin/env bash
# The README's second command: install what is missing, build, run every test.
#   scripts/test.sh [meson test arguments]
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/build.sh"
build_extprof
meson test -C "${BUILD_DIR:-$EXTPROF_ROOT/build}" --print-errorlogs "$@"
