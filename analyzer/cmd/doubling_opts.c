// SPDX-License-Identifier: MIT
/*
 * doubling_opts: the command line of "extprof doubling", checked whole
 * before anything runs:
 *
 *   extprof doubling [options] N=DIR N=DIR...
 *   extprof doubling --sizes 100,200,400 [run options] -- PROGRAM ARGS ({N} is the size)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "doubling/doubling_run.h"
#include "util/num.h"
#include "util/out.h"

enum {
	OPT_SIZES = XP_OPT_RUN_END,
	OPT_WARMUP,
	OPT_REPEAT,
	OPT_TIMEOUT,
	OPT_PLOT,
	OPT_PLOT_VALUE,
};

#define MAX_RUNS 1000

void cmd_doubling_usage(FILE *out)
{
	fputs("usage: extprof doubling [options] N=DIR N=DIR...\n"
	      "       extprof doubling --sizes N1,N2,... [run options] -- PROGRAM [ARGS...]\n"
	      "\n"
	      "The doubling test: how each declaration's per-eval, evaluations and cost grow\n"
	      "with the input size N.  Each DIR (dumps of one run at size N, merged and\n"
	      "finalized as \"extprof report DIR\" does) is one point; the same N given twice\n"
	      "is a repeat.  With --sizes, PROGRAM is run under the shim once per size and\n"
	      "repeat, {N} in its arguments replaced by the size.\n"
	      "\n"
	      "  --sizes N1,N2,...        run PROGRAM at these sizes (at least 2)\n"
	      "  --warmup W               W untimed runs at the first size first (default 0)\n"
	      "  --repeat K               K runs per size: per-eval by --stat, evaluations\n"
	      "                           by their median (default 1)\n"
	      "  --timeout SECONDS        run no larger size once a run took longer\n"
	      "  -d, --data DIR           where the runs' dump directories go (default: a new\n"
	      "                           " XP_DBL_BASE_TEMPLATE " here); must be empty or new\n"
	      "                           (-o DIR naming an existing directory is the old\n"
	      "                           spelling, with a warning)\n"
	      "  -o, --output FILE        the result into FILE (written whole) instead of\n"
	      "                           stdout\n"
	      "  -H, --hook, --spec, --window, --counter, --callers, --no-aslr,\n"
	      "  --no-children, --step-engine, --step-first, --step-every, --step-limit\n"
	      "                           as for extprof run (see extprof run --help)\n"
	      "  --plot FILE.png|FILE.svg a log-log plot of a value against N\n"
	      "  --plot-value per-eval|evaluations|cost\n"
	      "                           what the plot shows (default per-eval)\n"
	      "  --format text|json|csv|html\n"
	      "                           output format (default text); html: one page with\n"
	      "                           the plot of --plot-value and the table\n"
	      "  --sort cost|evaluations|per-eval|name\n"
	      "                           declaration order, at the largest size (default cost)\n"
	      "  --stat auto|min|median|mean\n"
	      "                           per-evaluation statistic, and how repeats combine\n"
	      "                           (default auto: the floor, or the mean of a\n"
	      "                           declaration state-dependent at most sizes)\n"
	      "  --strict                 a corrupt or incomplete dump is an error\n"
	      "  --color auto|always|never\n"
	      "                           as for extprof report (the doubling test's tables\n"
	      "                           have no colour)\n"
	      "  -h, --help               this text\n"
	      "\n"
	      "PROGRAM's stdout and stderr go to files beside each run's dumps; a run that\n"
	      "fails stops the test with its exit status, its stderr shown.  See\n"
	      "docs/doubling.md.\n",
	      out);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int parse_sizes(struct xp_dbl_opts *o, const char *arg, struct xp_err *e)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	size_t n = 1;
	int err = 0;

	if (!copy)
		return xp_err_set(e, -ENOMEM, "out of memory");
	for (const char *p = arg; *p; p++)
		n += *p == ',';
	free(o->sizes);
	o->nsizes = 0;
	o->sizes = calloc(n, sizeof(*o->sizes));
	if (!o->sizes)
		err = xp_err_set(e, -ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (xp_parse_u64(tok, &v) || !v)
			err = xp_err_set(e, -EINVAL, "--sizes %s: '%s' is not a size above 0", arg,
					 tok);
		else
			o->sizes[o->nsizes++] = v;
	}
	free(copy);
	if (err)
		return err;
	qsort(o->sizes, o->nsizes, sizeof(*o->sizes), cmp_u64);
	for (size_t i = 1; i < o->nsizes; i++)
		if (o->sizes[i] == o->sizes[i - 1])
			return xp_err_set(e, -EINVAL, "--sizes %s: %llu given twice (use --repeat)",
					  arg, (unsigned long long)o->sizes[i]);
	if (o->nsizes < 2)
		return xp_err_set(e, -EINVAL,
				  "--sizes %s: the doubling test needs at least 2 sizes", arg);
	return 0;
}

static int parse_plot(struct xp_dbl_opts *o, const char *arg, struct xp_err *e)
{
	const char *dot = strrchr(arg, '.');

	if (!dot || (strcasecmp(dot, ".png") && strcasecmp(dot, ".svg")))
		return xp_err_set(e, -EINVAL, "--plot %s: the name must end in .png or .svg", arg);
	o->plot = arg;
	/* before any run: the picture is drawn after the last */
	return xp_out_file_check(arg, "--plot", e);
}

