// SPDX-License-Identifier: MIT
/*
 * report_csv: the table alone, one row per declaration, RFC 4180: CRLF line
 * ends, a header row, fields quoted when they hold a comma, quote, CR or LF.
 */
#include <stdio.h>
#include <string.h>

#include "util/out.h"
#include "report/report.h"

static void csv_flags(FILE *out, unsigned flags)
{
	const char *sep = "";

	/* space-separated: one field, never needs quoting */
	for (int f = 0; f < XP_NFLAGS; f++)
		if (flags & (1u << f)) {
			fprintf(out, "%s%s", sep, xp_flag_names[f]);
			sep = " ";
		}
}

/* An end of a spread: its value, and its process's host, pid and rank. */
static void csv_end(FILE *out, const struct xp_spread_end *end)
{
	fprintf(out, ",%llu,", (unsigned long long)end->value);
	xp_out_csv_field(out, end->who.host);
	fprintf(out, ",%llu,", (unsigned long long)end->who.pid);
	if (end->who.rank >= 0)
		fprintf(out, "%lld", (long long)end->who.rank);
}

/* processes, per-eval least/median/greatest (and who), evaluations the same */
static void csv_spread(FILE *out, const struct xp_row *row)
{
	const struct xp_spread *s = &row->spread;

	fprintf(out, ",%llu,%llu", (unsigned long long)s->processes,
		(unsigned long long)s->measured);
	if (s->measured) {
		csv_end(out, &s->per_eval_lo);
		fprintf(out, ",%llu", (unsigned long long)xp_spread_median(&s->per_eval));
		csv_end(out, &s->per_eval_hi);
	} else {
		fputs(",,,,,,,,,", out);
	}
	csv_end(out, &s->evaluations_lo);
	fprintf(out, ",%llu", (unsigned long long)xp_spread_median(&s->evaluations));
	csv_end(out, &s->evaluations_hi);
}

static void csv_row(FILE *out, const struct xp_report *r, const struct xp_row *row)
{
	bool sampled = r->sampled, translated = r->translated;
	const struct xp_fin *f = &row->fin;

	xp_out_csv_field(out, row->kind);
	fputc(',', out);
	xp_out_csv_field(out, row->symbol);
	fputc(',', out);
	xp_out_csv_field(out, row->object);
	fprintf(out, ",%llu,%llu,%llu,%.9g,%llu,", (unsigned long long)f->evaluations,
		(unsigned long long)row->per_eval, (unsigned long long)row->cost, row->share,
		(unsigned long long)f->observed);
	if (row->cost)
		fprintf(out, "%.4f", (double)f->observed / (double)row->cost);
	fprintf(out, ",%s,%llu,%llu,%llu,%llu,%llu,%llu,", row->settled ? "true" : "false",
		(unsigned long long)f->hits, (unsigned long long)f->recursive,
		(unsigned long long)f->abandoned, (unsigned long long)f->outside,
		(unsigned long long)row->p50, (unsigned long long)row->p99);
	csv_flags(out, row->flags);
	fprintf(out, ",%.9g", row->observed_share);
	if (sampled)
		fprintf(out, ",%llu", (unsigned long long)f->samples);
	if (translated)
		fprintf(out, ",%llu", (unsigned long long)(f->evaluations - f->samples));
	if (row->exe) {
		fputc(',', out);
		xp_out_csv_field(out, row->exe);
	}
	if (r->by_cpu) {
		fputc(',', out);
		xp_out_csv_field(out, row->cpu ? row->cpu : "");
	}
	if (r->opts.by != XP_BY_NONE) {
		fputc(',', out);
		xp_out_csv_field(out, row->group ? row->group : "");
	}
	if (r->processes > 1)
		csv_spread(out, row);
	fputs("\r\n", out);
}

#define CSV_END(x) "," x "," x "_host," x "_pid," x "_rank"

int xp_report_csv(const struct xp_report *r, FILE *out)
{
	/*
	 * last columns: with steps, the stepped (trap) or
	 * not counted whole (translate); when the report keeps
	 * executables, CPU models or --by's groups apart, which; with several
	 * processes, the spread
	 */
	fputs("kind,name,object,evaluations,per_eval,cost,share,observed,observed_per_cost,"
	      "settled,hits,recursive,abandoned,outside,p50,p99,flags,observed_share",
	      out);
	if (r->sampled)
		fputs(",stepped", out);
	if (r->translated)
		fputs(",not_whole", out);
	if (r->by_exe)
		fputs(",executable", out);
	if (r->by_cpu)
		fputs(",cpu_model", out);
	if (r->opts.by != XP_BY_NONE)
		fputs(",group", out);
	/* with several processes: how each declaration spread over them */
	if (r->processes > 1)
		fputs(",processes,measured" CSV_END("per_eval_least") ",per_eval_median" CSV_END(
			      "per_eval_greatest")
			      CSV_END("evaluations_least") ",evaluations_median" CSV_END(
				      "evaluations_greatest"),
		      out);
	fputs("\r\n", out);
	for (size_t i = 0; i < r->nrows; i++)
		csv_row(out, r, &r->rows[i]);
	return 0;
}
