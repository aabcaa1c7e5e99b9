#!/usr/bin/env bash
# The README's second command: install what is missing, build, run every test.
#   scripts/test.sh [meson test arguments]
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/build.sh"
build_extprof

build=${BUILD_DIR:-$EXTPROF_ROOT/build}
status=0
meson test -C "$build" --print-errorlogs "$@" || status=$?

# One closing line over every Criterion test case, not only meson's per-binary count.
python3 - "$build/meson-logs/testlog.txt" <<'PY' || true
import re, sys
passed = failed = 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", line)
    if m:
        passed += int(m.group(2))
        failed += int(m.group(3)) + int(m.group(4))
print(f"{passed} passed, {failed} failed")
PY
exit $status
