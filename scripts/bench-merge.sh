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
# The best of the turns is kept of each.  It prints, per set, the time
# (CPU: user + system, and wall) and peak memory (maximum resident set) of
# the report, the time of cat, and the ratios report / cat; then the two
# goals: peak memory at the largest set at most twice that at the
# smallest, and the report's CPU time at most 3 times cat's at the largest
# (on a machine shared with others the wall clock measures the scheduler
# as much as the work: it is shown beside).  Exit status 1 when a goal is
# missed.
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
# the shim's writer makes its own system calls, raw: the port's syscall.c
arch=$EXTPROF_ROOT/preload/arch/$(uname -m)
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$EXTPROF_ROOT/include" -I"$EXTPROF_ROOT/preload" \
	-o "$gen" "$EXTPROF_ROOT/scripts/bench/merge_gen.c" \
	"$EXTPROF_ROOT/preload/store/dump.c" "$arch/syscall.c"
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

# cpu_us FILE: the user + system microseconds /usr/bin/time wrote there ("%U %S")
cpu_us() {
	awk '{ printf "%d", ($1 + $2) * 1000000 }' "$1"
}
# report_once DIR: "WALL_US CPU_US PEAK_KB" of one report (its wall time from bash's clock)
report_once() {
	local t0 t1
	t0=$(now_us)
	/usr/bin/time -f '%U %S %M' -o "$tmp/time" "$extprof" report "$1" >/dev/null
	t1=$(now_us)
	echo "$((t1 - t0)) $(cpu_us "$tmp/time") $(awk '{ print $3 }' "$tmp/time")"
}
# cat_once LIST: "WALL_US CPU_US" of a cat of the files LIST names (NUL-separated)
cat_once() {
	local t0 t1
	t0=$(now_us)
	/usr/bin/time -f '%U %S' -o "$tmp/time" xargs -0 -a "$1" cat >/dev/null
	t1=$(now_us)
	echo "$((t1 - t0)) $(cpu_us "$tmp/time")"
}

# the least of $1 and $2 (an empty $1: none yet)
least() {
	if [ -z "$1" ] || [ "$2" -lt "$1" ]; then echo "$2"; else echo "$1"; fi
}
ratio() {
	awk -v r="$1" -v c="$2" 'BEGIN { printf "%.2f", r / c }'
}

printf '%8s %7s %9s %9s %8s %9s %9s %6s %6s\n' dumps MB "report" "report" "peak" "cat" "cat" \
	"ratio" "ratio"
printf '%8s %7s %9s %9s %8s %9s %9s %6s %6s\n' "" "" "CPU s" "wall s" "MB" "CPU s" \
	"wall s" "CPU" "wall"
declare -A peak_of ratio_of
for n in "${counts[@]}"; do
	d=$tmp/n$n
	find "$d" -name '*.xpd' -print0 >"$tmp/list"
	cat_once "$tmp/list" >/dev/null # into the page cache, both read from there
	rw="" rc="" cw="" cc="" peak=0
	for _ in $(seq "$reps"); do
		read -r w c kb < <(report_once "$d")
		rw=$(least "$rw" "$w")
		rc=$(least "$rc" "$c")
		[ "$kb" -gt "$peak" ] && peak=$kb
		read -r w c < <(cat_once "$tmp/list")
		cw=$(least "$cw" "$w")
		cc=$(least "$cc" "$c")
	done
	mb=$(du -smL "$d" | cut -f1)
	peak_of[$n]=$peak
	ratio_of[$n]=$(ratio "$rc" "$cc")
	printf '%8d %7d %9s %9s %8.1f %9s %9s %6s %6s\n' "$n" "$mb" "$(secs "$rc")" "$(secs "$rw")" \
		"$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$(secs "$cc")" "$(secs "$cw")" \
		"${ratio_of[$n]}" "$(ratio "$rw" "$cw")"
done

smallest=${counts[0]}
grow=$(awk -v a="${peak_of[$largest]}" -v b="${peak_of[$smallest]}" 'BEGIN { printf "%.2f", a / b }')
echo "peak memory at $largest dumps / at $smallest: $grow (goal: at most 2)"
echo "report / cat at $largest dumps, CPU time: ${ratio_of[$largest]} (goal: at most 3)"
awk -v g="$grow" -v r="${ratio_of[$largest]}" 'BEGIN { exit !(g <= 2 && r <= 3) }'
