// SPDX-License-Identifier: MIT
/* run_opts: the command line of "extprof run", checked before anything runs. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "extprof/names.h"

#include "cmd/cmd.h"
#include "util/num.h"
#include "util/out.h"
#include "run/run.h"

void cmd_run_usage(FILE *out)
{
	fputs("usage: extprof run [options] -- PROGRAM [ARGS...]\n"
	      "\n"
	      "Run PROGRAM under the shim (libextprof.so), then print the report of the\n"
	      "dumps this run left, on stderr (as perf stat and time do) or into --output's\n"
	      "FILE: PROGRAM's stdout stays its own.  Exits with PROGRAM's status (with\n"
	      "--repeat, the last run's), or dies by its signal; when this run left no\n"
	      "dump (nothing hooked, or nothing hooked called), its last line says so and\n"
	      "it exits 3 (see --status).\n"
	      "\n"
	      "  -H, --hook KIND:PATTERN[@OBJECT]\n"
	      "                           hook these functions (repeatable; EXTPROF_HOOKS)\n"
	      "  --spec FILE              hook entries from FILE, one a line (EXTPROF_SPEC)\n"
	      "  --window PATTERN[@OBJECT]\n"
	      "                           count only while this function runs (EXTPROF_WINDOW)\n"
	      "  --counter C              auto|instructions|cycles|steps|tsc|tsc-unordered|\n"
	      "                           ns|var:SYMBOL (EXTPROF_COUNTER, default auto)\n"
	      "  --step-engine E          steps: translate (every evaluation, from a code\n"
	      "                           cache: the default) or trap (single-step a sample)\n"
	      "                           (EXTPROF_STEP_ENGINE)\n"
	      "  --step-first K, --step-every M\n"
	      "                           steps, trap: single-step the first K evaluations of "
	      "each\n"
	      "                           function on each thread, then every M-th (0: no\n"
	      "                           more; 1: all of them) (EXTPROF_STEP_FIRST, _EVERY,\n"
	      "                           default 1 and 1048576)\n"
	      "  --step-limit N           steps, trap: give up a stepped evaluation past N\n"
	      "                           instructions (EXTPROF_STEP_LIMIT, default 1000000)\n"
	      "  -d, --data DIR           dump directory (EXTPROF_DIR, default extprof.data;\n"
	      "                           --dir is the same); it may hold only extprof dumps\n"
	      "                           (and repeat-N runs)\n"
	      "  -o, --output FILE        the report into FILE (written whole, or not at all)\n"
	      "                           instead of stderr (--format pprof needs it); -o DIR\n"
	      "                           naming an existing directory is the old spelling\n"
	      "                           of -d DIR (a warning)\n"
	      "  --callers N              attribute to callers N frames deep, 0..8, and show\n"
	      "                           the chains under each declaration (EXTPROF_CALLERS)\n"
	      "  --no-aslr                run PROGRAM without address space "
	      "randomisation\n"
	      "  --no-children            profile PROGRAM only, not the processes it starts\n"
	      "                           (EXTPROF_CHILDREN=0)\n"
	      "  --warmup W               W untimed runs first; their dumps are thrown away\n"
	      "  --repeat K               K runs, each into DIR/repeat-N, reported together:\n"
	      "                           per declaration the --stat of the runs' per-evals,\n"
	      "                           the median of their evaluations\n"
	      "                           (with either, every run reads the same stdin, saved\n"
	      "                           once, and only the first measured run's output and\n"
	      "                           the shim's lines are shown)\n"
	      "  --status auto|program    exit status: auto (the default) is PROGRAM's, but\n"
	      "                           3 when nothing was measured (no dump of this run)\n"
	      "                           and 2 when PROGRAM succeeded and the report failed;\n"
	      "                           program: PROGRAM's, whatever was measured (as\n"
	      "                           time and perf stat)\n" XP_REPORT_OPTIONS_HELP
	      "  -h, --help               this text\n"
	      "\n"
	      "The shim is $EXTPROF_SHIM if set, else the one beside extprof in its build\n"
	      "tree, else the installed one, else libextprof.so from the loader's path.\n",
	      out);
}

/* KIND:PATTERN[@OBJECT], nothing the comma-joined EXTPROF_HOOKS would split. */
static int hook_check(const char *h, struct xp_err *e)
{
	const char *colon = strchr(h, ':'), *at;

	if (!colon || !extprof_kind_valid(h, (size_t)(colon - h)))
		return xp_err_set(
			e, -EINVAL,
			"--hook '%s': expected KIND:PATTERN[@OBJECT], KIND as " EXTPROF_KIND_SYNTAX,
			h);
	at = strchr(colon + 1, '@');
	if (colon[1] == '\0' || colon[1] == '@' || (at && at[1] == '\0'))
		return xp_err_set(e, -EINVAL, "--hook '%s': empty %s", h,
				  at && at[1] == '\0' ? "OBJECT after '@'" : "PATTERN");
	if (strpbrk(h, ", \t\n"))
		return xp_err_set(e, -EINVAL, "--hook '%s': a comma or blank inside an entry", h);
	return 0;
}

