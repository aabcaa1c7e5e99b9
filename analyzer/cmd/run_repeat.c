// SPDX-License-Identifier: MIT
/*
 * run_repeat: "extprof run --warmup W --repeat K".  The warmup runs count
 * into a temporary directory that is removed after them; each of the K
 * runs into a subdirectory of its own, DIR/repeat-N (N after any there
 * from earlier runs, so nothing is overwritten), and their reports are
 * made into one (report_repeat.c).  A run that dies by a signal ends the
 * series: that is how an interrupted series stops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "read/repeat_dirs.h"
#include "run/run.h"

/* On a terminal, say which run this is: a series can take a while. */
static void run_progress(const char *what, unsigned i, unsigned n)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "extprof: %s %u of %u\n", what, i, n);
}

/* One run of the series; @shown: the one whose output and shim's lines are shown. */
static int run_in(const struct xp_run_opts *o, const char *dir, bool shown, int *status,
		  struct xp_err *e)
{
	struct xp_child_io io = o->io;

	if (setenv("EXTPROF_DIR", dir, 1) < 0)
		return xp_err_set(e, -errno, "setting EXTPROF_DIR: %s", strerror(errno));
	io.quiet = !shown;
	return xp_run_child_io(o->argv, o->no_aslr, &io, status, e);
}

int xp_run_warmup(const struct xp_run_opts *o, int *status, struct xp_err *e)
{
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct xp_err rm = {""};
	char *tmp;
	int err = 0;

	*status = 0;
	if (!o->warmup)
		return 0;
	if (asprintf(&tmp, "%s/extprof-warmup.XXXXXX", base) < 0)
		return xp_err_set(e, -ENOMEM, "out of memory");
	if (!mkdtemp(tmp)) {
		err = xp_err_set(e, -errno, "%s: cannot make a directory for the warmup runs: %s",
				 tmp, strerror(errno));
		free(tmp);
		return err;
	}
	for (unsigned i = 0; i < o->warmup && !err; i++) {
		run_progress("warmup run", i + 1, o->warmup);
		err = run_in(o, tmp, false, status, e);
		if (!err && WIFSIGNALED(*status))
			break;
	}
	if (xp_run_dir_remove(tmp, &rm))
		xp_warn("%s", rm.msg);
	free(tmp);
	return err;
}

/* One run's report, or a line on stderr saying why there is none. */
static int repeat_report(struct xp_report *r, const struct xp_run_opts *o, const char *sub)
{
	struct xp_names dumps;
	struct xp_load l;
	struct xp_err e = {""};
	int err;

	err = xp_run_dir_new(sub, &(struct xp_names){0}, &dumps, &e);
	if (!err && !dumps.n) {
		fprintf(stderr,
			"extprof: %s: this run left no dumps (nothing hooked was called, or the "
			"shim was not loaded)\n",
			sub);
		xp_names_free(&dumps);
		return -ENOENT;
	}
	if (err) {
		xp_err_print(&e);
		return err;
	}
	xp_load_init(&l, o->report.strict);
	l.defer = true;
	xp_report_stream(r, &l, &o->report);
	err = xp_load_names(&l, sub, &dumps, &e);
	if (!err)
		err = xp_report_stream_end(r, &l, &e);
	else
		xp_report_free(r);
	if (err)
		xp_err_print(&e);
	xp_load_free(&l);
	xp_names_free(&dumps);
	return err;
}

/* Make DIR/repeat-N, 0700; it must not exist. */
static int repeat_dir(char **sub, const char *dir, unsigned n, struct xp_err *e)
{
	if (asprintf(sub, "%s/" XP_REPEAT_PREFIX "%u", dir, n) < 0)
		return xp_err_set(e, -ENOMEM, "out of memory");
	if (mkdir(*sub, 0700) < 0) {
		int err = xp_err_set(e, -errno, "%s: cannot create the run's directory: %s", *sub,
				     strerror(errno));

		free(*sub);
		return err;
	}
	return 0;
}

/* Print the series' report: an exit status for the report alone. */
static int repeat_emit(const struct xp_report *runs, size_t n, const struct xp_run_opts *o)
{
	struct xp_report r;
	struct xp_err e = {""};
	int err;

	if (!n) {
		fputs("extprof: no run of the series left a report\n", stderr);
		return XP_EXIT_BAD;
	}
	err = xp_report_repeat(&r, runs, n, o->warmup, &e);
	if (err) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	err = xp_report_write(&r, &o->report, o->out, &e);
	xp_report_free(&r);
	if (err) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	return 0;
}

int xp_run_repeat(const struct xp_run_opts *o, const char *dir, int *status)
{
	struct xp_report *runs = calloc(o->repeat + 1, sizeof(*runs));
	struct xp_err e = {""};
	size_t n = 0;
	unsigned next;
	int err = 0, failed = 0, report, got;
	bool dumps = false; /* some run left dumps */

	if (!runs) {
		fputs("extprof: out of memory\n", stderr);
		return XP_EXIT_BAD;
	}
	err = xp_run_dir_next_repeat(dir, &next, &e);
	for (unsigned i = 0; i < o->repeat && !err; i++) {
		char *sub;

		err = repeat_dir(&sub, dir, next + i, &e);
		if (err)
			break;
		run_progress("run", i + 1, o->repeat);
		err = run_in(o, sub, i == 0, status, &e);
		if (!err) {
			got = repeat_report(&runs[n], o, sub);
			dumps |= got != -ENOENT;
			if (got)
				failed = 1;
			else
				n++;
		}
		free(sub);
		if (!err && WIFSIGNALED(*status))
			break;
	}
	if (err) {
		xp_err_print(&e);
		report = XP_EXIT_BAD;
	} else if (!dumps) {
		report = XP_EXIT_NOTHING; /* cmd_run says it, last */
	} else {
		report = repeat_emit(runs, n, o);
		if (failed && !o->report.strict && n)
			failed = 0; /* said on stderr; the others made the report */
		if (failed)
			report = XP_EXIT_BAD;
	}
	for (size_t i = 0; i < n; i++)
		xp_report_free(&runs[i]);
	free(runs);
	return err ? -1 : report;
}
