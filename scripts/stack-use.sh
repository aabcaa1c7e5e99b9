#!/usr/bin/env bash
# How much of the program's stack a hooked call takes (small stacks):
# tests/targets/safety stackuse paints the stack below a caller,
# calls xs_work, and finds the deepest byte written; without the shim and
# under it with each counter, side by side, and the difference (what the
# shim adds to a call: its stub and thunk, and the C that runs before a slow
# path moves to the shim's own stack):
#   first call          a thread's first hooked call (its worker, dump and
#                       shadow stack made: on the shim's stack)
#   first in a handler  the same, in a signal handler on a sigaltstack (with
#                       steps, stepped there: the SIGTRAP frames land on it)
#   later call          every call after
#   scripts/stack-use.sh
# shellcheck source=scripts/lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench.sh"

bench_tmp extprof-stack-use
target=$build/tests/targets/safety

# stack_use ENV...: the three figures of one run, one a line ("label: N bytes")
stack_use() {
	env "$@" "$target" stackuse 2>/dev/null | sed -n 's/^\(.*\): \([0-9]*\) bytes$/\2/p'
}

mapfile -t plain < <(stack_use LD_PRELOAD= EXTPROF_HOOKS=)
labels=("first call" "first in a handler" "later call")
printf '%-14s %-20s %8s %8s %8s\n' counter call plain shim added
for counter in tsc ns steps var:xs_units; do
	mapfile -t hooked < <(stack_use LD_PRELOAD="$shim" EXTPROF_DIR="$tmp/d" EXTPROF_LOG=off \
		EXTPROF_COUNTER="$counter" EXTPROF_HOOKS=function:xs_work)
	for i in 0 1 2; do
		printf '%-14s %-20s %8s %8s %8s\n' "$counter" "${labels[$i]}" "${plain[$i]}" \
			"${hooked[$i]}" $((hooked[i] - plain[i]))
	done
done
