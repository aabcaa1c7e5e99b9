// SPDX-License-Identifier: MIT
/*
 * report_html: the report as one page for a browser (html.h): the text
 * report's header, the table (sorted by a click on a column), a flame
 * graph of the stacks every export draws (stacks.c: the nesting of the
 * hooked functions, and their callers), and the whole text report, folded.
 * A page one can open offline and send to a colleague.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/html.h"
#include "util/num.h"

/* The text report, without colour: what xp_html_capture prints. */
static int html_text_report(const void *r, FILE *out)
{
	return xp_report_text(r, out, false);
}

/* "12.3%" as the text report writes a share. */
static void html_share(FILE *out, const struct xp_report *r, double share)
{
	char buf[32];

	if (!r->run_total)
		snprintf(buf, sizeof(buf), "-");
	else if (share > 0 && share < 0.0005)
		snprintf(buf, sizeof(buf), "<0.1%%");
	else
		snprintf(buf, sizeof(buf), "%.1f%%", share * 100.0);
	xp_html_cell_num(out, share, buf);
}

/* Where a row ran: "BZ2_compressBlock@libbz2.so.1.0 (4)", and "top (2)". */
static void html_inside(FILE *out, const struct xp_report *r, const struct xp_nest *n)
{
	char a[XP_U64_BUF];

	fputs("<td class=\"l\">", out);
	for (size_t k = 0; k < n->nparts; k++) {
		const struct xp_nest_part *p = &n->parts[k];
		const struct xp_row *in = p->parent >= 0 ? &r->rows[p->parent] : NULL;

		if (k)
			fputs(", ", out);
		if (in) {
			xp_html_text(out, in->symbol, strlen(in->symbol));
			fputc('@', out);
			xp_html_text(out, in->object, strlen(in->object));
		} else {
			fputs("top", out);
		}
		fprintf(out, " (%s)", xp_fmt_u64(a, p->evaluations));
	}
	fputs("</td>", out);
}

static void html_table(FILE *out, const struct xp_report *r, const struct xp_nest *nest,
		       bool nesting)
{
	static const char *const heads[] = {"evaluations", "per-eval",	"cost",	   "share",
					    "observed",	   "obs share", "obs/cost"};
	char flags[XP_FLAGS_TEXT], name[32];
	bool recursive = false, abandoned = false;

	for (size_t i = 0; i < r->nrows; i++) {
		recursive = recursive || r->rows[i].fin.recursive;
		abandoned = abandoned || r->rows[i].fin.abandoned;
	}

	fputs("<h2>Declarations</h2>\n<table class=\"sortable\" id=\"rows\"><thead><tr>"
	      "<th class=\"l\">kind</th>",
	      out);
	if (r->by_exe)
		fputs("<th class=\"l\">executable</th>", out);
	fputs("<th class=\"l\">declaration</th>", out);
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		fprintf(out, "<th>%s</th>", heads[i]);
	if (recursive)
		fputs("<th>recursive</th>", out);
	if (abandoned)
		fputs("<th>abandoned</th>", out);
	if (nesting)
		fputs("<th>self cost</th><th>self observed</th><th class=\"l\">ran inside</th>",
		      out);
	fputs("<th class=\"l\">flags</th></tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct xp_row *row = &r->rows[i];

		fputs("<tr>", out);
		xp_html_cell(out, row->kind);
		if (r->by_exe)
			xp_html_cell(out, row->exe ? row->exe : "");
		fputs("<td class=\"l\">", out);
		xp_html_text(out, row->symbol, strlen(row->symbol));
		if (row->object[0]) {
			fputc('@', out);
			xp_html_text(out, row->object, strlen(row->object));
		}
		fputs("</td>", out);
		xp_html_cell_u64(out, row->fin.evaluations);
		xp_html_cell_u64(out, row->per_eval);
		xp_html_cell_u64(out, row->cost);
		html_share(out, r, row->share);
		xp_html_cell_u64(out, row->fin.observed);
		html_share(out, r, row->observed_share);
		if (row->cost) {
			double v = (double)row->fin.observed / (double)row->cost;

			snprintf(name, sizeof(name), "%.2f", v);
			xp_html_cell_num(out, v, name);
		} else {
			xp_html_cell_num(out, -1, "-");
		}
		if (recursive)
			xp_html_cell_u64(out, row->fin.recursive);
		if (abandoned)
			xp_html_cell_u64(out, row->fin.abandoned);
		if (nesting) {
			xp_html_cell_u64(out, nest[i].self_cost);
			xp_html_cell_u64(out, nest[i].self_observed);
			html_inside(out, r, &nest[i]);
		}
		xp_html_cell(out, xp_flags_text(flags, sizeof(flags), row->flags));
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

int xp_report_html(const struct xp_report *r, FILE *out)
{
	const char *slash = strrchr(r->exe_path, '/');
	struct xp_decl_index x;
	struct xp_nest *nest = NULL;
	struct xp_stacks st;
	size_t len = 0, head;
	char *text = xp_html_capture(html_text_report, r, &len), *title = NULL;
	int err = text ? 0 : -ENOMEM;

	if (!err)
		err = xp_decl_index_build(&x, r);
	if (!err) {
		err = xp_report_nest(r, &x, &nest);
		xp_decl_index_free(&x);
	}
	if (!err)
		err = xp_stacks_build(&st, r);
	if (err) {
		free(text);
		xp_nest_free(nest, nest ? r->nrows : 0);
		return err;
	}
	if (asprintf(&title, "extprof report: %s",
		     r->exe_path[0] ? (slash ? slash + 1 : r->exe_path) : "no program") < 0)
		title = NULL;
	xp_html_begin(out, title ? title : "extprof report");
	/* the header: the text report up to its first blank line */
	head = strstr(text, "\n\n") ? (size_t)(strstr(text, "\n\n") - text) + 1 : len;
	fputs("<pre class=\"head\">", out);
	xp_html_text(out, text, head);
	fputs("</pre>\n", out);
	xp_html_flame(out, "stacks", "Where the run went: hooked functions inside each other",
		      r->counter_unit);
	html_table(out, r, nest, xp_nest_any(nest, r->nrows));
	fputs("<details><summary>The text report</summary><pre class=\"head\">", out);
	xp_html_text(out, text, len);
	fputs("</pre></details>\n", out);
	err = xp_html_json(out, "stacks", xp_html_stacks_json, &st);
	xp_html_end(out);
	xp_stacks_free(&st);
	xp_nest_free(nest, r->nrows);
	free(title);
	free(text);
	return err;
}
