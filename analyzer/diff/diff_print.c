// SPDX-License-Identifier: MIT
/* diff_print: the comparison in the chosen format; colour only for a terminal. */
#include "diff/diff.h"
#include "util/out.h"

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
		err = xp_diff_text(d, out, xp_out_colour(out));
		break;
	}
	return xp_out_finish(out, err);
}