static int hook_add(struct xp_run_opts *o, const char *h, struct xp_err *e)
{
	char *joined;
	int err = hook_check(h, e);

	if (err)
		return err;
	if (asprintf(&joined, "%s%s%s", o->hooks ? o->hooks : "", o->hooks ? "," : "", h) < 0)
		return xp_err_set(e, -ENOMEM, "out of memory");
	free(o->hooks);
	o->hooks = joined;
	return 0;
}

static int counter_check(const char *c, struct xp_err *e)
{
	if (extprof_counter_choice(c) != EXTPROF_CHOICE_BAD)
		return 0;
	return xp_err_set(e, -EINVAL, "--counter %s: expected " EXTPROF_COUNTER_CHOICES, c);
}

static int callers_check(const char *v, bool *show, struct xp_err *e)
{
	unsigned n;
	int err = xp_opt_unsigned("--callers", v, 0, EXTPROF_CALLERS_MAX_DEPTH, "a depth", &n, e);

	if (!err)
		*show = n > 0;
	return err;
}

#define XP_RUN_MAX_RUNS 10000

/* --step-first, --step-every, --step-limit: a number, passed on as it is */
static int step_check(const char *opt, const char *v, uint64_t min, uint64_t max, const char **out,
		      struct xp_err *e)
{
	uint64_t n;
	int err = xp_opt_u64(opt, v, min, max, "a number", &n, e);

	if (!err)
		*out = v;
	return err;
}

int xp_run_getopt(struct xp_run_opts *o, int c, const char *arg, struct xp_err *e)
{
	switch (c) {
	case 'H':
		return hook_add(o, arg, e);
	case 'o':
	case XP_OPT_OUTPUT:
		if (!*arg)
			return xp_err_set(e, -EINVAL, "%s: empty file name",
					  c == 'o' ? "-o" : "--output");
		o->output = arg;
		o->report.output = arg;
		o->output_short = c == 'o';
		return 0;
	case 'd':
		if (!*arg)
			return xp_err_set(e, -EINVAL, "-d: empty directory name");
		o->dir = arg;
		o->dir_given = true;
		return 0;
	case XP_OPT_SPEC:
		o->spec = arg;
		return 0;
	case XP_OPT_WINDOW:
		if (!*arg || strpbrk(arg, ", \t\n"))
			return xp_err_set(e, -EINVAL, "--window '%s': expected PATTERN[@OBJECT]",
					  arg);
		o->window = arg;
		return 0;
	case XP_OPT_COUNTER:
		o->counter = arg;
		return counter_check(arg, e);
	case XP_OPT_CALLERS:
		o->callers = arg;
		/* the chains recorded are shown under their declarations */
		return callers_check(arg, &o->report.callers, e);
	case XP_OPT_NO_ASLR:
		o->no_aslr = true;
		return 0;
	case XP_OPT_NO_CHILDREN:
		o->no_children = true;
		return 0;
	case XP_OPT_STEP_FIRST:
		return step_check("--step-first", arg, 0, UINT32_MAX, &o->step_first, e);
	case XP_OPT_STEP_EVERY:
		return step_check("--step-every", arg, 0, UINT32_MAX, &o->step_every, e);
	case XP_OPT_STEP_LIMIT:
		return step_check("--step-limit", arg, 1, UINT64_MAX / 4, &o->step_limit, e);
	case XP_OPT_STEP_ENGINE:
		if (strcmp(arg, "translate") && strcmp(arg, "trap"))
			return xp_err_set(e, -EINVAL,
					  "--step-engine '%s': expected translate or trap", arg);
		o->step_engine = arg;
		return 0;
	case XP_OPT_WARMUP:
		return xp_opt_unsigned("--warmup", arg, 0, XP_RUN_MAX_RUNS, "a number of runs",
				       &o->warmup, e);
	case XP_OPT_REPEAT:
		return xp_opt_unsigned("--repeat", arg, 1, XP_RUN_MAX_RUNS, "a number of runs",
				       &o->repeat, e);
	case XP_OPT_STATUS:
		if (strcmp(arg, "auto") && strcmp(arg, "program"))
			return xp_err_set(e, -EINVAL, "--status %s: expected auto or program", arg);
		o->status_program = !strcmp(arg, "program");
		return 0;
	}
	return xp_report_getopt(c, arg, &o->report, e) > 0 ? 0 : -EINVAL;
}

