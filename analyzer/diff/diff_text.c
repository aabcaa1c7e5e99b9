// SPDX-License-Identifier: MIT
/*
 * diff_text: the comparison for a person.  What was compared and whether
 * the two sides are comparable, the threshold if one was given, then one
 * row per declaration: each figure before and after and its change.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "diff/diff.h"
#include "util/num.h"
#include "util/text_table.h"

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

/* "margin       ..." : what a change must exceed to be real. */
static void text_margin(FILE *out, const struct xp_diff *d)
{
	bool spread = d->base->runs > 1 || d->next->runs > 1;
	char a[XP_U64_BUF];

	fputs("margin       ", out);
	if (d->deterministic)
		fputs("none: the counter is deterministic, every change is real", out);
	else {
		fprintf(out, "2 steps of %s ", xp_fmt_u64(a, d->step));
		xp_text_put(out, d->base->counter_unit);
		fputs(" per evaluation (the counter's step)", out);
	}
	if (spread)
		fprintf(out, "%s the spread of each side's runs (base %zu, new %zu)",
			d->deterministic ? "; beyond" : ", plus", d->base->runs, d->next->runs);
	else if (!d->deterministic)
		fputs("; one run a side: the machine's drift from run to run is not in it", out);
	fputc('\n', out);
}

static void text_head(FILE *out, const struct xp_diff *d, const char *bold, const char *warn,
		      const char *off)
{
	const struct xp_report *b = d->base;
	char a[64];

	fprintf(out, "%sextprof diff%s: %zu declaration%s, %zu over the threshold", bold, off,
		d->nrows, d->nrows == 1 ? "" : "s", d->nover);
	if (d->nnoise)
		fprintf(out, ", %zu within the margin", d->nnoise);
	fputc('\n', out);
	text_side(out, "base", d->base_name, d->base);
	text_side(out, "new", d->next_name, d->next);
	fputs("counter      ", out);
	xp_text_put(out, b->counter_name);
	fputs(" (", out);
	xp_text_put(out, b->counter_unit);
	fprintf(out, "), %s\n", b->deterministic ? "deterministic" : "not deterministic");
	fprintf(out, "per-eval     %s\n", stat_says[b->opts.stat]);
	text_margin(out, d);
	if (d->opts.fail_above >= 0) {
		snprintf(a, sizeof(a), "%.10g", d->opts.fail_above);
		fprintf(out,
			"fail above   %s grew by more than %s%%, beyond the margin: %zu "
			"declaration%s\n",
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

/* The last column: over, within the margin, unjudged, appeared, vanished. */
static const char *text_verdict(const struct xp_diff *d, const struct xp_diff_row *x, char *buf,
				size_t size)
{
	if (x->over)
		snprintf(buf, size, "over %.10g%%", d->opts.fail_above);
	else if (x->status >= XP_DIFF_APPEARED)
		snprintf(buf, size, "%s", xp_diff_status_names[x->status]);
	else if (!xp_diff_within_margin(d, x))
		buf[0] = '\0';
	else if (x->margin[d->opts.metric] == XP_DIFF_UNJUDGED)
		snprintf(buf, size, "unsettled");
	else
		snprintf(buf, size, "within margin");
	return buf;
}

/* Whether the table has a column for per-eval's margin: not when every one is 0. */
static bool text_has_margin(const struct xp_diff *d)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].margin[XP_DIFF_PER_EVAL])
			return true;
	return false;
}

static void text_row(struct xp_table *t, const struct xp_diff *d, const struct xp_diff_row *x,
		     bool margin)
{
	const struct xp_row *any = x->next ? x->next : x->base;
	char buf[64], a[XP_U64_BUF];

	xp_table_add(t, any->kind);
	if (d->base->opts.by != XP_BY_NONE)
		xp_table_add(t, any->group ? any->group : "");
	xp_table_addf(t, "%s%s%s", any->symbol, any->object[0] ? "@" : "", any->object);
	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		text_value(t, x->base, (enum xp_diff_metric)m);
		text_value(t, x->next, (enum xp_diff_metric)m);
		xp_table_add(t, xp_diff_fmt_change(buf, sizeof(buf), x->change[m]));
		if (m != XP_DIFF_PER_EVAL || !margin)
			continue;
		if (!x->base || !x->next ||
		    (!x->base->fin.evaluations && !x->next->fin.evaluations))
			xp_table_add(t, "");
		else if (x->margin[m] == XP_DIFF_UNJUDGED)
			xp_table_add(t, "?");
		else
			xp_table_addf(t, "\xc2\xb1%s", xp_fmt_u64(a, x->margin[m]));
	}
	xp_table_add(t, text_verdict(d, x, buf, sizeof(buf)));
}

int xp_diff_text(const struct xp_diff *d, FILE *out, bool colour)
{
	static const char *const heads[] = {
		"kind", "declaration", "per-eval", "new", "change", "evaluations",
		"new",	"change",      "cost",	   "new", "change", "",
	};
	const char *bold = colour ? "\033[1m" : "", *warn = colour ? "\033[33m" : "";
	const char *off = colour ? "\033[0m" : "";
	bool margin = text_has_margin(d);
	bool grouped = d->base->opts.by != XP_BY_NONE;
	bool right[14] = {false, false, false, true, true, true, true,
			  true,	 true,	true,  true, true, true, true};
	size_t ncols = 12 + margin + grouped;
	struct xp_table t;
	int err;

	text_head(out, d, bold, warn, off);
	fputc('\n', out);
	if (!grouped)
		memmove(&right[1], &right[2], sizeof(right) - 2 * sizeof(right[0]));
	right[ncols - 1] = false;
	xp_table_init(&t, ncols, right);
	for (size_t i = 0; i < 12; i++) {
		xp_table_add(&t, heads[i]);
		if (i == 0 && grouped)
			xp_table_add(&t, xp_by_name(d->base->opts.by));
		if (i == 4 && margin)
			xp_table_add(&t, "margin");
	}
	for (size_t i = 0; i < d->nrows; i++)
		text_row(&t, d, &d->rows[i], margin);
	err = t.err;
	if (!err)
		xp_table_print(&t, out, bold, warn, off);
	xp_table_free(&t);
	if (!err)
		fputs("\nper-eval, evaluations, cost: the base's, then the new one's (new); change "
		      "="
		      " (new - base) / base\n"
		      "(+inf%: from 0; -: not in one of them); appeared: only in the new one;"
		      " vanished: only in the base\n"
		      "within margin: not beyond what the counter can promise (margin: per-eval's),"
		      " never over the threshold;\n"
		      "unsettled: a floor a single evaluation set, one run a side: no margin can be"
		      " promised (give several runs)\n",
		      out);
	return err;
}
