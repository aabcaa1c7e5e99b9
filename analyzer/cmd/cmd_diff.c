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
#include <sys/stat.h>
#include <sys/types.h>

#include "cmd/cmd.h"
#include "diff/diff.h"
#include "model/load.h"
#include "read/repeat_dirs.h"
#include "util/out.h"

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
	      "that appeared or vanished.  Each side is merged and finalized as extprof\n"
	      "report does: a dump directory is a run, so is each repeat-N of a directory\n"
	      "extprof run --repeat filled, and the dump files named on a side are one run;\n"
	      "several runs a side are made into one as run --repeat makes them.\n"
	      "A change is real only beyond the margin the counter can promise: none for a\n"
	      "deterministic counter; 2 steps of it per evaluation for tsc and ns, plus the\n"
	      "spread of each side's runs (docs/report.md).\n"
	      "\n"
	      "  --base PATH              a dump directory or file of the base (repeatable)\n"
	      "  --new PATH               a dump directory or file of the new run (repeatable)\n"
	      "  --fail-above PCT         exit status 1 when a declaration's --metric grew by\n"
	      "                           more than PCT percent, beyond its margin (from 0\n"
	      "                           counts as growth)\n"
	      "  --metric per-eval|evaluations|cost\n"
	      "                           what --fail-above compares and the rows are sorted\n"
	      "                           by (default cost)\n"
	      "  --format text|json|csv   output format (default text)\n"
	      "  -o, --output FILE        the comparison into FILE (written whole) instead\n"
	      "                           of stdout\n"
	      "  --stat min|median|mean   per-evaluation statistic cost is built on\n"
	      "                           (default min: the floor)\n"
	      "  --strict                 a corrupt dump or a process that did not finish\n"
	      "                           cleanly is an error\n"
	      "  --allow-mixed            merge processes of different CPUs or executables\n"
	      "                           within a side, with a warning\n"
	      "  --color auto|always|never\n"
	      "                           colour the text (default auto: on a terminal,\n"
	      "                           unless NO_COLOR is set or TERM is dumb)\n"
	      "  --by host|process|rank|executable\n"
	      "                           compare group by group: a row per declaration\n"
	      "                           and host, process, MPI rank or executable\n"
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
		if (xp_report_opt_format_of(&a->report, arg, "diff", XP_FORMATS_TABLE, e))
			return -EINVAL;
		a->diff.format = a->report.format;
		return 0;
	case 'o':
	case XP_OPT_OUTPUT:
		if (!*arg)
			return xp_err_set(e, -EINVAL, "%s: empty file name",
					  c == 'o' ? "-o" : "--output");
		a->report.output = arg;
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
		{"color", required_argument, NULL, XP_OPT_COLOR},
		{"by", required_argument, NULL, XP_OPT_BY},
		{"help", no_argument, NULL, XP_OPT_HELP},
		XP_OUTPUT_LONGOPTS,
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
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
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

/* One run of a side: @paths loaded together and built into @r.  0, or -errno with @e set. */
static int diff_run(struct xp_report *r, const char *const *paths, size_t n,
		    const struct xp_report_opts *o, struct xp_err *e)
{
	struct xp_load l;
	int err = 0;

	xp_load_init(&l, o->strict);
	l.defer = true;
	xp_report_stream(r, &l, o);
	for (size_t i = 0; i < n && !err; i++)
		err = xp_load_arg(&l, paths[i], e);
	if (!err)
		err = xp_report_stream_end(r, &l, e);
	else
		xp_report_free(r);
	xp_load_free(&l);
	return err;
}

/*
 * The runs of a side: each directory one run (a directory of "extprof run
 * --repeat", each of its repeat-K), the dump files named all together one
 * more.  Into @runs (room for @n + its repeats); their number, or -errno
 * with @e set.
 */
static ssize_t diff_runs(struct xp_report **runs, const char **paths, size_t n,
			 const struct xp_report_opts *o, struct xp_err *e)
{
	const char **files = calloc(n + 1, sizeof(*files));
	size_t k = 0, nfiles = 0, cap = n + 1;
	int err = files ? 0 : xp_err_set(e, -ENOMEM, "out of memory");
	struct stat st;

	*runs = calloc(cap, sizeof(**runs));
	if (!*runs && !err)
		err = xp_err_set(e, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !err; i++) {
		char **subs = NULL;
		size_t nsubs = 0;

		if (stat(paths[i], &st) || !S_ISDIR(st.st_mode)) {
			files[nfiles++] = paths[i]; /* a file, or an error said when read */
			continue;
		}
		if (xp_repeat_dirs(paths[i], &subs, &nsubs)) {
			err = xp_err_set(e, -ENOMEM, "out of memory");
			break;
		}
		if (nsubs > 1) {
			struct xp_report *more = realloc(*runs, (cap + nsubs) * sizeof(**runs));

			if (!more) {
				xp_repeat_dirs_free(subs, nsubs);
				err = xp_err_set(e, -ENOMEM, "out of memory");
				break;
			}
			*runs = more;
			cap += nsubs;
		}
		for (size_t j = 0; j < nsubs && !err; j++)
			if (!(err = diff_run(&(*runs)[k], (const char *const *)&subs[j], 1, o, e)))
				k++;
		if (!nsubs && !(err = diff_run(&(*runs)[k], &paths[i], 1, o, e)))
			k++;
		xp_repeat_dirs_free(subs, nsubs);
	}
	if (!err && nfiles && !(err = diff_run(&(*runs)[k], files, nfiles, o, e)))
		k++;
	free(files);
	if (!err)
		return (ssize_t)k;
	for (size_t i = 0; i < k; i++)
		xp_report_free(&(*runs)[i]);
	free(*runs);
	*runs = NULL;
	return err;
}

/*
 * One side, built into @r: its one run as "extprof report" builds it, or
 * its runs made into one as "extprof run --repeat" makes them (the spread
 * of their figures is what widens the margin).  0, or an error said.
 */
static int diff_side(struct xp_report *r, const char **paths, size_t n,
		     const struct xp_report_opts *o)
{
	struct xp_err e = {""};
	struct xp_report *runs;
	ssize_t k = diff_runs(&runs, paths, n, o, &e);
	int err = 0;

	if (k < 0) {
		xp_err_print(&e);
		return (int)k;
	}
	if (k == 1)
		*r = runs[0];
	else
		err = xp_report_repeat(r, runs, (size_t)k, 0, &e);
	for (ssize_t i = k == 1 ? 1 : 0; i < k; i++)
		xp_report_free(&runs[i]);
	free(runs);
	if (err)
		xp_err_print(&e);
	return err;
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
		err = xp_diff_text(d, out, xp_out_colour(out));
		break;
	}
	return xp_out_finish(out, err);
}

static int diff_print_any(const void *d, FILE *out)
{
	return xp_diff_print(d, out);
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
		r = xp_write_output(a.report.output, stdout, diff_print_any, &d, &e);
		if (!r)
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
