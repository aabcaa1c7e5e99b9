// SPDX-License-Identifier: MIT
/* report_print: the report in the chosen format; colour only for a terminal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

/* https://no-color.org: any non-empty NO_COLOR turns colour off. */
static bool want_colour(FILE *out)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (no && *no)
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(out));
}

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
	case XP_FORMAT_TEXT:
	default:
		err = xp_report_text(r, out, want_colour(out));
		break;
	}
	if (!err && (fflush(out) == EOF || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}