int xp_run_parse(struct xp_run_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		XP_RUN_LONGOPTS,
		XP_REPORT_LONGOPTS,
		{"warmup", required_argument, NULL, XP_OPT_WARMUP},
		{"repeat", required_argument, NULL, XP_OPT_REPEAT},
		{"status", required_argument, NULL, XP_OPT_STATUS},
		XP_OUTPUT_LONGOPTS,
		XP_DATA_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct xp_err e = {""};
	int c;

	memset(o, 0, sizeof(*o));
	o->dir = XP_RUN_DEFAULT_DIR;
	xp_report_opts_init(&o->report);
	opterr = 0;
	/* '+': stop at PROGRAM, whose own options are not ours */
	while ((c = getopt_long(argc, argv, "+hH:o:d:", longopts, NULL)) != -1) {
		if (c == 'h' || c == XP_OPT_HELP) {
			cmd_run_usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			xp_bad_option("run", argv);
			return -EINVAL;
		}
		if (xp_run_getopt(o, c, optarg, &e)) {
			if (!e.msg[0])
				xp_err_set(&e, -EINVAL, "run: option not understood");
			xp_err_print(&e);
			return -EINVAL;
		}
	}
	if (optind == argc) {
		fputs("extprof: run: name the program to run after -- (see extprof run --help)\n",
		      stderr);
		return -EINVAL;
	}
	if (xp_run_check_output(o, "run", &o->dir, o->dir_given, &e)) {
		xp_err_print(&e);
		return -EINVAL;
	}
	o->argv = argv + optind;
	return 1;
}

void xp_run_opts_free(struct xp_run_opts *o)
{
	free(o->hooks);
	o->hooks = NULL;
}

/* @p less its leading "./" and trailing slashes: its length, *@p moved past the "./". */
static size_t path_trim(const char **p)
{
	const char *s = *p;
	size_t n;

	while (s[0] == '.' && s[1] == '/')
		for (s += 2; *s == '/'; s++)
			;
	n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		n--;
	*p = s;
	return n;
}

/* Two spellings of one path, as far as their text says ("d", "./d/"). */
static bool path_same(const char *a, const char *b)
{
	size_t na = path_trim(&a), nb = path_trim(&b);

	return na == nb && !strncmp(a, b, na);
}

int xp_run_check_output(struct xp_run_opts *o, const char *cmd, const char **dir, bool dir_given,
			struct xp_err *e)
{
	const char *out = o->output, *opt = o->output_short ? "-o" : "--output";
	struct stat st;
	bool is_dir;

	/* the report goes to stderr, among the program's lines and the shim's */
	if (!out && xp_format_binary(o->report.format))
		return xp_err_set(e, -EINVAL,
				  "%s: --format pprof writes a binary file: give -o FILE (without "
				  "it the report goes to stderr)",
				  cmd);
	if (!out)
		return 0;
	is_dir = out[strlen(out) - 1] == '/' || (!stat(out, &st) && S_ISDIR(st.st_mode));
	/* a report file is never a directory: this is what -o used to mean */
	if (is_dir && o->output_short && !dir_given) {
		xp_warn("%s -o %s: a directory, taken as the dump directory as before; -o is the "
			"report file now, -d DIR the dump directory",
			cmd, out);
		*dir = out;
		o->output = o->report.output = NULL;
		o->output_short = false;
		return 0;
	}
	if (is_dir)
		return xp_err_set(e, -EISDIR,
				  "%s %s %s: a directory; %s names the report file (the dumps go "
				  "to -d DIR)",
				  cmd, opt, out, opt);
	if (*dir && path_same(out, *dir) && dir_given)
		return xp_err_set(
			e, -EINVAL,
			"%s %s %s: the dump directory (-d %s); the report needs a name of its own",
			cmd, opt, out, *dir);
	if (*dir && path_same(out, *dir))
		return xp_err_set(e, -EINVAL,
				  "%s %s %s: the dump directory's own name; %s is the report file "
				  "now: give the dumps -d %s and the report another name",
				  cmd, opt, out, opt, out);
	return 0;
}

int xp_run_open_output(struct xp_run_opts *o, struct xp_err *e)
{
	o->out = stderr;
	/* written at the end (xp_report_write): where it goes must take it */
	return o->output ? xp_out_file_check(o->output, o->output_short ? "-o" : "--output", e) : 0;
}
