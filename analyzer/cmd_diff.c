// SPDX-License-Identifier: MIT
/*
 * cmd_diff: extprof diff [options] BASE NEW.  Each side is merged and
 * finalized as "extprof report" does; exit status 1 when a declaration
 * grew by more than --fail-above.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "diff.h"

/* Exit status when a declaration grew by more than --fail-above. */
#define XP_EXIT_GREW 1

enum {
	OPT_BASE = XP_OPT_RUN_FIRST,
	OPT_NEW,
	OPT_METRIC,
	OPT_FAIL_ABOVE,
};

void cmd_diff_usage(FILE *out)
{
	fputs("usage: extprof diff [options] BASE NEW\n"
	      "       extprof diff [options] --base PATH... --new PATH...\n"
	      "\n"
	      "Compare two runs declaration by declaration: per-eval, evaluations and cost\n"
	      "before (BASE) and after (NEW), the change in percent, and the declarations\n"
	      "that appeared or vanished.  Each side (a dump directory or file, or several\n"
	      "with --base and --new) is merged and finalized as extprof report does.\n"
	      "\n"
	      "  --base PATH              a dump directory or file of the base (repeatable)\n"
	      "  --new PATH               a dump directory or file of the new run (repeatable)\n"
	      "  --fail-above PCT         exit status 1 when a declaration's --metric grew by\n"
	      "                           more than PCT percent (from 0 counts as growth)\n"
	      "  --metric per-eval|evaluations|cost\n"
	      "                           what --fail-above compares and the rows are sorted\n"
	      "                           by (default cost)\n"
	      "  --format text|json|csv   output format (default text)\n"
	      "  --stat min|median|mean   per-evaluation statistic cost is built on\n"
	      "                           (default min: the floor)\n"
	      "  --strict                 a corrupt dump or a process that did not finish\n"
	      "                           cleanly is an error\n"
	      "  --allow-mixed            merge processes of different CPUs or executables\n"
	      "                           within a side, with a warning\n"
	      "  -h, --help               this text\n"
	      "\n"
	      "Exit status: 0, 1 when something grew by more than --fail-above, 2 on bad input.\n",
	      out);
}

struct diff_args {
	struct xp_report_opts report;
	struct xp_diff_opts diff;
	const char **base;
	size_t nbase;
	const char **next;
	size_t nnext;
	char *base_name;
	char *next_name;
};

static void args_free(struct diff_args *a)
{
	free(a->base);
	free(a->next);
	free(a->base_name);
	free(a->next_name);
}

static int diff_getopt(struct diff_args *a, int c, const char *arg, struct xp_err *e)
{
	switch (c) {
	case OPT_BASE:
		a->base[a->nbase++] = arg;
		return 0;
	case OPT_NEW:
		a->next[a->nnext++] = arg;
		return 0;
	case OPT_METRIC:
		return xp_diff_opt_metric(&a->diff, arg, e);
	case OPT_FAIL_ABOVE:
		return xp_diff_opt_fail_above(&a->diff, arg, e);
	case XP_OPT_FORMAT:
		if (xp_report_opt_format_table(&a->report, arg, "diff", e))
			return -EINVAL;
		a->diff.format = a->report.format;
		return 0;
	}
	return xp_report_getopt(c, arg, &a->report, e) > 0 ? 0 : -EINVAL;
}

/* "a, b" for the header: how the user named a side. */
static char *join_names(const char **v, size_t n)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, v[i]);
	}
	return s;
}

static int diff_operands(struct diff_args *a, int argc, char **argv)
{
	int n = argc - optind;

	if (n && (a->nbase || a->nnext)) {
		fputs("extprof: diff: name the sides either as BASE NEW or with --base and --new, "
		      "not both\n",
		      stderr);
		return -EINVAL;
	}
	if (n) {
		if (n != 2) {
			fprintf(stderr,
				"extprof: diff: expected two operands, BASE and NEW, got %d (see "
				"extprof diff --help)\n",
				n);
			return -EINVAL;
		}
		a->base[a->nbase++] = argv[optind];
		a->next[a->nnext++] = argv[optind + 1];
	}
	if (!a->nbase || !a->nnext) {
		fputs("extprof: diff: name the base and the new run (see extprof diff --help)\n",
		      stderr);
		return -EINVAL;
	}
	a->base_name = join_names(a->base, a->nbase);
	a->next_name = join_names(a->next, a->nnext);
	return a->base_name && a->next_name ? 1 : -ENOMEM;
}

