// SPDX-License-Identifier: MIT
/* finalize: subtract the calibration once per process; combine processes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/finalize.h"
#include "model/bins_add.h"
#include "model/merge.h"
#include "util/num.h"

static uint64_t sub_clamp(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * A bucket's midpoint, kept inside [floor, max]: the floor's bucket may
 * start below the floor, and the top bucket may reach above the largest
 * delta seen.  Both clamps are monotone, so the values stay ascending.
 */
static uint64_t bucket_value(const struct xp_acc *acc, uint32_t bucket)
{
	uint64_t v = xp_hist_mid(bucket);

	if (acc->floor != EXTPROF_FLOOR_NONE && v < acc->floor)
		v = acc->floor;
	if (acc->floor != EXTPROF_FLOOR_NONE && acc->max >= acc->floor && v > acc->max)
		v = acc->max;
	return v;
}

/* Into @out->bins, which has room for acc->hist.n bins (allocated when NULL). */
static int finalize_hist(struct xp_vhist *out, const struct xp_acc *acc, uint64_t calibration)
{
	out->n = 0;
	if (!acc->hist.n)
		return 0;
	if (!out->bins)
		out->bins = malloc(acc->hist.n * sizeof(*out->bins));
	if (!out->bins)
		return -ENOMEM;
	for (size_t i = 0; i < acc->hist.n; i++) {
		uint64_t v = sub_clamp(bucket_value(acc, acc->hist.bins[i].bucket), calibration);
		uint64_t c = acc->hist.bins[i].count;

		if (out->n && out->bins[out->n - 1].value == v)
			out->bins[out->n - 1].count = xp_sat_add(out->bins[out->n - 1].count, c);
		else
			out->bins[out->n++] = (struct xp_vbin){v, c};
	}
	return 0;
}

/*
 * Merging keeps the hits of the lower floor only, so workers whose floors
 * differ by less than the margin lose each other's hits.  The merged
 * histogram knows better: every evaluation in a bucket that lies wholly
 * within the margin of the merged floor is a hit.  That count is a lower
 * bound (a bucket straddling the margin is left out), so the larger of the
 * two is still a count of evaluations that really were within the margin.
 */
static uint64_t hits_in_hist(const struct xp_acc *acc, uint32_t counter)
{
	uint64_t limit, n = 0;

	if (acc->floor == EXTPROF_FLOOR_NONE)
		return 0;
	limit = xp_sat_add(acc->floor, extprof_floor_margin(counter, acc->floor));
	for (size_t i = 0; i < acc->hist.n; i++) {
		uint32_t b = acc->hist.bins[i].bucket;

		if (extprof_hist_lower(b) + (extprof_hist_width(b) - 1) > limit)
			break;
		n = xp_sat_add(n, acc->hist.bins[i].count);
	}
	return n;
}

/*
 * The floor refined below the counter's step from the histogram
 * (extprof_refine_*, docs/floors.md): the rule the shim's calibration
 * follows too, so that the two cancel.
 */
static uint64_t refined_floor(const struct xp_acc *acc)
{
	struct extprof_refine r;

	extprof_refine_init(&r, acc->floor, acc->step);
	for (size_t i = 0; i < acc->hist.n; i++)
		extprof_refine_add(&r, acc->hist.bins[i].bucket, acc->hist.bins[i].count);
	return extprof_refine_floor(&r);
}

static uint64_t hist_total(const struct xp_acc *acc)
{
	uint64_t n = 0;

	for (size_t i = 0; i < acc->hist.n; i++)
		n = xp_sat_add(n, acc->hist.bins[i].count);
	return n;
}

/*
 * What the calls took: the deltas' sum less the hook's.  With steps only the
 * @samples stepped evaluations have deltas: their mean times all of them.
 */
