// SPDX-License-Identifier: MIT
/* doubling_grow: per declaration and value, the ratios, their classes and the fits. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "doubling/doubling.h"

/*
 * How far a point may be off, as an RMS: for a counter that is not
 * deterministic, half a step for a per-eval (a floor and the calibration
 * subtracted from it are each read to within a step: their difference is
 * off by about half of one, on average), a cost that times its
 * evaluations; evaluations are counts.
 */
static double point_noise(const struct xp_doubling *d, const struct xp_dbl_point *p,
			  enum xp_dbl_value v)
{
	if (d->deterministic || v == XP_DBL_EVALUATIONS)
		return 0;
	if (v == XP_DBL_COST)
		return (double)d->step / 2 * (double)p->v[XP_DBL_EVALUATIONS];
	return (double)d->step / 2;
}

static int grow_one(const struct xp_doubling *d, const struct xp_dbl_decl *x, enum xp_dbl_value v,
		    struct xp_dbl_growth *g)
{
	size_t k = d->nsizes, m = 0, present = 0;
	double *n = calloc(k, sizeof(*n)), *y = calloc(k, sizeof(*y)), *sg = calloc(k, sizeof(*sg));
	size_t nr = k > 1 ? k - 1 : 1;

	g->ratio = calloc(nr, sizeof(*g->ratio));
	g->per_dbl = calloc(nr, sizeof(*g->per_dbl));
	g->cls = calloc(nr, sizeof(*g->cls));
	if (!n || !y || !sg || !g->ratio || !g->per_dbl || !g->cls) {
		free(n);
		free(y);
		free(sg);
		return -ENOMEM;
	}
	for (size_t i = 0; i + 1 < k; i++) {
		const struct xp_dbl_point *a = &x->pts[i], *b = &x->pts[i + 1];

		g->ratio[i] = a->present && b->present && a->v[v]
				      ? (double)b->v[v] / (double)a->v[v]
				      : NAN;
		g->per_dbl[i] = xp_dbl_per_doubling(g->ratio[i], (double)d->sizes[i].n,
						    (double)d->sizes[i + 1].n);
		g->cls[i] = xp_dbl_classify(g->per_dbl[i]);
	}
	/*
	 * The fits see the sizes the declaration was seen at.  A counter that
	 * is not deterministic reads 0 for what is below its step, not for
	 * nothing: those sizes are left out, as the slope leaves every 0 out.
	 */
	for (size_t i = 0; i < k; i++) {
		present += x->pts[i].present;
		if (!x->pts[i].present || (!d->deterministic && !x->pts[i].v[v]))
			continue;
		n[m] = (double)d->sizes[i].n;
		sg[m] = point_noise(d, &x->pts[i], v);
		y[m++] = (double)x->pts[i].v[v];
	}
	xp_dbl_slope(n, y, m, &g->slope);
	xp_dbl_fit(n, y, sg, m, &g->fit);
	if (!g->fit.ok && present >= XP_DBL_FIT_MIN_SIZES)
		g->fit.why = m ? "fewer than 3 sizes with a value above 0"
			       : "0 at every size: below the counter's step";
	free(n);
	free(y);
	free(sg);
	return 0;
}

int xp_dbl_grow(struct xp_doubling *d)
{
	for (size_t i = 0; i < d->ndecls; i++)
		for (int v = 0; v < XP_DBL_NVALUES; v++)
			if (grow_one(d, &d->decls[i], (enum xp_dbl_value)v, &d->decls[i].g[v]))
				return -ENOMEM;
	return 0;
}

static bool all_positive(const struct xp_dbl_point *p)
{
	return p->present && p->v[XP_DBL_PER_EVAL] && p->v[XP_DBL_EVALUATIONS] &&
	       p->v[XP_DBL_COST] && p->v[XP_DBL_COST] != UINT64_MAX;
}

bool xp_dbl_decl_split(const struct xp_doubling *d, const struct xp_dbl_decl *x,
		       struct xp_dbl_split *s)
{
	size_t i = 0, j = d->nsizes;
	const struct xp_dbl_point *a, *b;

	while (i < d->nsizes && !all_positive(&x->pts[i]))
		i++;
	while (j > i + 1 && !all_positive(&x->pts[j - 1]))
		j--;
	if (j <= i + 1 || i >= d->nsizes)
		return false;
	a = &x->pts[i];
	b = &x->pts[j - 1];
	s->n1 = d->sizes[i].n;
	s->n2 = d->sizes[j - 1].n;
	s->cost = (double)b->v[XP_DBL_COST] / (double)a->v[XP_DBL_COST];
	s->evaluations = (double)b->v[XP_DBL_EVALUATIONS] / (double)a->v[XP_DBL_EVALUATIONS];
	s->per_eval = (double)b->v[XP_DBL_PER_EVAL] / (double)a->v[XP_DBL_PER_EVAL];
	s->evaluations_share = fabs(log(s->cost)) > 1e-9 ? log(s->evaluations) / log(s->cost) : NAN;
	return true;
}
