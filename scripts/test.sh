#!/usr/bin/env bash
# The README's second command: install what is missing, build, run every test,
# then the analyzer's unit tests again under AddressSanitizer and UBSan.
#   scripts/test.sh [meson test arguments]
# SANITIZE=0 skips the sanitized pass.
# What it prints: a line per test as meson prints it (like make check's PASS
# and FAIL lines), a failing test's whole output after its line, meson's count
# after each pass, and last one line, "N passed, N failed", over every test
# case (each Criterion case, and each test that is not Criterion's).  The set-up
# and the builds print nothing unless they fail: their output is in setup.log
# of each build directory (scripts/build.sh), its end shown on failure.  The
# status is 0 when every test passed, 1 otherwise (a failed build included).
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/build.sh"

build=${BUILD_DIR:-$EXTPROF_ROOT/build}
asan=${ASAN_BUILD_DIR:-$EXTPROF_ROOT/build-asan}
status=0
logs=()
broken=() # the build directories whose build failed

# built DIR CMD...: CMD, which builds in DIR; on failure DIR is said in the
# closing line and the status is 1
built() {
	local dir=$1
	shift
	"$@" && return 0
	broken+=("$dir")
	status=1
	return 1
}

# The unit tests' files in the sanitized build DIR (the tests of suite
# "unit" and what they depend on), one a line, relative to DIR.
# shellcheck disable=SC2317 # called through built, in a command substitution
asan_unit_targets() {
	python3 - "$1" <<'PY'
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
}

# The unit tests (suite "unit": the analyzer, through its library and the
# extprof binary) again, built with -fsanitize=address,undefined in a build
# directory of their own.  Only what those tests need is built there.  The
# shim is not tested this way: a sanitized libextprof.so cannot be preloaded
# into the uninstrumented programs it profiles (the ASan runtime must come
# first), so the unit tests that run the real shim skip themselves in this
# build, and the stand-in shim of the "run" tests is built unsanitized.
# shellcheck disable=SC2317 # called through built
asan_build() {
	local opts=("-Db_sanitize=address,undefined" -Db_lundef=false) targets
	# build.ninja regenerated first, so that the introspection is current
	build_dir "$asan" "${opts[@]}" -- build.ninja || return
	targets=$(asan_unit_targets "$asan") || return
	# shellcheck disable=SC2086 # file names of the build, without spaces
	build_dir "$asan" "${opts[@]}" -- $targets
}

# (the logs of an earlier run removed first: a run that cannot start leaves none)
rm -f "$build/meson-logs/testlog.json" "$asan/meson-logs/testlog.json"
if built "$build" build_extprof; then
	meson test -C "$build" --no-rebuild --print-errorlogs "$@" || status=$?
	logs+=("$build/meson-logs/testlog.json")
	if [ "${SANITIZE:-1}" != 0 ] && built "$asan" asan_build; then
		echo "extprof: the unit tests again, under ASan and UBSan ($asan)"
		ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
		LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$EXTPROF_ROOT/tests/unit/lsan.supp:print_suppressions=0} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
			meson test -C "$asan" --no-rebuild --suite unit --print-errorlogs || status=$?
		logs+=("$asan/meson-logs/testlog.json")
	fi
fi

# One closing line over every test case, not only meson's per-binary count: a
# Criterion binary's cases from its "Synthesis" line; a test without one (it
# crashed or timed out first, or is not Criterion's) counts as one case.
python3 - "${broken[@]/#/--broken=}" "${logs[@]}" <<'PY' || true
import json, re, sys
passed = failed = 0
broken = [a[len("--broken="):] for a in sys.argv[1:] if a.startswith("--broken=")]
synthesis = re.compile(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)")
for log in (a for a in sys.argv[1:] if not a.startswith("--broken=")):
    try:
        lines = open(log, errors="replace").readlines()
    except FileNotFoundError:
        continue
    for line in lines:
        t = json.loads(line)
        m = synthesis.search((t.get("stdout") or "") + (t.get("stderr") or ""))
        ok = t["result"] in ("OK", "SKIP", "EXPECTEDFAIL")
        if m:
            passed += int(m.group(2))
            failed += int(m.group(3)) + int(m.group(4))
            if not ok and int(m.group(3)) + int(m.group(4)) == 0:
                failed += 1  # the binary failed after its cases passed (a leak, an exit status)
        elif t["result"] != "SKIP":
            passed, failed = passed + ok, failed + (not ok)
end = "".join(f"; the build in {d} failed (its log: {d}/setup.log)" for d in broken)
print(f"{passed} passed, {failed} failed{end}")
PY
exit $status
