// SPDX-License-Identifier: MIT
/* acc: the associative, commutative merge of two collects, and histograms. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/acc.h"
#include "model/bins_add.h"
#include "util/num.h"

void xp_hist_free(struct xp_hist *h)
{
	free(h->bins);
	h->bins = NULL;
	h->n = 0;
}

/* A sorted merge of two bucket lists, adding the counts of shared buckets. */
int xp_hist_merge(struct xp_hist *out, const struct xp_hist *a, const struct xp_hist *b)
{
	size_t i = 0, j = 0, n = 0;
	struct xp_hbin *bins;

	out->n = 0;
	out->bins = NULL;
	if (!a->n && !b->n)
		return 0;
	bins = malloc((a->n + b->n) * sizeof(*bins));
	if (!bins)
		return -ENOMEM;
	while (i < a->n || j < b->n) {
		if (j == b->n || (i < a->n && a->bins[i].bucket < b->bins[j].bucket)) {
			bins[n++] = a->bins[i++];
		} else if (i == a->n || b->bins[j].bucket < a->bins[i].bucket) {
			bins[n++] = b->bins[j++];
		} else {
			bins[n] = a->bins[i++];
			bins[n].count = xp_sat_add(bins[n].count, b->bins[j++].count);
			n++;
		}
	}
	out->bins = bins;
	out->n = n;
	return 0;
}

XP_DEFINE_BINS_ADD(xp_hist_add, struct xp_hist, struct xp_hbin, bucket)

static void merge_floor(struct xp_acc *out, const struct xp_acc *a, const struct xp_acc *b)
{
	if (a->floor < b->floor) {
		out->floor = a->floor;
		out->hits = a->hits;
	} else if (b->floor < a->floor) {
		out->floor = b->floor;
		out->hits = b->hits;
	} else {
		out->floor = a->floor;
		out->hits = xp_sat_add(a->hits, b->hits);
	}
}

int xp_acc_merge(struct xp_acc *out, const struct xp_acc *a, const struct xp_acc *b)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->evaluations = xp_sat_add(a->evaluations, b->evaluations);
	merge_floor(out, a, b);
	out->sum = xp_sat_add(a->sum, b->sum);
	out->max = a->max > b->max ? a->max : b->max;
	out->step = a->step > b->step ? a->step : b->step;
	out->recursive = xp_sat_add(a->recursive, b->recursive);
	out->abandoned = xp_sat_add(a->abandoned, b->abandoned);
	out->outside = xp_sat_add(a->outside, b->outside);
	out->negative = xp_sat_add(a->negative, b->negative);
	out->hist_lost = xp_sat_add(a->hist_lost, b->hist_lost);
	err = xp_hist_merge(&out->hist, &a->hist, &b->hist);
	if (!err)
		err = xp_chains_add(&out->chains, &a->chains);
	if (!err)
		err = xp_chains_add(&out->chains, &b->chains);
	if (err)
		xp_acc_free(out);
	return err;
}

/* @dst = merge(@dst, @src), in place: the same figures as xp_acc_merge. */
int xp_acc_add(struct xp_acc *dst, const struct xp_acc *src)
{
	struct xp_acc a = *dst;
	int err;

	err = xp_hist_add(&dst->hist, &src->hist);
	if (!err)
		err = xp_chains_add(&dst->chains, &src->chains);
	if (err)
		return err;
	dst->evaluations = xp_sat_add(a.evaluations, src->evaluations);
	merge_floor(dst, &a, src);
	dst->sum = xp_sat_add(a.sum, src->sum);
	dst->max = a.max > src->max ? a.max : src->max;
	dst->step = a.step > src->step ? a.step : src->step;
	dst->recursive = xp_sat_add(a.recursive, src->recursive);
	dst->abandoned = xp_sat_add(a.abandoned, src->abandoned);
	dst->outside = xp_sat_add(a.outside, src->outside);
	dst->negative = xp_sat_add(a.negative, src->negative);
	dst->hist_lost = xp_sat_add(a.hist_lost, src->hist_lost);
	return 0;
}

void xp_acc_free(struct xp_acc *a)
{
	xp_hist_free(&a->hist);
	xp_chains_free(&a->chains);
}
