/* SPDX-License-Identifier: MIT */
/*
 * chain: the caller chains of one declaration (EXTPROF_CALLERS).  A chain
 * is keyed by the names of its frames, nearest caller first; "other" (the
 * evaluations whose chain found no free slot in the shim) has no frames.
 * Chains follow the algebra of their declaration without a histogram:
 * evaluations and sums add, floor = min, hits those of the lower floor,
 * added when the floors are equal.
 */
#ifndef XP_CHAIN_H
#define XP_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>

struct xp_chain {
	char *key;	/* the frames' names one after another, each NUL-terminated */
	size_t keylen;	/* 0 for "other" */
	uint32_t depth; /* frames in key; 0 for "other" */
	uint64_t evaluations;
	uint64_t floor; /* raw, or calibrated once finalized; EXTPROF_FLOOR_NONE if none */
	uint64_t hits;
	uint64_t sum; /* raw sum of deltas, or observed once finalized */
	/* the figures of a report row's chain (xp_chain_figures) */
	uint64_t per_eval;
	uint64_t cost;
	bool settled;
	UT_hash_handle hh;
};

/*
 * Fold one chain into the hash @h: merged with the chain of the same key,
 * or a new one (the key is copied).  0 or -ENOMEM.
 */
int xp_chains_put(struct xp_chain **h, const struct xp_chain *c);
/* Every chain of @src folded into @dst. */
int xp_chains_add(struct xp_chain **dst, struct xp_chain *const *src);
/* Finalize every chain of @in into @out with a process's @calibration. */
int xp_chains_finalize(struct xp_chain **out, struct xp_chain *const *in, uint64_t calibration);
/* Free every chain of @h and empty it. */
void xp_chains_free(struct xp_chain **h);

/* Merge @src into @dst, keys aside: the declaration's algebra without a histogram. */
void xp_chain_merge(struct xp_chain *dst, const struct xp_chain *src);

/*
 * The chains of @h as an array, most expensive first (cost, then
 * evaluations, then key), "other" last; per_eval, cost and settled set:
 * per_eval is the mean (observed / evaluations) for @mean, else the floor.
 * The array points into @h; free() it (NULL when @h is empty).  0 or -ENOMEM.
 */
int xp_chains_sorted(struct xp_chain *const *h, bool mean, struct xp_chain ***out, size_t *n);

/* The frame after @frame in its chain's key, or NULL after the last one. */
const char *xp_chain_next(const struct xp_chain *c, const char *frame);

#endif
