// SPDX-License-Identifier: MIT
/*
 * acc: the associative, commutative merge of two collects and of their
 * histograms: one body each, the in-place add (model/merge.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/acc.h"
#include "model/bins_add.h"
#include "model/merge.h"
#include "util/num.h"

void xp_hist_free(struct xp_hist *h)
{
	free(h->bins);
	h->bins = NULL;
	h->n = 0;
}

XP_DEFINE_BINS_ADD(xp_hist_add, struct xp_hist, struct xp_hbin, bucket)

XP_DEFINE_MERGE(xp_hist_merge, struct xp_hist, {0}, xp_hist_add, xp_hist_free)

void xp_tally_add(struct xp_tally *dst, const struct xp_tally *src)
{
	dst->recursive = xp_sat_add(dst->recursive, src->recursive);
	dst->abandoned = xp_sat_add(dst->abandoned, src->abandoned);
	dst->outside = xp_sat_add(dst->outside, src->outside);
	dst->negative = xp_sat_add(dst->negative, src->negative);
	dst->hist_lost = xp_sat_add(dst->hist_lost, src->hist_lost);
}

int xp_acc_add(struct xp_acc *dst, const struct xp_acc *src)
{
	int err = xp_hist_add(&dst->hist, &src->hist) ?: xp_chains_add(&dst->chains, &src->chains)
								  ?: xp_chains_add(&dst->parents, &src->parents);

	if (err)
		return err;
	dst->inner = xp_sat_add(dst->inner, src->inner);
	dst->inner_sum = xp_sat_add(dst->inner_sum, src->inner_sum);
	dst->evaluations = xp_sat_add(dst->evaluations, src->evaluations);
	xp_floor_merge(&dst->floor, &dst->hits, src->floor, src->hits);
	dst->sum = xp_sat_add(dst->sum, src->sum);
	dst->max = dst->max > src->max ? dst->max : src->max;
	dst->step = dst->step > src->step ? dst->step : src->step;
	xp_tally_add(&dst->tally, &src->tally);
	return 0;
}

XP_DEFINE_MERGE(xp_acc_merge, struct xp_acc, XP_ACC_EMPTY, xp_acc_add, xp_acc_free)

void xp_acc_free(struct xp_acc *a)
{
	xp_hist_free(&a->hist);
	xp_chains_free(&a->chains);
	xp_chains_free(&a->parents);
}
