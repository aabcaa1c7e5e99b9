// SPDX-License-Identifier: MIT
/*
 * cmd_run: extprof run [options] -- PROGRAM [ARGS...].  Prepare the dump
 * directory, run the program under the shim, report the dumps it left, and
 * leave with the program's status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/cmd.h"
#include "run/run.h"
#include "util/text_table.h"

/* Report this run's dumps: an exit status for the report alone (XP_EXIT_NOTHING: none, not said).
 */
static int run_report(const struct xp_run_opts *o, const char *dir, const struct xp_names *before)
{
	struct xp_names fresh;
	struct xp_err e;
	int status;

	if (xp_run_dir_new(dir, before, &fresh, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	if (!fresh.n) {
		xp_names_free(&fresh);
		return XP_EXIT_NOTHING;
	}
	status = xp_report_names(dir, &fresh, &o->report, o->out);
	xp_names_free(&fresh);
	return status;
}

static int run_prepare(struct xp_run_opts *o, char **dir, struct xp_names *before)
{
	struct xp_err e;
	char *shim = NULL;
	int err;

	err = xp_run_find_shim(&shim, &e);
	if (!err)
		err = xp_run_dir_prepare(o->dir, dir, before, &e);
	o->io.in = -1;
	/* a series: every run reads the same stdin */
	if (!err && (o->warmup || o->repeat > 1))
		err = xp_run_save_stdin(&o->io, &e);
	if (!err) {
		err = xp_run_open_output(o, &e);
		if (err) {
			free(*dir);
			xp_names_free(before);
		}
	}
	if (!err) {
		err = xp_run_set_env(o, shim, *dir, &e);
		if (err) {
			free(*dir);
			xp_names_free(before);
		}
	}
	free(shim);
	if (err)
		xp_err_print(&e);
	return err;
}

/* The measured run(s): one into DIR, or --repeat's series.  -1: not started (said). */
static int run_measured(const struct xp_run_opts *o, const char *dir, const struct xp_names *before,
			int *status)
{
	struct xp_err e = {""};

	if (o->repeat)
		return xp_run_repeat(o, dir, status);
	/* the warmup pointed the shim elsewhere */
	if (setenv("EXTPROF_DIR", dir, 1) < 0 ||
	    xp_run_child_io(o->argv, o->no_aslr, &o->io, status, &e)) {
		if (!e.msg[0])
			xp_err_set(&e, -errno, "setting EXTPROF_DIR: %s", strerror(errno));
		xp_err_print(&e);
		return -1;
	}
	return run_report(o, dir, before);
}

/*
 * The last line when this run left no dump: what ran and how it ended, and
 * the status we leave with.  A program that hooked nothing must not pass
 * for one measured: its exit status alone would say it was.
 */
static void run_say_nothing(const struct xp_run_opts *o, const char *dir, int status)
{
	fprintf(stderr,
		"extprof: run: nothing measured: no dump of this run in %s (nothing hooked, "
		"nothing hooked called, or no shim loaded); ",
		dir);
	xp_text_put(stderr, o->argv[0]);
	if (WIFSIGNALED(status))
		fprintf(stderr, " was killed by signal %d (%s)\n", WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	else if (o->status_program)
		fprintf(stderr, " exited with status %d\n", WEXITSTATUS(status));
	else
		fprintf(stderr,
			" exited with status %d; extprof exits %d (--status program: with the "
			"program's)\n",
			WEXITSTATUS(status), XP_EXIT_NOTHING);
}

/*
 * The status we leave with (see --status), or death by the program's
 * signal: @report is the report's own status, <0 when a run could not be
 * started.
 */
static int run_exit_status(const struct xp_run_opts *o, int report, int status)
{
	if (report < 0)
		return XP_EXIT_BAD;
	if (WIFSIGNALED(status)) {
		xp_run_die_like(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	if (o->status_program)
		return WEXITSTATUS(status);
	if (report == XP_EXIT_NOTHING)
		return report;
	/* The program's failure says more than ours; ours shows when it succeeded. */
	return WEXITSTATUS(status) ? WEXITSTATUS(status) : report;
}

int cmd_run(int argc, char **argv)
{
	struct xp_run_opts o;
	struct xp_names before;
	struct xp_err e = {""};
	char *dir = NULL;
	int r, status = 0, report = -1;

	r = xp_run_parse(&o, argc, argv);
	if (r <= 0) {
		xp_run_opts_free(&o);
		return r ? XP_EXIT_BAD : 0;
	}
	if (run_prepare(&o, &dir, &before)) {
		xp_run_opts_free(&o);
		return XP_EXIT_BAD;
	}
	r = xp_run_warmup(&o, &status, &e);
	if (r)
		xp_err_print(&e);
	else if (!WIFSIGNALED(status))
		report = run_measured(&o, dir, &before, &status);
	else
		report = 0; /* interrupted in the warmup: no report */
	if (report == XP_EXIT_NOTHING)
		run_say_nothing(&o, dir, status);
	xp_names_free(&before);
	free(dir);
	xp_run_opts_free(&o);
	return run_exit_status(&o, r ? -1 : report, status);
}
