// SPDX-License-Identifier: MIT
/*
 * diff_text: the comparison for a person.  What was compared and whether
 * the two sides are comparable, the threshold if one was given, then one
 * row per declaration: each figure before and after and its change.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "diff.h"
#include "num.h"
#include "text_table.h"

static const char *const stat_says[] = {
	[XP_STAT_MIN] = "min: the floor (least delta) less calibration",
	[XP_STAT_MEDIAN] = "median: p50 of the deltas less calibration",
	[XP_STAT_MEAN] = "mean: observed / evaluations",
};

static void text_side(FILE *out, const char *label, const char *name, const struct xp_report *r)
{
	fprintf(out, "%-12s ", label);
	xp_text_put(out, name);
	fprintf(out, ": %zu process%s, %zu worker%s", r->processes, r->processes == 1 ? "" : "es",
		r->workers, r->workers == 1 ? "" : "s");
	if (r->runs > 1)
		fprintf(out, ", %zu runs", r->runs);
	fprintf(out, ", %s; ", r->complete ? "complete" : "incomplete");
	xp_text_put(out, r->exe_path);
	fprintf(out, " (build-id %s)\n", r->build_id);
}

static void text_head(FILE *out, const struct xp_diff *d, const char *bold, const char *warn,
		      const char *off)
{
	const struct xp_report *b = d->base;
	char a[64];

	fprintf(out, "%sextprof diff%s: %zu declaration%s, %zu over the threshold\n", bold, off,
		d->nrows, d->nrows == 1 ? "" : "s", d->nover);
	text_side(out, "base", d->base_name, d->base);
	text_side(out, "new", d->next_name, d->next);
	fputs("counter      ", out);
	xp_text_put(out, b->counter_name);
	fputs(" (", out);
	xp_text_put(out, b->counter_unit);
	fprintf(out, "), %s\n", b->deterministic ? "deterministic" : "not deterministic");
	fprintf(out, "per-eval     %s\n", stat_says[b->opts.stat]);
	if (d->opts.fail_above >= 0) {
		snprintf(a, sizeof(a), "%.10g", d->opts.fail_above);
		fprintf(out, "fail above   %s grew by more than %s%%: %zu declaration%s\n",
			xp_diff_metric_names[d->opts.metric], a, d->nover,
			d->nover == 1 ? "" : "s");
	}
	for (size_t i = 0; i < d->nwarnings; i++) {
		fprintf(out, "%swarning%s: ", warn, off);
		xp_text_put(out, d->warnings[i]);
		fputc('\n', out);
	}
}

static void text_value(struct xp_table *t, const struct xp_row *row, enum xp_diff_metric m)
{
	char a[XP_U64_BUF];

	if (!row)
		xp_table_add(t, "-");
	else if (m == XP_DIFF_PER_EVAL && !row->fin.evaluations)
		xp_table_add(t, "-");
	else
		xp_table_add(t, xp_fmt_u64(a, xp_diff_value(row, m)));
}

static void text_row(struct xp_table *t, const struct xp_diff *d, const struct xp_diff_row *x)
{
	const struct xp_row *any = x->next ? x->next : x->base;
	char buf[64];

	xp_table_add(t, any->kind);
	xp_table_addf(t, "%s%s%s", any->symbol, any->object[0] ? "@" : "", any->object);
	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		text_value(t, x->base, (enum xp_diff_metric)m);
		text_value(t, x->next, (enum xp_diff_metric)m);
		xp_table_add(t, xp_diff_fmt_change(buf, sizeof(buf), x->change[m]));
	}
	if (x->over)
		xp_table_addf(t, "over %.10g%%", d->opts.fail_above);
	else
		xp_table_add(t,
			     x->status >= XP_DIFF_APPEARED ? xp_diff_status_names[x->status] : "");
}

int xp_diff_text(const struct xp_diff *d, FILE *out, bool colour)
{
	static const bool right[] = {false, false, true, true, true, true,
				     true,  true,  true, true, true, false};
	static const char *const heads[] = {
		"kind", "declaration", "per-eval", "new", "change", "evaluations",
		"new",	"change",      "cost",	   "new", "change", "",
	};
	const char *bold = colour ? "\033[1m" : "", *warn = colour ? "\033[33m" : "";
	const char *off = colour ? "\033[0m" : "";
	struct xp_table t;
	int err;

	text_head(out, d, bold, warn, off);
	fputc('\n', out);
	xp_table_init(&t, 12, right);
	for (size_t i = 0; i < 12; i++)
		xp_table_add(&t, heads[i]);
	for (size_t i = 0; i < d->nrows; i++)
		text_row(&t, d, &d->rows[i]);
	err = t.err;
	if (!err)
		xp_table_print(&t, out, bold, warn, off);
	xp_table_free(&t);
	if (!err)
		fputs("\nper-eval, evaluations, cost: the base's, then the new one's (new); change "
		      "="
		      " (new - base) / base\n"
		      "(+inf%: from 0; -: not in one of them); appeared: only in the new one;"
		      " vanished: only in the base\n",
		      out);
	return err;
}
