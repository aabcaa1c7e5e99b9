// SPDX-License-Identifier: MIT
/* report_opts: the options every report shares (report and run). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/num.h"
#include "report/report.h"

void xp_report_opts_init(struct xp_report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = XP_FORMAT_TEXT;
	o->sort = XP_SORT_WEIGHT;
	o->stat = XP_STAT_MIN;
	o->flag_ratio = XP_FLAG_RATIO_DEFAULT;
}

static int pick(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

int xp_report_opt_format(struct xp_report_opts *o, const char *v, struct xp_err *e)
{
	static const char *const names[] = {"text",  "json",   "csv", "callgrind",
					    "pprof", "folded", "html"};
	int i = pick(v, names, 7);

	if (i < 0)
		return xp_err_set(e, -EINVAL,
				  "--format %s: expected text, json, csv, callgrind, pprof, folded "
				  "or html",
				  v);
	o->format = (enum xp_format)i;
	return 0;
}

int xp_report_opt_format_table(struct xp_report_opts *o, const char *v, const char *cmd,
			       struct xp_err *e)
{
	int err = xp_report_opt_format(o, v, e);

	if (!err && o->format > XP_FORMAT_CSV)
		err = xp_err_set(e, -EINVAL, "--format %s: %s writes text, json or csv", v, cmd);
	return err;
}

int xp_report_opt_sort(struct xp_report_opts *o, const char *v, struct xp_err *e)
{
	static const char *const names[] = {"cost",	"evaluations", "per-eval",
					    "observed", "name",	       "weight"};
	int i = pick(v, names, 6);

	if (i < 0)
		return xp_err_set(e, -EINVAL,
				  "--sort %s: expected weight, cost, evaluations, per-eval, "
				  "observed or name",
				  v);
	o->sort = (enum xp_sort)i;
	return 0;
}

static const char *const stat_names[] = {"min", "median", "mean", "auto"};

int xp_report_opt_stat(struct xp_report_opts *o, const char *v, struct xp_err *e)
{
	int i = pick(v, stat_names, 3); /* auto: the doubling test's own (doubling_opts.c) */

	if (i < 0)
		return xp_err_set(e, -EINVAL, "--stat %s: expected min, median or mean", v);
	o->stat = (enum xp_stat)i;
	return 0;
}

const char *xp_stat_name(enum xp_stat s)
{
	return stat_names[s];
}

int xp_report_opt_ratio(struct xp_report_opts *o, const char *v, struct xp_err *e)
{
	if (xp_parse_ratio(v, &o->flag_ratio))
		return xp_err_set(e, -EINVAL,
				  "--flag-ratio %s: expected a number >= 0 (0.25: 25 %%)", v);
	return 0;
}

int xp_report_check_dest(const struct xp_report_opts *o, FILE *out, struct xp_err *e)
{
	if (o->format != XP_FORMAT_PPROF || o->output || !isatty(fileno(out)))
		return 0;
	return xp_err_set(e, -EINVAL,
			  "--format pprof writes a binary file (gzipped profile.proto), not onto "
			  "a terminal: give -o FILE or redirect the output");
}