static int parse_plot_value(struct xp_dbl_opts *o, const char *arg, struct xp_err *e)
{
	if (!strcmp(arg, "per-eval") || !strcmp(arg, "per_eval"))
		o->plot_value = XP_DBL_PER_EVAL;
	else if (!strcmp(arg, "evaluations"))
		o->plot_value = XP_DBL_EVALUATIONS;
	else if (!strcmp(arg, "cost"))
		o->plot_value = XP_DBL_COST;
	else
		return xp_err_set(e, -EINVAL,
				  "--plot-value %s: expected per-eval, evaluations or cost", arg);
	return 0;
}

/* Our own options; the rest are run's and the report's. */
static int dbl_opt(struct xp_dbl_opts *o, int c, const char *arg, struct xp_err *e)
{
	switch (c) {
	case OPT_SIZES:
		o->run_mode = true;
		return parse_sizes(o, arg, e);
	case OPT_WARMUP:
		return xp_opt_unsigned("--warmup", arg, 0, MAX_RUNS, "a whole number", &o->warmup,
				       e);
	case OPT_REPEAT:
		return xp_opt_unsigned("--repeat", arg, 1, MAX_RUNS, "a whole number", &o->repeat,
				       e);
	case OPT_TIMEOUT:
		if (xp_parse_ratio(arg, &o->timeout) || !(o->timeout > 0))
			return xp_err_set(e, -EINVAL, "--timeout %s: expected seconds above 0",
					  arg);
		return 0;
	case OPT_PLOT:
		return parse_plot(o, arg, e);
	case OPT_PLOT_VALUE:
		return parse_plot_value(o, arg, e);
	case 'd':
		if (!*arg)
			return xp_err_set(e, -EINVAL, "-d: empty directory name");
		o->base = arg;
		return 0;
	}
	if (c == XP_OPT_FORMAT)
		return xp_report_opt_format_of(&o->run.report, arg, "doubling",
					       XP_FORMATS_TABLE | 1u << XP_FORMAT_HTML, e);
	if (c == XP_OPT_SORT && (!strcmp(arg, "observed") || !strcmp(arg, "weight")))
		return xp_err_set(e, -EINVAL, "--sort %s: not in the doubling test", arg);
	if (c == XP_OPT_STAT) {
		if (!strcmp(arg, "auto")) {
			o->run.report.stat = XP_STAT_AUTO;
			return 0;
		}
		if (xp_report_opt_stat(&o->run.report, arg, e))
			return xp_err_set(e, -EINVAL,
					  "--stat %s: expected auto, min, median or mean", arg);
		return 0;
	}
	return xp_run_getopt(&o->run, c, arg, e);
}

/* The name of a run-only option, for "only with --sizes". */
static const char *run_only(int c)
{
	switch (c) {
	case 'H':
		return "--hook";
	case 'd':
		return "-d";
	case XP_OPT_SPEC:
		return "--spec";
	case XP_OPT_WINDOW:
		return "--window";
	case XP_OPT_COUNTER:
		return "--counter";
	case XP_OPT_CALLERS:
		return "--callers";
	case XP_OPT_NO_ASLR:
		return "--no-aslr";
	case XP_OPT_NO_CHILDREN:
		return "--no-children";
	case XP_OPT_STEP_FIRST:
		return "--step-first";
	case XP_OPT_STEP_EVERY:
		return "--step-every";
	case XP_OPT_STEP_LIMIT:
		return "--step-limit";
	case XP_OPT_STEP_ENGINE:
		return "--step-engine";
	case OPT_WARMUP:
		return "--warmup";
	case OPT_REPEAT:
		return "--repeat";
	case OPT_TIMEOUT:
		return "--timeout";
	}
	return NULL;
}

