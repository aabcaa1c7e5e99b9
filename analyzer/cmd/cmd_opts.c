// SPDX-License-Identifier: MIT
/* cmd_opts: option handling the commands share. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/num.h"
#include "util/out.h"

void xp_bad_option(const char *cmd, char **argv)
{
	fprintf(stderr,
		"extprof: %s: unknown option or missing value in '%s' (see extprof %s --help)\n",
		cmd, argv[optind - 1], cmd);
}

int xp_opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max, const char *what,
	       uint64_t *out, struct xp_err *e)
{
	uint64_t v;

	if (xp_parse_u64(arg, &v) || v < min || v > max)
		return xp_err_set(e, -EINVAL, "%s %s: expected %s from %llu to %llu", opt, arg,
				  what, (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

int xp_opt_unsigned(const char *opt, const char *arg, unsigned min, unsigned max, const char *what,
		    unsigned *out, struct xp_err *e)
{
	uint64_t v;
	int err = xp_opt_u64(opt, arg, min, max, what, &v, e);

	if (!err)
		*out = (unsigned)v;
	return err;
}

/* --color WHEN: for every output of the command from now on. */
static int colour_opt(const char *arg, struct xp_err *e)
{
	if (!strcmp(arg, "auto"))
		xp_out_colour_set(XP_COLOUR_AUTO);
	else if (!strcmp(arg, "always"))
		xp_out_colour_set(XP_COLOUR_ALWAYS);
	else if (!strcmp(arg, "never"))
		xp_out_colour_set(XP_COLOUR_NEVER);
	else
		return xp_err_set(e, -EINVAL, "--color %s: expected auto, always or never", arg);
	return 0;
}

int xp_report_getopt(int opt, const char *arg, struct xp_report_opts *o, struct xp_err *e)
{
	switch (opt) {
	case XP_OPT_COLOR:
		return colour_opt(arg, e) ?: 1;
	case XP_OPT_FORMAT:
		return xp_report_opt_format(o, arg, e) ?: 1;
	case XP_OPT_SORT:
		return xp_report_opt_sort(o, arg, e) ?: 1;
	case XP_OPT_STAT:
		return xp_report_opt_stat(o, arg, e) ?: 1;
	case XP_OPT_FLAG_RATIO:
		return xp_report_opt_ratio(o, arg, e) ?: 1;
	case XP_OPT_STRICT:
		o->strict = true;
		return 1;
	case XP_OPT_ALLOW_MIXED:
		o->allow_mixed = true;
		return 1;
	case XP_OPT_SHOW_CALLERS:
		o->callers = true;
		return 1;
	case XP_OPT_BY:
		return xp_report_opt_by(o, arg, e) ?: 1;
	default:
		return 0;
	}
}
