// SPDX-License-Identifier: MIT
/* chain: caller chains hashed by their frames' names, merged, finalized, sorted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/chain.h"
#include "model/merge.h"
#include "extprof/dump.h"
#include "util/num.h"

void xp_chain_merge(struct xp_chain *dst, const struct xp_chain *src)
{
	xp_floor_merge(&dst->floor, &dst->hits, src->floor, src->hits);
	dst->evaluations = xp_sat_add(dst->evaluations, src->evaluations);
	dst->sum = xp_sat_add(dst->sum, src->sum);
}

int xp_chains_put(struct xp_chain **h, const struct xp_chain *c)
{
	struct xp_chain *x;

	HASH_FIND(hh, *h, c->key, c->keylen, x);
	if (x) {
		xp_chain_merge(x, c);
		return 0;
	}
	/* a new chain is the neutral one, (EXTPROF_FLOOR_NONE, 0), merged with @c */
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->key = malloc(c->keylen + 1);
	if (!x->key) {
		free(x);
		return -ENOMEM;
	}
	memcpy(x->key, c->key, c->keylen);
	x->key[c->keylen] = '\0';
	x->keylen = c->keylen;
	x->depth = c->depth;
	x->floor = EXTPROF_FLOOR_NONE;
	xp_chain_merge(x, c);
	HASH_ADD_KEYPTR(hh, *h, x->key, x->keylen, x);
	return 0;
}

int xp_chains_add(struct xp_chain **dst, struct xp_chain *const *src)
{
	struct xp_chain *c, *tmp;
	int err = 0;

	HASH_ITER(hh, *src, c, tmp)
	{
		err = xp_chains_put(dst, c);
		if (err)
			break;
	}
	return err;
}

static uint64_t sub_clamp(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

int xp_chains_finalize(struct xp_chain **out, struct xp_chain *const *in, uint64_t calibration)
{
	struct xp_chain *c, *tmp, f;
	int err = 0;

	*out = NULL;
	HASH_ITER(hh, *in, c, tmp)
	{
		f = *c;
		if (f.floor != EXTPROF_FLOOR_NONE)
			f.floor = sub_clamp(f.floor, calibration);
		f.sum = sub_clamp(f.sum, xp_sat_mul(calibration, f.evaluations));
		err = xp_chains_put(out, &f);
		if (err) {
			xp_chains_free(out);
			break;
		}
	}
	return err;
}

void xp_chains_free(struct xp_chain **h)
{
	struct xp_chain *c, *tmp;

	HASH_ITER(hh, *h, c, tmp)
	{
		HASH_DEL(*h, c);
		free(c->key);
		free(c);
	}
	*h = NULL;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int cmp_chain(const void *pa, const void *pb)
{
	const struct xp_chain *a = *(const struct xp_chain *const *)pa;
	const struct xp_chain *b = *(const struct xp_chain *const *)pb;
	size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
	int c;

	if (!a->depth != !b->depth)
		return a->depth ? -1 : 1; /* "other" last */
	c = cmp_u64_desc(a->cost, b->cost);
	if (!c)
		c = cmp_u64_desc(a->evaluations, b->evaluations);
	if (!c)
		c = memcmp(a->key, b->key, n);
	if (!c)
		c = (a->keylen > b->keylen) - (a->keylen < b->keylen);
	return c;
}

int xp_chains_sorted(struct xp_chain *const *h, bool mean, struct xp_chain ***out, size_t *n)
{
	size_t count = HASH_COUNT(*h), i = 0;
	struct xp_chain **v, *c, *tmp;

	*out = NULL;
	*n = 0;
	if (!count)
		return 0;
	v = calloc(count, sizeof(*v));
	if (!v)
		return -ENOMEM;
	HASH_ITER(hh, *h, c, tmp)
	{
		if (!c->evaluations)
			c->per_eval = 0;
		else if (mean)
			c->per_eval = xp_div_round(c->sum, c->evaluations);
		else
			c->per_eval = c->floor == EXTPROF_FLOOR_NONE ? 0 : c->floor;
		c->cost = xp_sat_mul(c->per_eval, c->evaluations);
		c->settled = c->hits >= 2;
		v[i++] = c;
	}
	qsort(v, count, sizeof(*v), cmp_chain);
	*out = v;
	*n = count;
	return 0;
}

const char *xp_chain_next(const struct xp_chain *c, const char *frame)
{
	const char *next = frame + strlen(frame) + 1;

	return next < c->key + c->keylen ? next : NULL;
}
