#!/usr/bin/env bash
# What the merge of a fleet's dumps costs, as the dumps grow from a
# thousand to tens of thousands: COUNTS sets of compact dumps of DECLS
# declarations each, WORKERS dumps per process (scripts/bench/merge_gen.c
# writes them with the shim's own writer: about 20 histogram buckets per
# declaration; TEMPLATES processes, 20 by default, the others copies of
# theirs with their own ids), and for each set, side by side and in turns,
# REPS times:
#   report   extprof report DIR > /dev/null       (its peak memory too)
#   cat      cat of the same files > /dev/null    (the bytes read, nothing done)
# The best of the turns is kept of each.  It prints, per set, the time and
# peak memory (maximum resident set) of the report, the time of cat, and
# the ratio report / cat; then the two goals: peak memory at the largest
# set at most twice that at the smallest, and the report at most 3 times
# cat at the largest.  Exit status 1 when a goal is missed.
#   scripts/bench-merge.sh [DECLS [WORKERS [COUNT...]]]   (default 100 10 1000 4000 16000 64000)
# The largest set is written once; the smaller ones are hard links to its
# first dumps (whole processes), so the disk holds the largest only
# (64,000 dumps of 100 declarations: about 2.9 GB); `df -h` its TMPDIR first.
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

decls=${1:-100}
workers=${2:-10}
shift $(($# < 2 ? $# : 2))
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1000 4000 16000 64000)
reps=${REPS:-3}
bench_need /usr/bin/time find xargs
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

largest=0
for n in "${counts[@]}"; do
	[ "$n" -gt "$largest" ] && largest=$n
done
mkdir "$tmp/all"
start=$(now_us)
"$gen" "$tmp/all" "$largest" "$decls" "$workers" "${TEMPLATES:-20}"
echo "extprof bench-merge: $largest dumps of $decls declarations, $workers per process," \
	"written in $(secs $(($(now_us) - start))) s; $(bench_cpu); load $(bench_load)"
# set N: the first N dumps by name (whole processes: a process's dumps are named together)
for n in "${counts[@]}"; do
	mkdir "$tmp/n$n"
	find "$tmp/all" -name '*.xpd' | sort | sed -n "1,${n}p" | xargs ln -t "$tmp/n$n"
done

# report_once DIR: "SECONDS PEAK_KB" of one report (its wall time, from bash's clock)
report_once() {
	local t0 t1
	t0=$(now_us)
	/usr/bin/time -f '%M' -o "$tmp/time" "$extprof" report "$1" >/dev/null
	t1=$(now_us)
	echo "$((t1 - t0)) $(tail -n 1 "$tmp/time")"
}
# cat_once DIR: the microseconds a cat of its dumps takes
cat_once() {
	local t0
	t0=$(now_us)
	find "$1" -name '*.xpd' -print0 | xargs -0 cat >/dev/null
	echo $(($(now_us) - t0))
}

printf '%8s %9s %11s %10s %9s %7s\n' dumps MB "report s" "peak MB" "cat s" ratio
declare -A peak_of ratio_of
for n in "${counts[@]}"; do
	d=$tmp/n$n
	cat_once "$d" >/dev/null # into the page cache, both read from there
	best_r="" best_c="" peak=0
	for _ in $(seq "$reps"); do
		read -r t kb < <(report_once "$d")
		[ -z "$best_r" ] || [ "$t" -lt "$best_r" ] && best_r=$t
		[ "$kb" -gt "$peak" ] && peak=$kb
		t=$(cat_once "$d")
		[ -z "$best_c" ] || [ "$t" -lt "$best_c" ] && best_c=$t
	done
	mb=$(du -smL "$d" | cut -f1)
	ratio=$(awk -v r="$best_r" -v c="$best_c" 'BEGIN { printf "%.2f", r / c }')
	peak_of[$n]=$peak
	ratio_of[$n]=$ratio
	printf '%8d %9d %11s %10.1f %9s %7s\n' "$n" "$mb" "$(secs "$best_r")" \
		"$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$(secs "$best_c")" "$ratio"
done

smallest=${counts[0]}
grow=$(awk -v a="${peak_of[$largest]}" -v b="${peak_of[$smallest]}" 'BEGIN { printf "%.2f", a / b }')
echo "peak memory at $largest dumps / at $smallest: $grow (goal: at most 2)"
echo "report / cat at $largest dumps: ${ratio_of[$largest]} (goal: at most 3)"
awk -v g="$grow" -v r="${ratio_of[$largest]}" 'BEGIN { exit !(g <= 2 && r <= 3) }'
