/* SPDX-License-Identifier: MIT */
/* run: the parts of "extprof run": options, environment, directory, child. */
#ifndef XP_RUN_H
#define XP_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd.h"
#include "dir_list.h"
#include "err.h"
#include "report.h"

#define XP_RUN_DEFAULT_DIR "extprof.data"
#define XP_SHIM_NAME	   "libextprof.so"

struct xp_run_opts {
	char *hooks;	     /* -H entries joined with commas, or NULL */
	const char *spec;    /* --spec */
	const char *window;  /* --window */
	const char *counter; /* --counter */
	const char *dir;     /* -o */
	const char *callers; /* --callers, validated */
	bool no_aslr;
	struct xp_report_opts report;
	char **argv; /* PROGRAM ARGS..., NULL-terminated */
};

/* run's own long options (the report's are XP_REPORT_LONGOPTS), for doubling too. */
enum {
	XP_OPT_SPEC = XP_OPT_RUN_FIRST,
	XP_OPT_WINDOW,
	XP_OPT_COUNTER,
	XP_OPT_CALLERS,
	XP_OPT_NO_ASLR,
	XP_OPT_RUN_END, /* options of commands that extend run's start here */
};

/* clang-format off */
#define XP_RUN_LONGOPTS                                                                     \
	{"hook", required_argument, NULL, 'H'},                                             \
	{"spec", required_argument, NULL, XP_OPT_SPEC},                                     \
	{"window", required_argument, NULL, XP_OPT_WINDOW},                                 \
	{"counter", required_argument, NULL, XP_OPT_COUNTER},                               \
	{"callers", required_argument, NULL, XP_OPT_CALLERS},                               \
	{"no-aslr", no_argument, NULL, XP_OPT_NO_ASLR}
/* clang-format on */

/* One of run's options (-H, -o, XP_RUN_LONGOPTS, report's): 0, or -errno with @e set. */
int xp_run_getopt(struct xp_run_opts *o, int c, const char *arg, struct xp_err *e);

/* Parse run's command line: 1 to run, 0 when --help was shown, <0 on error (said). */
int xp_run_parse(struct xp_run_opts *o, int argc, char **argv);
void xp_run_opts_free(struct xp_run_opts *o);

/* Where the shim is: $EXTPROF_SHIM, beside us in the build tree, the libdir, or its name. */
int xp_run_find_shim(char **out, struct xp_err *e);

/* Set EXTPROF_* and LD_PRELOAD for the child: @dir is the absolute dump directory. */
int xp_run_set_env(const struct xp_run_opts *o, const char *shim, const char *dir,
		   struct xp_err *e);

/*
 * Make sure @dir exists (0700 when created) and holds nothing but extprof
 * dumps; return its absolute path in @abs and the dumps already in it in
 * @before.  0 or -errno.
 */
int xp_run_dir_prepare(const char *dir, char **abs, struct xp_names *before, struct xp_err *e);
/* The dumps in @dir that are not in @before: this run's. */
int xp_run_dir_new(const char *dir, const struct xp_names *before, struct xp_names *out,
		   struct xp_err *e);

/*
 * Run @argv (PATH searched) and wait for it, forwarding SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT sent to us.  @status: as from waitpid.  0, or -errno
 * with @e set when the program could not be started.
 */
int xp_run_child(char **argv, bool no_aslr, int *status, struct xp_err *e);

/* Die the way the program did: default disposition, raise. Returns only if that failed. */
void xp_run_die_like(int sig);

#endif
