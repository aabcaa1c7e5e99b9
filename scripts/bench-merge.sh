#!/usr/bin/env bash
# How long the analyzer takes over many dumps: DUMPS
# compact dumps of DECLS declarations each, with histograms, WORKERS dumps
# per process (scripts/bench/merge_gen.c writes them with the shim's own
# writer), then "extprof report" in text and JSON, best of REPS runs each.
# The target is under 1 s for 1000 dumps of 500 declarations on the 2-core
# machine of docs/report.md ("Performance").
#   scripts/bench-merge.sh [DUMPS [DECLS [WORKERS]]]     (default 1000 500 10)
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

dumps=${1:-1000}
decls=${2:-500}
workers=${3:-10}
reps=${REPS:-3}
bench_tmp extprof-bench-merge

gen=$tmp/merge_gen
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$EXTPROF_ROOT/include" -I"$EXTPROF_ROOT/preload" \
	-o "$gen" "$EXTPROF_ROOT/scripts/bench/merge_gen.c" "$EXTPROF_ROOT/preload/dump.c"
# microseconds from bash's own clock: no external timer needed
now_us() {
	local t=$EPOCHREALTIME
	echo $((10#${t%.*} * 1000000 + 10#${t#*.}))
}
secs() {
	printf '%d.%03d' $(($1 / 1000000)) $(($1 % 1000000 / 1000))
}

mkdir "$tmp/data"
start=$(now_us)
"$gen" "$tmp/data" "$dumps" "$decls" "$workers"
made=$(now_us)
size=$(du -sm "$tmp/data" | cut -f1)
processes=$(((dumps + workers - 1) / workers))
echo "extprof bench-merge: $dumps dumps ($processes processes of up to $workers workers)" \
	"of $decls declarations, $size MB, written in $(secs $((made - start))) s"

# The best of $reps runs: on a shared machine the least disturbed says what the code costs.
best() {
	local fmt=$1 t0 t best=""
	for _ in $(seq "$reps"); do
		t0=$(now_us)
		"$extprof" report --format "$fmt" "$tmp/data" >/dev/null
		t=$(($(now_us) - t0))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
			best=$t
		fi
	done
	printf 'report --format %-5s %s s  (best of %d)\n' "$fmt" "$(secs "$best")" "$reps"
}
best text
best json
best csv
