// SPDX-License-Identifier: MIT
/* report_opts: the options every report shares (report and run). */
#include <errno.h>
#include <stdio.h>
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

static const char *const format_names[] = {"text",  "json",   "csv", "callgrind",
					   "pprof", "folded", "html"};
#define FORMATS ((int)(sizeof(format_names) / sizeof(format_names[0])))

/* "text, json, csv or html": the names of @formats (a bit per enum xp_format), into @buf. */
static const char *format_list(unsigned formats, char *buf, size_t size)
{
	int left = __builtin_popcount(formats);
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < FORMATS && len < size; i++) {
		const char *sep;

		if (!(formats & (1u << i)))
			continue;
		left--;
		sep = left > 1 ? ", " : left == 1 ? " or " : "";
		len += (size_t)snprintf(buf + len, size - len, "%s%s", format_names[i], sep);
	}
	return buf;
}

int xp_report_opt_format(struct xp_report_opts *o, const char *v, struct xp_err *e)
{
	return xp_report_opt_format_of(o, v, NULL, XP_FORMATS_ALL, e);
}

int xp_report_opt_format_of(struct xp_report_opts *o, const char *v, const char *cmd,
			    unsigned formats, struct xp_err *e)
{
	int i = pick(v, format_names, FORMATS);
	char list[128];

	if (i < 0)
		return xp_err_set(e, -EINVAL, "--format %s: expected %s", v,
				  format_list(formats, list, sizeof(list)));
	if (!(formats & (1u << i)))
		return xp_err_set(e, -EINVAL, "--format %s: %s writes %s", v, cmd,
				  format_list(formats, list, sizeof(list)));
	o->format = (enum xp_format)i;
	return 0;
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
	if (!xp_format_binary(o->format) || o->output || !isatty(fileno(out)))
		return 0;
	return xp_err_set(e, -EINVAL,
			  "--format pprof writes a binary file (gzipped profile.proto), not onto "
			  "a terminal: give -o FILE or redirect the output");
}
