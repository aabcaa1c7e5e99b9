#!/usr/bin/env bash
# Fuzz the analyzer's dump reader (tests/fuzz/fuzz_dump.c) with libFuzzer:
# installs clang and its runtime if missing (scripts/deps.sh), builds the
# target in build-fuzz/ (clang, -Dfuzz=true), and runs it for SECONDS
# (default 600) from the seed corpus tests/fuzz/corpus.
#   scripts/fuzz.sh [SECONDS]
# New inputs go to build-fuzz/fuzz-corpus/, findings (crashes, leaks,
# timeouts) to build-fuzz/fuzz-findings/, the fuzzer's whole log to
# build-fuzz/fuzz.log, the set-up's and the build's to build-fuzz/setup.log;
# the status is 1 when there are findings.
# FUZZ_JOBS runs that many fuzzers at once (default 1).
set -euo pipefail
EXTPROF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$EXTPROF_ROOT/scripts/build.sh"

seconds=${1:-600}
case $seconds in
'' | *[!0-9]*)
	echo "usage: scripts/fuzz.sh [SECONDS]" >&2
	exit 2
	;;
esac
dir=${FUZZ_BUILD_DIR:-$EXTPROF_ROOT/build-fuzz}
jobs=${FUZZ_JOBS:-1}

CC=clang CXX=clang++ build_dir "$dir" -Dfuzz=true -Dtests=false -Dbuildtype=debugoptimized \
	-- tests/fuzz/fuzz_dump

corpus=$dir/fuzz-corpus
findings=$dir/fuzz-findings
mkdir -p "$corpus" "$findings"
echo "extprof: fuzzing for ${seconds}s ($jobs job(s)); corpus $corpus, findings $findings" >&2
# -jobs sends each job's output to fuzz-N.log; one job writes to fuzz.log and stderr
par=()
[ "$jobs" -gt 1 ] && par=(-jobs="$jobs" -workers="$jobs")
status=0
(cd "$dir" && ./tests/fuzz/fuzz_dump -max_total_time="$seconds" -print_final_stats=1 \
	-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$findings/" "${par[@]}" \
	"$corpus" "$EXTPROF_ROOT/tests/fuzz/corpus" 2>&1 | tee "$dir/fuzz.log" |
	grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE)' >&2) || status=$?
n=$(find "$findings" -type f | wc -l)
echo "extprof: $(find "$corpus" -type f | wc -l) inputs in the corpus, $n finding(s)" >&2
[ "$n" -eq 0 ] || status=1
exit $status
