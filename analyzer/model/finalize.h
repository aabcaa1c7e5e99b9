/* SPDX-License-Identifier: MIT */
/*
 * finalize: a process's merged collect with its own calibration subtracted,
 * once; then the combination of finalized processes, which is again
 * associative and commutative.
 */
#ifndef XP_FINALIZE_H
#define XP_FINALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "model/acc.h"

/* The histogram after calibration: values, not buckets, ascending. */
struct xp_vbin {
	uint64_t value;
	uint64_t count;
};

struct xp_vhist {
	size_t n;
	struct xp_vbin *bins;
};

struct xp_fin {
	uint64_t evaluations;
	uint64_t samples;  /* evaluations measured: the histogram's total (steps: the stepped) */
	uint64_t floor;	   /* max(0, the refined floor - calibration); EXTPROF_FLOOR_NONE: none */
	uint64_t hits;	   /* evaluations within the margin of floor (see xp_finalize) */
	uint64_t observed; /* max(0, sum - calibration * evaluations); sampled counters
			    * (steps): sum / samples * evaluations, an estimate */
	XP_TALLY_GROUP;	   /* hist_lost: vals holds the rest */
	struct xp_vhist vals;
	struct xp_chain *chains; /* callers: floor calibrated, sum is observed */
	/* nesting (acc.h): sum is observed, as the chains'; inner_observed likewise */
	struct xp_chain *parents;
	uint64_t inner;
	uint64_t inner_observed;
};

/* A finalized declaration of no evaluation: the neutral element of combine. */
#define XP_FIN_EMPTY                                                                               \
	{                                                                                          \
		.floor = EXTPROF_FLOOR_NONE                                                        \
	}

/*
 * @dst = combine(@dst, finalize(@acc)): one process's fully merged collect
 * @acc finalized with its @calibration, measured with @counter (enum
 * extprof_counter_kind: it sets the margin of "settled"), and combined into
 * @dst without allocating for the usual histogram.  Not idempotent: never
 * apply it to a partial merge.  0 or -ENOMEM.
 */
int xp_finalize_add(struct xp_fin *dst, const struct xp_acc *acc, uint64_t calibration,
		    uint32_t counter);
/* @out = finalize(@acc) alone, built from xp_finalize_add. */
int xp_finalize(struct xp_fin *out, const struct xp_acc *acc, uint64_t calibration,
		uint32_t counter);

/*
 * @dst = combine(@dst, @src), in place, for two finalized processes: floor
 * = min (hits of the lower, added when equal: model/merge.h); evaluations,
 * observed and tallies add; value histograms merge; chains and parents
 * combine by their names the same way.  0 or -ENOMEM.
 */
int xp_fin_add(struct xp_fin *dst, const struct xp_fin *src);
/* @out = combine(@a, @b), built from xp_fin_add.  @out must not alias @a or @b. */
int xp_fin_combine(struct xp_fin *out, const struct xp_fin *a, const struct xp_fin *b);
/* Free what @f holds (its values and chains). */
void xp_fin_free(struct xp_fin *f);

/* Nearest-rank percentile @pct (1..100) of the calibrated deltas. */
uint64_t xp_fin_percentile(const struct xp_fin *f, unsigned pct);

#endif
