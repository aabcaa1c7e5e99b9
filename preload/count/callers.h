/* SPDX-License-Identifier: MIT */
/* callers.c: who called a declaration. */
#ifndef EXTPROF_PRELOAD_COUNT_CALLERS_H
#define EXTPROF_PRELOAD_COUNT_CALLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* The chain of return addresses above a hooked call, at most @depth, into @pcs: how many. */
uint32_t callers_walk(const uint64_t *regs, uint64_t ret, uint64_t slot, uint64_t *pcs,
		      uint32_t depth);
/* Name @pc "function+0xoff@object" into @buf, its offset into @offset: 0, or -1 if unknown. */
int callers_resolve(uint64_t pc, char *buf, size_t len, uint64_t *offset);

#pragma GCC visibility pop

#endif
