/* SPDX-License-Identifier: MIT */
/*
 * attach: the shim in a process it was not preloaded into, loaded and
 * driven by "extprof attach" (include/extprof/attach.h, docs/attach.md).
 */
#ifndef EXTPROF_PRELOAD_ATTACH_H
#define EXTPROF_PRELOAD_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct arch_hook;

/* Whether the shim was loaded with the program (LD_PRELOAD), not later by dlopen. */
bool attach_preloaded(void);

/* Say so in the block, for a tracer that looks: this process counts already. */
void attach_mark_preloaded(void);

/*
 * List @hook (declaration @idx) for the tracer to write (a hooks_keep_fn, which
 * attaching hands to init_start).  0, or -errno with the reason in @why.
 */
int attach_keep_patch(const struct arch_hook *hook, uint32_t idx, char *why, size_t whylen);

#pragma GCC visibility pop

#endif
