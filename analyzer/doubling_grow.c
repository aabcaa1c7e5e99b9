// SPDX-License-Identifier: MIT
/* doubling_grow: per declaration and value, the ratios, their classes and the fits. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "doubling.h"

static int grow_one(const struct xp_doubling *d, const struct xp_dbl_decl *x, enum xp_dbl_value v,
		    struct xp_dbl_growth *g)
{
	size_t k = d->nsizes, m = 0;
	double *n = calloc(k, sizeof(*n)), *y = calloc(k, sizeof(*y));
	size_t nr = k > 1 ? k - 1 : 1;

	g->ratio = calloc(nr, sizeof(*g->ratio));
	g->per_dbl = calloc(nr, sizeof(*g->per_dbl));
	g->cls = calloc(nr, sizeof(*g->cls));
	if (!n || !y || !g->ratio || !g->per_dbl || !g->cls) {
		free(n);
		free(y);
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
	/* The fits see the sizes the declaration was seen at. */
	for (size_t i = 0; i < k; i++) {
		if (!x->pts[i].present)
			continue;
		n[m] = (double)d->sizes[i].n;
		y[m++] = (double)x->pts[i].v[v];
	}
	xp_dbl_slope(n, y, m, &g->slope);
	xp_dbl_fit(n, y, m, &g->fit);
	free(n);
	free(y);
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
