/* SPDX-License-Identifier: MIT */
/* record: one delta into its declaration's accumulators, the rule in one place. */
#ifndef EXTPROF_PRELOAD_COUNT_RECORD_H
#define EXTPROF_PRELOAD_COUNT_RECORD_H

#include <stdint.h>

#include "core/state.h"
#include "count/floor.h"

#pragma GCC visibility push(hidden)

/*
 * Delta @delta into declaration @decl's sum, max and floor (floor.h); its
 * histogram row is the caller's (a row may have to be taken first).
 */
static inline void record_delta(struct extprof_dump_decl *decl, uint64_t delta)
{
	decl->sum += delta;
	if (delta > decl->max)
		decl->max = delta;
	/* floor_limit: what the stubs' fast path compares a delta with (stub_fast.S) */
	if (floor_add(xp.counter.kind, &decl->floor, &decl->floor_hits, delta))
		decl->floor_limit = delta + extprof_floor_margin(xp.counter.kind, delta);
}

/* steps, at exit: every sample worker @worker still holds back (step_hold) recorded. */
void record_held_samples(struct xp_worker *worker);

#pragma GCC visibility pop

#endif
