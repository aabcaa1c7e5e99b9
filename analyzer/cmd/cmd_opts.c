// SPDX-License-Identifier: MIT
/* cmd_opts: option handling the commands share. */
#include <getopt.h>
#include <stdio.h>

#include "cmd/cmd.h"

void xp_bad_option(const char *cmd, char **argv)
{
	fprintf(stderr,
		"extprof: %s: unknown option or missing value in '%s' (see extprof %s --help)\n",
		cmd, argv[optind - 1], cmd);
}

int xp_report_getopt(int opt, const char *arg, struct xp_report_opts *o, struct xp_err *e)
{
	switch (opt) {
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
	default:
		return 0;
	}
}
