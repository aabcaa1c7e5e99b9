// SPDX-License-Identifier: MIT
/*
 * doubling_text: the doubling test for a person.  A header that says what
 * can be trusted (counter, statistic, sizes, runs), then per declaration
 * the Alnoms table (N, value, ratio, class) for per-eval, evaluations and
 * cost side by side, the fits, and where the growth of cost comes from.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "doubling/doubling.h"
#include "util/num.h"
#include "util/text_table.h"

/* A ratio as a person reads it: 2.00, 15.3, 256, 65,536. */
static char *fmt_ratio(char *buf, size_t len, double r)
{
	char u[XP_U64_BUF];

	if (!isfinite(r))
		snprintf(buf, len, "-");
	else if (r >= 1000 && r < 1.8e19)
		snprintf(buf, len, "%s", xp_fmt_u64(u, (uint64_t)(r + 0.5)));
	else if (r >= 1000)
		snprintf(buf, len, "%.3g", r);
	else
		snprintf(buf, len, r >= 100 ? "%.0f" : r >= 10 ? "%.1f" : "%.2f", r);
	return buf;
}

static bool all_doublings(const struct xp_doubling *d)
{
	for (size_t i = 0; i + 1 < d->nsizes; i++)
		if (d->sizes[i + 1].n != 2 * d->sizes[i].n)
			return false;
	return true;
}

static void text_head(const struct xp_doubling *d, FILE *out)
{
	char a[XP_U64_BUF], b[XP_U64_BUF];
	bool same = true;
	uint64_t cmin = UINT64_MAX, cmax = 0;

	for (size_t i = 0; i < d->nsizes; i++) {
		same &= d->sizes[i].runs == d->sizes[0].runs;
		cmin = d->sizes[i].calibration < cmin ? d->sizes[i].calibration : cmin;
		cmax = d->sizes[i].calibration_max > cmax ? d->sizes[i].calibration_max : cmax;
	}
	fprintf(out, "extprof doubling: %zu size%s, N from %s to %s\n", d->nsizes,
		d->nsizes == 1 ? "" : "s", xp_fmt_u64(a, d->sizes[0].n),
		xp_fmt_u64(b, d->sizes[d->nsizes - 1].n));
	fputs("counter      ", out);
	xp_text_put(out, d->counter_name);
	fprintf(out, " (%s), %s\n", d->counter_unit,
		d->deterministic ? "deterministic: the same work gives the same count"
				 : "not deterministic: compare floors, allow for noise");
	if (cmin == cmax)
		fprintf(out, "calibration  %s %s per evaluation, subtracted per process\n",
			xp_fmt_u64(a, cmin), d->counter_unit);
	else
		fprintf(out, "calibration  %s to %s %s per evaluation, each process's own\n",
			xp_fmt_u64(a, cmin), xp_fmt_u64(b, cmax), d->counter_unit);
	fprintf(out, "per-eval     %s%s\n", xp_stat_name(d->opts.stat),
		d->opts.stat == XP_STAT_AUTO
			? ": the floor (min), or the mean where a declaration is"
			  " state-dependent at most of its sizes"
		: d->opts.stat == XP_STAT_MIN ? ": the floor, less calibration"
					      : ", less calibration");
	fputs("runs         ", out);
	if (same)
		fprintf(out, "%zu at each size", d->sizes[0].runs);
	else
		for (size_t i = 0; i < d->nsizes; i++)
			fprintf(out, "%s%zu at N=%" PRIu64, i ? ", " : "", d->sizes[i].runs,
				d->sizes[i].n);
	if (d->sizes[0].runs > 1 || !same)
		fprintf(out, ", per-eval combined by %s, evaluations by median",
			d->opts.stat == XP_STAT_AUTO ? "its statistic"
						     : xp_stat_name(d->opts.stat));
	if (d->warmup)
		fprintf(out, ", after %u warmup run%s", d->warmup, d->warmup == 1 ? "" : "s");
	fputc('\n', out);
	if (d->base) {
		fputs("dumps        ", out);
		xp_text_put(out, d->base);
		fputc('\n', out);
	}
	if (d->stopped)
		fprintf(out,
			"stopped      at N=%s: a run took %.2f s, more than --timeout %g s; %zu of "
			"%zu sizes run\n",
			xp_fmt_u64(a, d->stopped_at), d->stopped_seconds, d->timeout, d->nsizes,
			d->sizes_asked);
	for (size_t i = 0; i < d->nwarnings; i++) {
		fputs("warning: ", out);
		xp_text_put(out, d->warnings[i]);
		fputc('\n', out);
	}
}

