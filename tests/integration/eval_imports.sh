#!/usr/bin/env bash
# What the evaluation path calls outside the shim must be on hookable.c's
# list of functions the shim calls while counting (HOOKABLE_COUNTING): a
# hooked one would be evaluated inside its own evaluation, without end.
#   eval_imports.sh libxp_eval.a libextprof.so elf/hookable.c
set -euo pipefail
eval_lib=$1 shim=$2 list=$3
defined=$(nm --defined-only "$shim" | awk '{print $3}' | sort -u)
imports=$(nm -u "$eval_lib" | awk '{print $2}' | grep -v '^_GLOBAL_OFFSET_TABLE_$' | sort -u)
outside=$(comm -23 <(echo "$imports") <(echo "$defined"))
status=0
for fn in $outside; do
	if grep -q "{\"$fn\", HOOKABLE_COUNTING" "$list"; then
		echo "ok: the evaluation path calls $fn, which hookable.c refuses"
	else
		echo "FAIL: the evaluation path calls $fn, which hookable.c does not refuse"
		status=1
	fi
done
[ -n "$outside" ] || echo "ok: the evaluation path calls nothing outside the shim"
exit $status
