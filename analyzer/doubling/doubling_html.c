// SPDX-License-Identifier: MIT
/*
 * doubling_html: the doubling test as one page for a browser (export/html.h):
 * the plot of the chosen value against N, inline as SVG, then a table of
 * every declaration (sorted by a click on a column): its value at each
 * size and how it grows (the slope of log value on log N, the best fit),
 * then the whole text report, folded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doubling/doubling.h"
#include "export/html.h"

/* The text report: what xp_html_capture prints. */
static int dbl_html_text(const void *d, FILE *out)
{
	return xp_dbl_text(d, out);
}

/* The plot, as SVG: its XML declaration left out, so that it sits in the page. */
static int dbl_html_plot(const struct xp_doubling *d, enum xp_dbl_value v, FILE *out)
{
	char *buf = NULL, *svg;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -ENOMEM;
	err = xp_dbl_plot_stream(d, v, true, f);
	if (fclose(f) && !err)
		err = -ENOMEM;
	svg = err ? NULL : strstr(buf, "<svg");
	if (svg) {
		fputs("<div class=\"plot\">", out);
		fwrite(svg, 1, len - (size_t)(svg - buf), out);
		fputs("</div>\n", out);
	}
	free(buf);
	return err ? err : svg ? 0 : -EIO;
}

static void dbl_html_table(const struct xp_doubling *d, enum xp_dbl_value v, FILE *out)
{
	char buf[64];

	fprintf(out,
		"<h2>%s at each N</h2>\n<table class=\"sortable\" id=\"rows\"><thead><tr>"
		"<th class=\"l\">kind</th><th class=\"l\">declaration</th>",
		xp_dbl_value_names[v]);
	for (size_t i = 0; i < d->nsizes; i++)
		fprintf(out, "<th>N=%llu</th>", (unsigned long long)d->sizes[i].n);
	fputs("<th>slope</th><th class=\"l\">best fit</th></tr></thead>\n<tbody>\n", out);
	for (size_t k = 0; k < d->ndecls; k++) {
		const struct xp_dbl_decl *x = &d->decls[k];
		const struct xp_dbl_growth *g = &x->g[v];

		fputs("<tr>", out);
		xp_html_cell(out, x->kind);
		snprintf(buf, sizeof(buf), "@%s", x->object);
		fputs("<td class=\"l\">", out);
		xp_html_text(out, x->symbol, strlen(x->symbol));
		xp_html_text(out, buf, strlen(buf));
		fputs("</td>", out);
		for (size_t i = 0; i < d->nsizes; i++)
			if (x->pts[i].present)
				xp_html_cell_u64(out, x->pts[i].v[v]);
			else
				xp_html_cell_num(out, -1, "-");
		if (g->slope.ok) {
			snprintf(buf, sizeof(buf), "N^%.2f", g->slope.exponent);
			xp_html_cell_num(out, g->slope.exponent, buf);
		} else {
			xp_html_cell_num(out, -1e300, "-");
		}
		xp_html_cell(out, g->fit.ok ? xp_dbl_model_name(g->fit.best, true) : "-");
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

int xp_dbl_html(const struct xp_doubling *d, enum xp_dbl_value v, FILE *out)
{
	size_t len = 0;
	char *text = xp_html_capture(dbl_html_text, d, &len), title[128];
	int err;

	if (!text)
		return -ENOMEM;
	snprintf(title, sizeof(title), "extprof doubling: %s against N", xp_dbl_value_names[v]);
	xp_html_begin(out, title);
	err = dbl_html_plot(d, v, out);
	dbl_html_table(d, v, out);
	fputs("<details><summary>The text report</summary><pre class=\"head\">", out);
	xp_html_text(out, text, len);
	fputs("</pre></details>\n", out);
	xp_html_end(out);
	free(text);
	return err;
}
