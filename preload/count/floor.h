/* SPDX-License-Identifier: MIT */
/*
 * floor: a declaration's floor (its least delta) and its hits (the
 * evaluations that landed within the margin of it), the rule "settled" is
 * judged by (docs/floors.md).  Pure and inline: the evaluation path adds
 * every delta with it, a thread's counts are merged with it, and the unit
 * tests run it alone.
 */
#ifndef EXTPROF_PRELOAD_FLOOR_H
#define EXTPROF_PRELOAD_FLOOR_H

#include <stdbool.h>
#include <stdint.h>

#include "extprof/dump.h"

/*
 * Add @delta, measured with the counter @counter_kind, to (@floor, @hits):
 * a delta below the floor becomes it, its hits those of the old floor if it
 * lies within the new one's margin (plus itself), else 1; a delta within the
 * margin above the floor is a hit.  Whether the floor fell.
 */
static inline bool floor_add(uint32_t counter_kind, uint64_t *floor, uint64_t *hits, uint64_t delta)
{
	if (delta < *floor) {
		uint64_t margin = extprof_floor_margin(counter_kind, delta);

		*hits = *floor - delta <= margin ? *hits + 1 : 1;
		*floor = delta;
		return true;
	}
	if (delta - *floor <= extprof_floor_margin(counter_kind, *floor))
		(*hits)++;
	return false;
}

/* (@floor, @hits) merged with (@other, @other_hits): the lower floor, its hits added when equal. */
static inline void floor_merge(uint64_t *floor, uint64_t *hits, uint64_t other, uint64_t other_hits)
{
	if (other < *floor) {
		*floor = other;
		*hits = other_hits;
	} else if (other == *floor) {
		*hits += other_hits;
	}
}

#endif
