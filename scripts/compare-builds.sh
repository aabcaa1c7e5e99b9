#!/usr/bin/env bash
# compare-builds.sh BASE_BUILD NEW_BUILD: the same commands through two
# builds of extprof (before and after a change that must not change what the
# tools say: moves, renames, a file split), their outputs compared byte for
# byte.  Deterministic figures only (the steps counter, extprof symbols'
# verdicts, refusal lines), so that a difference is the code's.  Prints one
# line a command, "same" or "DIFFERS" (with the diff), then the count;
# status 1 if any differs.  Both builds must be configured from checkouts of
# this project (meson setup; ninja); the example and libraries come from here.
# shellcheck disable=SC2016 # the commands are expanded by the inner bash -c
set -uo pipefail
[ $# -eq 2 ] || {
	echo "usage: compare-builds.sh BASE_BUILD NEW_BUILD" >&2
	exit 2
}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
declare -A builds=([base]="$(realpath "$1")" [new]="$(realpath "$2")")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
libs=(/usr/lib/x86_64-linux-gnu/libz.so.1 /usr/lib/x86_64-linux-gnu/libc.so.6
	/usr/lib/x86_64-linux-gnu/libbz2.so.1.0 /usr/lib/x86_64-linux-gnu/libm.so.6
	/usr/lib/x86_64-linux-gnu/libelf.so.1 /usr/bin/jq /usr/bin/bzip2)
n=0 differ=0

# (0xffff8...: what extprof symbols says of libc's __x86_cacheinfo, an
# "IFUNC" whose resolver returns data: its offset from the load base, which
# differs from one run to the next, in either build)
# one NAME CMD...: CMD with EXTPROF (the build's extprof), SHIM, CHECKER and
# WORK (an empty directory of its own) set, in each build; stdout and
# stderr compared, the build's own path and the work directory masked
one() {
	local name=$1 b
	shift
	for b in base new; do
		local dir=${builds[$b]} work=$out/$b-$name
		mkdir -p "$work"
		ROOT=$root EXTPROF=$dir/analyzer/extprof SHIM=$dir/preload/libextprof.so \
			CHECKER=$dir/examples/checker/checker WORK=$work \
			bash -c "$*" >"$out/$b-$name.out" 2>&1
		echo "status $?" >>"$out/$b-$name.out"
		sed -i -e "s|$dir|BUILD|g" -e "s|$work|WORK|g" -e 's/pid [0-9]*/pid N/g' \
			-e 's/0xffff8[0-9a-f]*/0xRANDOM/g' "$out/$b-$name.out"
	done
	n=$((n + 1))
	if cmp -s "$out/base-$name.out" "$out/new-$name.out"; then
		echo "same     $name"
	else
		differ=$((differ + 1))
		echo "DIFFERS  $name"
		diff "$out/base-$name.out" "$out/new-$name.out" | head -20
	fi
}

for lib in "${libs[@]}"; do
	b=$(basename "$lib")
	for c in tsc steps; do
		one "symbols-$b-$c" '"$EXTPROF" symbols --counter '$c' '"$lib"
		one "symbols-$b-$c-json" '"$EXTPROF" symbols --counter '$c' --format json '"$lib"
	done
	one "symbols-$b-glob" '"$EXTPROF" symbols '"$lib"' "*alloc*"'
done
one "checker-steps" 'EXTPROF_DIR=$WORK/d EXTPROF_COUNTER=steps EXTPROF_SPEC=$ROOT/examples/checker/checker.hooks LD_PRELOAD=$SHIM $CHECKER >/dev/null 2>&1; "$EXTPROF" report --format csv $WORK/d | cut -d, -f1-6'
one "checker-steps-evaluations" 'EXTPROF_DIR=$WORK/d EXTPROF_COUNTER=steps EXTPROF_SPEC=$ROOT/examples/checker/checker.hooks LD_PRELOAD=$SHIM $CHECKER; "$EXTPROF" report --format json $WORK/d | python3 -c "import json,sys; r=json.load(sys.stdin); [print(d[\"name\"], d[\"evaluations\"], d.get(\"per_eval\")) for d in r[\"declarations\"]]"'
one "zlib-steps" 'EXTPROF_DIR=$WORK/d EXTPROF_COUNTER=steps EXTPROF_HOOKS="function:crc32@libz.so.1,function:adler32@libz.so.1" LD_PRELOAD=$SHIM bash -c "head -c 200000 /usr/bin/bash | gzip -1 | gzip -d | wc -c"; "$EXTPROF" report --format csv $WORK/d | cut -d, -f1-6'
one "bzip2-steps" 'head -c 300000 /usr/bin/bash > $WORK/in; EXTPROF_DIR=$WORK/d EXTPROF_COUNTER=steps EXTPROF_HOOKS="function:BZ2_*@libbz2.so.1.0" LD_PRELOAD=$SHIM bzip2 -c $WORK/in | md5sum; "$EXTPROF" report --format csv $WORK/d | cut -d, -f1-6'
one "refusals-said" 'EXTPROF_DIR=$WORK/d EXTPROF_HOOKS="function:*@libc.so.6" EXTPROF_LOG=stderr LD_PRELOAD=$SHIM true 2>&1 | sed "s/[0-9.]* ms//"'
one "bad-entry" 'EXTPROF_DIR=$WORK/d EXTPROF_HOOKS="memcpy,tsc:0xzz@libc.so.6" LD_PRELOAD=$SHIM true'
echo "$n outputs compared, $differ differ"
[ "$differ" -eq 0 ]