/* 1 to go on, 0 after --help, <0 on error (said). */
static int diff_parse(struct diff_args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"base", required_argument, NULL, OPT_BASE},
		{"new", required_argument, NULL, OPT_NEW},
		{"metric", required_argument, NULL, OPT_METRIC},
		{"fail-above", required_argument, NULL, OPT_FAIL_ABOVE},
		{"format", required_argument, NULL, XP_OPT_FORMAT},
		{"stat", required_argument, NULL, XP_OPT_STAT},
		{"strict", no_argument, NULL, XP_OPT_STRICT},
		{"allow-mixed", no_argument, NULL, XP_OPT_ALLOW_MIXED},
		{"help", no_argument, NULL, XP_OPT_HELP},
		{NULL, 0, NULL, 0},
	};
	struct xp_err e = {""};
	int c;

	memset(a, 0, sizeof(*a));
	xp_report_opts_init(&a->report);
	xp_diff_opts_init(&a->diff);
	a->base = calloc((size_t)argc + 1, sizeof(*a->base));
	a->next = calloc((size_t)argc + 1, sizeof(*a->next));
	if (!a->base || !a->next)
		return -ENOMEM;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h' || c == XP_OPT_HELP) {
			cmd_diff_usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			xp_bad_option("diff", argv);
			return -EINVAL;
		}
		if (diff_getopt(a, c, optarg, &e)) {
			xp_err_print(&e);
			return -EINVAL;
		}
	}
	return diff_operands(a, argc, argv);
}

/* One side: loaded and built into @r.  0, or an error said on stderr. */
static int diff_side(struct xp_report *r, const char **paths, size_t n,
		     const struct xp_report_opts *o)
{
	struct xp_load l;
	struct xp_err e = {""};
	int err = 0;

	xp_load_init(&l, o->strict);
	l.defer = true;
	for (size_t i = 0; i < n && !err; i++)
		err = xp_load_arg(&l, paths[i], &e);
	if (!err)
		err = xp_load_finish(&l, &e);
	if (!err)
		err = xp_report_build(r, &l.set, o, l.skipped, &e);
	if (err)
		xp_err_print(&e);
	xp_load_free(&l);
	return err;
}

int cmd_diff(int argc, char **argv)
{
	struct xp_report base, next;
	struct diff_args a;
	struct xp_err e = {""};
	struct xp_diff d;
	int r, status;

	r = diff_parse(&a, argc, argv);
	if (r <= 0) {
		if (r == -ENOMEM)
			fputs("extprof: out of memory\n", stderr);
		args_free(&a);
		return r ? XP_EXIT_BAD : 0;
	}
	if (diff_side(&base, a.base, a.nbase, &a.report)) {
		args_free(&a);
		return XP_EXIT_BAD;
	}
	if (diff_side(&next, a.next, a.nnext, &a.report)) {
		xp_report_free(&base);
		args_free(&a);
		return XP_EXIT_BAD;
	}
	status = XP_EXIT_BAD;
	if (!xp_diff_build(&d, &base, &next, &a.diff, &e)) {
		d.base_name = a.base_name;
		d.next_name = a.next_name;
		r = xp_diff_print(&d, stdout);
		if (r)
			xp_err_set(&e, r, "writing the comparison: %s", strerror(-r));
		else
			status = d.nover ? XP_EXIT_GREW : 0;
		xp_diff_free(&d);
	}
	if (status == XP_EXIT_BAD)
		xp_err_print(&e);
	xp_report_free(&base);
	xp_report_free(&next);
	args_free(&a);
	return status;
}
