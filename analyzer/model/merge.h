/* SPDX-License-Identifier: MIT */
/*
 * merge: the two rules every merge of the analyzer follows (accumulators,
 * histograms, finalized processes, caller chains), written once.
 *
 * A floor merges by xp_floor_merge: the lower of the two, with the hits of
 * the lower floor, added when the floors are equal.  Associative and
 * commutative, with (EXTPROF_FLOOR_NONE, 0) as the neutral element.
 *
 * Each kind has one body, its in-place add (dst = merge(dst, src)); the
 * pure form (out = merge(a, b)) is that add applied to the neutral element,
 * then to a, then to b (XP_DEFINE_MERGE), so the two can never disagree.
 */
#ifndef XP_MERGE_H
#define XP_MERGE_H

#include <stdint.h>

#include "util/num.h"

/* (@floor, @hits) = merge((@floor, @hits), (@other, @other_hits)). */
static inline void xp_floor_merge(uint64_t *floor, uint64_t *hits, uint64_t other,
				  uint64_t other_hits)
{
	if (other < *floor) {
		*floor = other;
		*hits = other_hits;
	} else if (other == *floor) {
		*hits = xp_sat_add(*hits, other_hits);
	}
}

/*
 * int NAME(T *out, const T *a, const T *b): *out = ADD(ADD(NEUTRAL, a), b),
 * @out freed by FREE when an ADD fails (0 or -ENOMEM).  @out must not alias
 * @a or @b.
 */
#define XP_DEFINE_MERGE(NAME, T, NEUTRAL, ADD, FREE)                                               \
	int NAME(T *out, const T *a, const T *b)                                                   \
	{                                                                                          \
		int err;                                                                           \
                                                                                                   \
		*out = (T)NEUTRAL;                                                                 \
		err = ADD(out, a);                                                                 \
		if (!err)                                                                          \
			err = ADD(out, b);                                                         \
		if (err)                                                                           \
			FREE(out);                                                                 \
		return err;                                                                        \
	}

#endif
