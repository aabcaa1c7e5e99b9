// SPDX-License-Identifier: MIT
/* diff_print: the comparison in the chosen format; colour only for a terminal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"

static bool want_colour(FILE *out)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (no && *no)
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(out));
}

int xp_diff_print(const struct xp_diff *d, FILE *out)
{
	int err;

	switch (d->opts.format) {
	case XP_FORMAT_JSON:
		err = xp_diff_json(d, out);
		break;
	case XP_FORMAT_CSV:
		err = xp_diff_csv(d, out);
		break;
	case XP_FORMAT_TEXT:
	default:
		err = xp_diff_text(d, out, want_colour(out));
		break;
	}
	if (!err && (fflush(out) == EOF || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}