/* After the options: PROGRAM for --sizes, the N=DIR operands otherwise. */
static int parse_rest(struct xp_dbl_opts *o, int argc, char **argv, char **ops, int nops,
		      const char *only, struct xp_err *e)
{
	if (o->run_mode) {
		if (nops)
			return xp_err_set(e, -EINVAL,
					  "doubling: '%s': N=DIR runs and --sizes do not mix",
					  ops[0]);
		if (optind == argc)
			return xp_err_set(e, -EINVAL,
					  "doubling: name the program to run after -- (see extprof "
					  "doubling --help)");
		o->run.argv = argv + optind;
		return 0;
	}
	if (only)
		return xp_err_set(e, -EINVAL,
				  "doubling: %s runs a program: only with --sizes (see extprof "
				  "doubling --help)",
				  only);
	while (optind < argc)
		ops[nops++] = argv[optind++];
	if (!nops)
		return xp_err_set(e, -EINVAL,
				  "doubling: name runs as N=DIR, or --sizes and a program (see "
				  "extprof doubling --help)");
	return xp_dbl_inputs_parse(o, nops, ops, e);
}

/*
 * getopt stops at the first operand ('+', so that PROGRAM's options stay
 * its own); N=DIR operands are set aside and the options after them read
 * on, as "extprof report DIR --format json" reads its options.  1 to go
 * on, 0 after --help, <0 on error (@e set, or said when @e is empty).
 */
static int parse_loop(struct xp_dbl_opts *o, int argc, char **argv, char **ops, int *nops,
		      const char **only, struct xp_err *e)
{
	static const struct option longopts[] = {
		XP_RUN_LONGOPTS,
		XP_REPORT_LONGOPTS,
		{"sizes", required_argument, NULL, OPT_SIZES},
		{"warmup", required_argument, NULL, OPT_WARMUP},
		{"repeat", required_argument, NULL, OPT_REPEAT},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"plot", required_argument, NULL, OPT_PLOT},
		{"plot-value", required_argument, NULL, OPT_PLOT_VALUE},
		XP_OUTPUT_LONGOPTS,
		XP_DATA_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, "+hH:o:d:", longopts, NULL);
		if (c == -1) {
			if (o->run_mode || optind >= argc || !strcmp(argv[optind - 1], "--"))
				return 1;
			ops[(*nops)++] = argv[optind++];
			continue;
		}
		if (c == 'h' || c == XP_OPT_HELP) {
			cmd_doubling_usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			xp_bad_option("doubling", argv);
			return -EINVAL;
		}
		if (!*only)
			*only = run_only(c);
		if (dbl_opt(o, c, optarg, e)) {
			if (!e->msg[0])
				xp_err_set(e, -EINVAL, "doubling: option not understood");
			return -EINVAL;
		}
	}
}

int xp_dbl_parse(struct xp_dbl_opts *o, int argc, char **argv)
{
	struct xp_err e = {""};
	const char *only = NULL;
	char **ops = calloc((size_t)argc + 1, sizeof(*ops));
	int nops = 0, r;

	memset(o, 0, sizeof(*o));
	o->run.dir = XP_RUN_DEFAULT_DIR; /* unused: each run has its own */
	o->repeat = 1;
	o->plot_value = XP_DBL_PER_EVAL;
	xp_report_opts_init(&o->run.report);
	o->run.report.stat = XP_STAT_AUTO;
	o->run.report.sort = XP_SORT_COST;
	if (!ops) {
		fputs("extprof: out of memory\n", stderr);
		return -ENOMEM;
	}
	r = parse_loop(o, argc, argv, ops, &nops, &only, &e);
	if (r == 1 && parse_rest(o, argc, argv, ops, nops, only, &e))
		r = -EINVAL;
	/* without --sizes there is no dump directory of ours: -o DIR is no old -d */
	if (r == 1 &&
	    xp_run_check_output(&o->run, "doubling", &o->base, o->base || !o->run_mode, &e))
		r = -EINVAL;
	free(ops);
	if (r < 0 && e.msg[0])
		xp_err_print(&e);
	return r;
}

void xp_dbl_opts_free(struct xp_dbl_opts *o)
{
	xp_run_opts_free(&o->run);
	free(o->sizes);
	xp_dbl_inputs_free(o->inputs, o->ninputs);
	o->sizes = NULL;
	o->inputs = NULL;
	o->ninputs = 0;
}
