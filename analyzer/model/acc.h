/* SPDX-License-Identifier: MIT */
/*
 * acc: one declaration's raw "collect" (one worker, or workers merged), and
 * its merge (acc.c), which combines two of them.  Nothing here knows the
 * calibration: it is subtracted by finalize, once, after merging.
 */
#ifndef XP_ACC_H
#define XP_ACC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/chain.h"
#include "util/group.h"
#include "extprof/dump.h"

/* One non-empty bucket of the log-linear histogram. */
struct xp_hbin {
	uint32_t bucket;
	uint64_t count;
};

/* Non-empty buckets only, ascending by bucket. */
struct xp_hist {
	size_t n;
	struct xp_hbin *bins;
};

/*
 * The tallies an accumulator and a finalized declaration both keep, which
 * finalize copies and every merge adds: a group of each (util/group.h), so
 * that one function adds them all.
 */
#define XP_TALLY_MEMBERS                                                                           \
	uint64_t recursive;                                                                        \
	uint64_t abandoned;                                                                        \
	uint64_t outside;                                                                          \
	uint64_t negative;  /* deltas that fell below zero (the shim recorded 0) */                \
	uint64_t hist_lost; /* evaluations whose delta is in no histogram read (dump-format.md) */

struct xp_tally {
	XP_TALLY_MEMBERS
};

/* The tallies as members of the struct it stands in, and as one struct xp_tally, tally. */
#define XP_TALLY_GROUP XP_GROUP_OF(xp_tally, tally, XP_TALLY_MEMBERS)

/* @dst += @src, each tally saturating. */
void xp_tally_add(struct xp_tally *dst, const struct xp_tally *src);

struct xp_acc {
	uint64_t evaluations;
	uint64_t floor; /* raw minimum delta; EXTPROF_FLOOR_NONE if none seen */
	uint64_t hits;	/* evaluations within the margin of floor */
	uint64_t sum;	/* raw sum of deltas */
	uint64_t max;
	XP_TALLY_GROUP;
	uint64_t step; /* the counter's step, to refine the floor by; 0: deterministic */
	struct xp_hist hist;
	struct xp_chain *chains; /* callers, hashed by their frames (chain.h) */
	/*
	 * Nesting (dump format 3): the declarations its evaluations ran
	 * inside, as chains of one frame, "kind\x1fsymbol\x1fobject" (none:
	 * several); and the evaluations of others that ran directly inside
	 * its own, with their sum of deltas.
	 */
	struct xp_chain *parents;
	uint64_t inner;
	uint64_t inner_sum;
};

/* An accumulator of no evaluation: the neutral element of merge. */
#define XP_ACC_EMPTY                                                                               \
	{                                                                                          \
		.floor = EXTPROF_FLOOR_NONE                                                        \
	}

/*
 * @dst = merge(@dst, @src), in place: counts, sums and histograms add;
 * floor = min, hits those of the lower floor, added when the floors are
 * equal (model/merge.h); max and step = max; caller chains and parents
 * merge by their names with the same rules.  Associative and commutative.  0 or -ENOMEM.
 */
int xp_acc_add(struct xp_acc *dst, const struct xp_acc *src);
/* @out = merge(@a, @b), built from xp_acc_add.  @out must not alias @a or @b. */
int xp_acc_merge(struct xp_acc *out, const struct xp_acc *a, const struct xp_acc *b);
/* Free what @a holds (its histogram and chains). */
void xp_acc_free(struct xp_acc *a);

/* @dst += @src, in place.  0 or -ENOMEM (@dst unchanged). */
int xp_hist_add(struct xp_hist *dst, const struct xp_hist *src);
/* @out = @a + @b, built from xp_hist_add. */
int xp_hist_merge(struct xp_hist *out, const struct xp_hist *a, const struct xp_hist *b);
/* Free @h's bins. */
void xp_hist_free(struct xp_hist *h);

/* Representative value of bucket @b: its midpoint (exact below 128). */
static inline uint64_t xp_hist_mid(uint32_t b)
{
	return extprof_hist_lower(b) + (extprof_hist_width(b) - 1) / 2;
}

#endif
