// SPDX-License-Identifier: MIT
/*
 * report_print: a report in the format its options name, onto a stream or
 * into -o's file: the one printer of extprof report, top, run and attach.
 */
#include <stdio.h>

#include "export/export.h"
#include "util/out.h"

int xp_report_print(const struct xp_report *r, FILE *out)
{
	int err;

	switch (r->opts.format) {
	case XP_FORMAT_JSON:
		err = xp_report_json(r, out);
		break;
	case XP_FORMAT_CSV:
		err = xp_report_csv(r, out);
		break;
	case XP_FORMAT_CALLGRIND:
		err = xp_report_callgrind(r, out);
		break;
	case XP_FORMAT_PPROF:
		err = xp_report_pprof(r, out);
		break;
	case XP_FORMAT_FOLDED:
		err = xp_report_folded(r, out);
		break;
	case XP_FORMAT_HTML:
		err = xp_report_html(r, out);
		break;
	case XP_FORMAT_TEXT:
	default:
		err = xp_report_text(r, out, xp_out_colour(out));
		break;
	}
	return xp_out_finish(out, err);
}

static int report_print_any(const void *r, FILE *out)
{
	return xp_report_print(r, out);
}

int xp_report_write(const struct xp_report *r, const struct xp_report_opts *o, FILE *dflt,
		    struct xp_err *e)
{
	int err = o->output ? 0 : xp_report_check_dest(o, dflt, e);

	return err ? err : xp_write_output(o->output, dflt, report_print_any, r, e);
}
