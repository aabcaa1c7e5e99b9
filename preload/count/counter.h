/* SPDX-License-Identifier: MIT */
/* counter.c: the counter's set-up and its out-of-line read. */
#ifndef EXTPROF_PRELOAD_COUNT_COUNTER_H
#define EXTPROF_PRELOAD_COUNT_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* One read of the counter, out of line (the slow paths, calibration). */
uint64_t xp_counter_read(void);
/*
 * Choose the counter EXTPROF_COUNTER names (@spec): 0, or -errno with tsc
 * standing in.  @thunks: the thunks' entries, for the steps counter's trap
 * engine (start-up links them).
 */
int counter_setup(const char *spec, const struct arch_thunks *thunks);
/* Open @thread's own perf event, for the PMU counters: 0 or -errno. */
int counter_open_thread(struct xp_thread *thread);
/* Close @thread's perf event, if it has one. */
void counter_close_thread(struct xp_thread *thread);

#pragma GCC visibility pop

#endif