static uint64_t finalize_observed(const struct xp_acc *acc, uint64_t calibration, uint32_t counter,
				  uint64_t samples)
{
	unsigned __int128 v;

	if (counter != EXTPROF_COUNTER_STEPS)
		return sub_clamp(acc->sum, xp_sat_mul(calibration, acc->evaluations));
	if (!samples)
		return 0;
	v = ((unsigned __int128)sub_clamp(acc->sum, xp_sat_mul(calibration, samples)) *
		     acc->evaluations +
	     samples / 2) /
	    samples;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* The figures of xp_finalize; the histogram and chains are left to the callers. */
static void finalize_fields(struct xp_fin *out, const struct xp_acc *acc, uint64_t calibration,
			    uint32_t counter)
{
	uint64_t near = hits_in_hist(acc, counter);

	out->evaluations = acc->evaluations;
	out->samples = hist_total(acc);
	out->floor = acc->floor == EXTPROF_FLOOR_NONE ? EXTPROF_FLOOR_NONE
						      : sub_clamp(refined_floor(acc), calibration);
	out->hits = acc->hits > near ? acc->hits : near;
	out->observed = finalize_observed(acc, calibration, counter, out->samples);
	out->tally = acc->tally;
	out->inner = acc->inner;
	out->inner_observed = sub_clamp(acc->inner_sum, xp_sat_mul(calibration, acc->inner));
}

/* Room on the stack for the usual histogram: no allocation per process and declaration. */
#define FIN_STACK_BINS 64

int xp_finalize_add(struct xp_fin *dst, const struct xp_acc *acc, uint64_t calibration,
		    uint32_t counter)
{
	struct xp_vbin stack[FIN_STACK_BINS];
	struct xp_fin f = {0};
	int err;

	finalize_fields(&f, acc, calibration, counter);
	f.vals.bins = acc->hist.n <= FIN_STACK_BINS ? stack : NULL;
	err = finalize_hist(&f.vals, acc, calibration);
	if (!err)
		err = xp_chains_finalize(&f.chains, &acc->chains, calibration);
	if (!err)
		err = xp_chains_finalize(&f.parents, &acc->parents, calibration);
	if (!err)
		err = xp_fin_add(dst, &f);
	if (f.vals.bins == stack)
		f.vals.bins = NULL;
	xp_fin_free(&f);
	return err;
}

/* @dst += @src in place, as xp_hist_add does for buckets. */
static int vhist_add(struct xp_vhist *dst, const struct xp_vhist *src);
XP_DEFINE_BINS_ADD(vhist_add, struct xp_vhist, struct xp_vbin, value)

int xp_fin_add(struct xp_fin *dst, const struct xp_fin *src)
{
	int err = vhist_add(&dst->vals, &src->vals) ?: xp_chains_add(&dst->chains, &src->chains)
							 ?: xp_chains_add(&dst->parents, &src->parents);

	if (err)
		return err;
	dst->inner = xp_sat_add(dst->inner, src->inner);
	dst->inner_observed = xp_sat_add(dst->inner_observed, src->inner_observed);
	dst->evaluations = xp_sat_add(dst->evaluations, src->evaluations);
	dst->samples = xp_sat_add(dst->samples, src->samples);
	xp_floor_merge(&dst->floor, &dst->hits, src->floor, src->hits);
	dst->observed = xp_sat_add(dst->observed, src->observed);
	xp_tally_add(&dst->tally, &src->tally);
	return 0;
}

XP_DEFINE_MERGE(xp_fin_combine, struct xp_fin, XP_FIN_EMPTY, xp_fin_add, xp_fin_free)

int xp_finalize(struct xp_fin *out, const struct xp_acc *acc, uint64_t calibration,
		uint32_t counter)
{
	int err;

	*out = (struct xp_fin)XP_FIN_EMPTY;
	err = xp_finalize_add(out, acc, calibration, counter);
	if (err)
		xp_fin_free(out);
	return err;
}

void xp_fin_free(struct xp_fin *f)
{
	free(f->vals.bins);
	f->vals.bins = NULL;
	f->vals.n = 0;
	xp_chains_free(&f->chains);
	xp_chains_free(&f->parents);
}

uint64_t xp_fin_percentile(const struct xp_fin *f, unsigned pct)
{
	unsigned __int128 total = 0, rank, seen = 0;

	for (size_t i = 0; i < f->vals.n; i++)
		total += f->vals.bins[i].count;
	if (!total)
		return f->floor == EXTPROF_FLOOR_NONE ? 0 : f->floor;
	rank = (total * pct + 99) / 100;
	if (!rank)
		rank = 1;
	for (size_t i = 0; i < f->vals.n; i++) {
		seen += f->vals.bins[i].count;
		if (seen >= rank)
			return f->vals.bins[i].value;
	}
	return f->vals.bins[f->vals.n - 1].value;
}
