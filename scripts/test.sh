#!/usr/bin/env bash
# The README's second command: install what is missing, build, run every test,
# then the analyzer's unit tests again under AddressSanitizer and UBSan.
#   scripts/test.sh [meson test arguments]
# SANITIZE=0 skips the sanitized pass.
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/build.sh"
build_extprof

build=${BUILD_DIR:-$EXTPROF_ROOT/build}
status=0
meson test -C "$build" --print-errorlogs "$@" || status=$?

# The unit tests (suite "unit": the analyzer, through its library and the
# extprof binary) again, built with -fsanitize=address,undefined in a build
# directory of their own.  Only what those tests need is built there.  The
# shim is not tested this way: a sanitized libextprof.so cannot be preloaded
# into the uninstrumented programs it profiles (the ASan runtime must come
# first), so the unit tests that run the real shim skip themselves in this
# build, and the stand-in shim of the "run" tests is built unsanitized.
asan=${ASAN_BUILD_DIR:-$EXTPROF_ROOT/build-asan}
logs=("$build/meson-logs/testlog.txt")
if [ "${SANITIZE:-1}" != 0 ]; then
	if [ ! -f "$asan/build.ninja" ]; then
		meson setup "$asan" "$EXTPROF_ROOT" -Db_sanitize=address,undefined \
			-Db_lundef=false >&2
	fi
	ninja -C "$asan" build.ninja >&2 # regenerated first, so that the introspection is current
	mapfile -t unit_targets < <(python3 - "$asan" <<'PY'
import json, os, subprocess, sys
d = sys.argv[1]
intro = lambda what: json.loads(subprocess.check_output(["meson", "introspect", what, d]))
files = {t["id"]: t["filename"] for t in intro("--targets")}
need = set()
for t in intro("--tests"):
    if any(s.endswith(":unit") or s == "unit" for s in t["suite"]):
        need.add(t["cmd"][0])
        for dep in t["depends"]:
            need.update(files.get(dep, []))
for f in sorted(need):
    print(os.path.relpath(f, d))
PY
)
	ninja -C "$asan" "${unit_targets[@]}" >&2
	ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
	LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$EXTPROF_ROOT/tests/unit/lsan.supp:print_suppressions=0} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
		meson test -C "$asan" --no-rebuild --suite unit --print-errorlogs || status=$?
	logs+=("$asan/meson-logs/testlog.txt")
fi

# One closing line over every Criterion test case, not only meson's per-binary count.
python3 - "${logs[@]}" <<'PY' || true
import re, sys
passed = failed = 0
for log in sys.argv[1:]:
    for line in open(log, errors="replace"):
        m = re.search(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)", line)
        if m:
            passed += int(m.group(2))
            failed += int(m.group(3)) + int(m.group(4))
print(f"{passed} passed, {failed} failed")
PY
exit $status
