// SPDX-License-Identifier: MIT
/* report_print: the report in the chosen format; colour only for a terminal. */
#include "report/report.h"
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
	case XP_FORMAT_TEXT:
	default:
		err = xp_report_text(r, out, xp_out_colour(out));
		break;
	}
	return xp_out_finish(out, err);
}
