/* SPDX-License-Identifier: MIT */
/* eval.c: the evaluation path, called from the thunks. */
#ifndef EXTPROF_PRELOAD_COUNT_EVAL_H
#define EXTPROF_PRELOAD_COUNT_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* A hooked call's entry (@ret taken from @slot): 0 when its activation was pushed, 1 to pass. */
int xp_eval_enter(uint32_t idx, uint64_t ret, uint64_t slot);
/* A hooked call's return: its delta recorded, R1 put back at @slot; 1 when stepping goes on. */
int xp_eval_exit(uint64_t *slot);
/* The same, with the caller's callee-saved registers @regs for the callers' walk. */
int xp_eval_exit_callers(uint64_t *slot, const uint64_t *regs);
/* The same, with the counter already read (@now) by the stubs' fast path. */
void xp_eval_exit_now(uint64_t *slot, uint64_t now);
/* Give @decl of @worker its histogram row, at its first evaluation there. */
void xp_eval_take_row(struct extprof_dump_decl *decl, struct xp_worker *worker);

#pragma GCC visibility pop

#endif