static void table_value(struct xp_table *t, const struct xp_dbl_decl *x, size_t i,
			enum xp_dbl_value v, bool doublings)
{
	const struct xp_dbl_growth *g = &x->g[v];
	char a[XP_U64_BUF], r1[32], r2[32];

	xp_table_add(t, x->pts[i].present ? xp_fmt_u64(a, x->pts[i].v[v]) : "-");
	if (!i) {
		xp_table_add(t, "-");
		xp_table_add(t, "");
		return;
	}
	fmt_ratio(r1, sizeof(r1), g->ratio[i - 1]);
	if (doublings || !isfinite(g->ratio[i - 1]))
		xp_table_add(t, r1);
	else
		xp_table_addf(t, "%s (%s)", r1, fmt_ratio(r2, sizeof(r2), g->per_dbl[i - 1]));
	xp_table_add(t,
		     g->cls[i - 1] == XP_CLASS_NONE ? "-" : xp_dbl_class_name(g->cls[i - 1], true));
}

static void decl_table(const struct xp_doubling *d, const struct xp_dbl_decl *x, FILE *out)
{
	static const bool right[10] = {true, true,  true, false, true,
				       true, false, true, true,	 false};
	static const enum xp_dbl_value order[3] = {XP_DBL_PER_EVAL, XP_DBL_EVALUATIONS,
						   XP_DBL_COST};
	bool doublings = all_doublings(d);
	char a[XP_U64_BUF];
	struct xp_table t;

	xp_table_init(&t, 10, right);
	xp_table_add(&t, "N");
	for (int v = 0; v < 3; v++) {
		xp_table_add(&t, xp_dbl_value_names[order[v]]);
		xp_table_add(&t, doublings ? "ratio" : "ratio (per x2)");
		xp_table_add(&t, "class");
	}
	for (size_t i = 0; i < d->nsizes; i++) {
		xp_table_add(&t, xp_fmt_u64(a, d->sizes[i].n));
		for (int v = 0; v < 3; v++)
			table_value(&t, x, i, order[v], doublings);
	}
	xp_table_print(&t, out, "", "", "");
	xp_table_free(&t);
}

static void decl_fit(const struct xp_dbl_growth *g, const char *name, FILE *out)
{
	const struct xp_dbl_fit *f = &g->fit;

	fprintf(out, "  %-12s ", name);
	if (g->slope.ok)
		fprintf(out, "N^%.2f (R² %.3f)", g->slope.exponent, g->slope.r2);
	else
		fprintf(out, "no slope (fewer than %d sizes with a value above 0)",
			XP_DBL_FIT_MIN_SIZES);
	if (!f->ok)
		fprintf(out, ", best fit: %s\n", f->why);
	else if (f->best == XP_MODEL_1 && f->a[XP_MODEL_1] == 0)
		fputs(", best fit 1 (0 at every size)\n", out);
	else
		fprintf(out, ", best fit %s (error %.1f%%)\n", xp_dbl_model_name(f->best, true),
			100.0 * f->nrms[f->best]);
}

