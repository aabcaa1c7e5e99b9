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

static void csv_row(FILE *out, const struct xp_row *row, bool sampled, bool translated)
{
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
	fputs("\r\n", out);
}

int xp_report_csv(const struct xp_report *r, FILE *out)
{
	/* last columns: with steps, the stepped (trap) or not counted whole (translate);
	 * when the report keeps executables apart */
	fputs("kind,name,object,evaluations,per_eval,cost,share,observed,observed_per_cost,"
	      "settled,hits,recursive,abandoned,outside,p50,p99,flags,observed_share",
	      out);
	if (r->sampled)
		fputs(",stepped", out);
	if (r->translated)
		fputs(",not_whole", out);
	fputs(r->by_exe ? ",executable\r\n" : "\r\n", out);
	for (size_t i = 0; i < r->nrows; i++)
		csv_row(out, &r->rows[i], r->sampled, r->translated);
	return 0;
}
