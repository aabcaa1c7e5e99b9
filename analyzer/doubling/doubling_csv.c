// SPDX-License-Identifier: MIT
/*
 * doubling_csv: one row per declaration and size (the long format a
 * spreadsheet pivots), RFC 4180 as the report's CSV.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "doubling/doubling.h"
#include "util/out.h"

/* ",value,ratio,class" of one value at size @i (ratio and class empty at the first). */
static void csv_value(FILE *out, const struct xp_dbl_decl *x, size_t i, enum xp_dbl_value v)
{
	const struct xp_dbl_growth *g = &x->g[v];

	fputc(',', out);
	if (x->pts[i].present)
		fprintf(out, "%llu", (unsigned long long)x->pts[i].v[v]);
	fputc(',', out);
	if (i && isfinite(g->ratio[i - 1]))
		fprintf(out, "%.6g", g->ratio[i - 1]);
	fputc(',', out);
	if (i && g->cls[i - 1] != XP_CLASS_NONE)
		xp_out_csv_field(out, xp_dbl_class_name(g->cls[i - 1], false));
}

int xp_dbl_csv(const struct xp_doubling *d, FILE *out)
{
	fputs("kind,name,object,n,per_eval,per_eval_ratio,per_eval_class,evaluations,"
	      "evaluations_ratio,evaluations_class,cost,cost_ratio,cost_class,stat\r\n",
	      out);
	for (size_t k = 0; k < d->ndecls; k++) {
		const struct xp_dbl_decl *x = &d->decls[k];

		for (size_t i = 0; i < d->nsizes; i++) {
			xp_out_csv_field(out, x->kind);
			fputc(',', out);
			xp_out_csv_field(out, x->symbol);
			fputc(',', out);
			xp_out_csv_field(out, x->object);
			fprintf(out, ",%llu", (unsigned long long)d->sizes[i].n);
			for (int v = 0; v < XP_DBL_NVALUES; v++)
				csv_value(out, x, i, (enum xp_dbl_value)v);
			fprintf(out, ",%s\r\n", xp_stat_name(x->stat));
		}
	}
	return 0;
}