static void decl_summary(const struct xp_doubling *d, const struct xp_dbl_decl *x, FILE *out)
{
	char a[XP_U64_BUF], b[XP_U64_BUF], rc[32], re[32], rp[32];
	struct xp_dbl_split s;
	const char *mostly;
	double sh;

	fprintf(out, "  %-12s ", "summary");
	if (!xp_dbl_decl_split(d, x, &s)) {
		fputs("no growth to split: fewer than 2 sizes where it was called and cost above "
		      "0\n",
		      out);
		return;
	}
	sh = s.evaluations_share;
	if (s.cost >= 1)
		mostly = !isfinite(sh) ? "flat"
			 : sh >= 0.75  ? "mostly from being called more"
			 : sh <= 0.25  ? "mostly from costing more per call"
				       : "from both being called more and costing more per call";
	else
		mostly = sh >= 0.75   ? "mostly from being called less"
			 : sh <= 0.25 ? "mostly from costing less per call"
				      : "from both being called less and costing less per call";
	/* no "-0%" */
	if (isfinite(sh) && fabs(sh) < 0.005)
		sh = 0;
	if (isfinite(sh) && fabs(1.0 - sh) < 0.005)
		sh = 1;
	fprintf(out, "cost x%s from N=%s to N=%s, %s: evaluations x%s", fmt_ratio(rc, 32, s.cost),
		xp_fmt_u64(a, s.n1), xp_fmt_u64(b, s.n2), mostly, fmt_ratio(re, 32, s.evaluations));
	if (isfinite(sh))
		fprintf(out, " (%.0f%%)", 100.0 * sh);
	fprintf(out, ", per-eval x%s", fmt_ratio(rp, 32, s.per_eval));
	if (isfinite(sh))
		fprintf(out, " (%.0f%%)", 100.0 * (1.0 - sh));
	fputc('\n', out);
}

static bool never_called(const struct xp_doubling *d, const struct xp_dbl_decl *x)
{
	for (size_t i = 0; i < d->nsizes; i++)
		if (x->pts[i].v[XP_DBL_EVALUATIONS])
			return false;
	return true;
}

static void decl_name(const struct xp_dbl_decl *x, FILE *out)
{
	xp_text_put(out, x->kind);
	fputc(' ', out);
	xp_text_put(out, x->symbol);
	fputc('@', out);
	xp_text_put(out, x->object);
}

static void text_legend(FILE *out)
{
	fputs("ratio: the value over the one at the previous N; class: the Alnoms table on the\n"
	      "  ratio per doubling (2^e, e = log ratio / log(N2/N1)): below 1.4 O(1)/O(log N),\n"
	      "  1.4-2.8 O(N), 2.8-5.5 O(N²), 5.5-10 O(N³), above exponential\n"
	      "N^k: least-squares slope of log value on log N, R² how straight that line is;\n"
	      "  best fit: of 1, log N, N, N log N, N², N³, 2^N fitted as a + c·g(N), the "
	      "simplest\n"
	      "  within 10% of the smallest RMS error (error: RMS error / mean value)\n"
	      "summary: cost = evaluations x per-eval, so its growth splits into being called "
	      "more\n"
	      "  and costing more per call (shares of log cost growth)\n",
	      out);
}

int xp_dbl_text(const struct xp_doubling *d, FILE *out)
{
	size_t idle = 0;

	text_head(d, out);
	for (size_t i = 0; i < d->ndecls; i++) {
		const struct xp_dbl_decl *x = &d->decls[i];

		if (never_called(d, x)) {
			idle++;
			continue;
		}
		fputc('\n', out);
		decl_name(x, out);
		fprintf(out, " (stat %s%s)\n", xp_stat_name(x->stat),
			d->opts.stat == XP_STAT_AUTO && x->stat == XP_STAT_MEAN
				? ": state-dependent, its floor is its cheapest call"
				: "");
		decl_table(d, x, out);
		decl_fit(&x->g[XP_DBL_PER_EVAL], "per-eval", out);
		decl_fit(&x->g[XP_DBL_EVALUATIONS], "evaluations", out);
		decl_fit(&x->g[XP_DBL_COST], "cost", out);
		decl_summary(d, x, out);
	}
	if (idle) {
		fputs("\nhooked, never called at any size:", out);
		for (size_t i = 0; i < d->ndecls; i++) {
			if (!never_called(d, &d->decls[i]))
				continue;
			fputc(' ', out);
			decl_name(&d->decls[i], out);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
	text_legend(out);
	return 0;
}
