// SPDX-License-Identifier: MIT
/*
 * diff_csv: one row per declaration, RFC 4180 as the report's CSV: for each
 * of per_eval, evaluations and cost, the base's value, the new one's and
 * the change in percent (empty when a side lacks it or the base is 0).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/diff.h"
#include "util/out.h"

static void csv_value(FILE *out, const struct xp_row *row, enum xp_diff_metric m)
{
	fputc(',', out);
	if (row)
		fprintf(out, "%llu", (unsigned long long)xp_diff_value(row, m));
}

static void csv_row(FILE *out, const struct xp_diff *d, const struct xp_diff_row *x)
{
	const struct xp_row *any = x->next ? x->next : x->base;

	xp_out_csv_field(out, any->kind);
	fputc(',', out);
	xp_out_csv_field(out, any->symbol);
	fputc(',', out);
	xp_out_csv_field(out, any->object);
	fprintf(out, ",%s", xp_diff_status_names[x->status]);
	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		csv_value(out, x->base, (enum xp_diff_metric)m);
		csv_value(out, x->next, (enum xp_diff_metric)m);
		fputc(',', out);
		if (isfinite(x->change[m]))
			fprintf(out, "%.4f", x->change[m]);
	}
	fprintf(out, ",%s", x->over ? "true" : "false");
	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		fputc(',', out);
		if (x->base && x->next && x->margin[m] != XP_DIFF_UNJUDGED)
			fprintf(out, "%llu", (unsigned long long)x->margin[m]);
	}
	for (int m = 0; m < XP_DIFF_NMETRICS; m++)
		fprintf(out, ",%s", x->real[m] ? "true" : "false");
	if (d->base->opts.by != XP_BY_NONE) {
		fputc(',', out);
		xp_out_csv_field(out, any->group ? any->group : "");
	}
	fputs("\r\n", out);
}

int xp_diff_csv(const struct xp_diff *d, FILE *out)
{
	fputs("kind,name,object,status,base_per_eval,new_per_eval,per_eval_change,"
	      "base_evaluations,new_evaluations,evaluations_change,base_cost,new_cost,cost_change,"
	      "over,per_eval_margin,evaluations_margin,cost_margin,per_eval_real,evaluations_real,"
	      "cost_real",
	      out);
	/* with --by, last: the group */
	fputs(d->base->opts.by != XP_BY_NONE ? ",group\r\n" : "\r\n", out);
	for (size_t i = 0; i < d->nrows; i++)
		csv_row(out, d, &d->rows[i]);
	return 0;
}
