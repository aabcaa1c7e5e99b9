/* SPDX-License-Identifier: MIT */
/*
 * run: running a program under the shim, for "extprof run", "extprof
 * doubling" and "extprof attach": the shim found, the environment set, the
 * dump directory prepared and read back, the child run and waited for.
 */
#ifndef XP_RUN_H
#define XP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "read/dir_list.h"
#include "util/err.h"
#include "report/report.h"

#define XP_RUN_DEFAULT_DIR "extprof.data"
#define XP_SHIM_NAME	   "libextprof.so"

/* What a run of a series reads and where its output goes. */
struct xp_child_io {
	int in; /* its stdin, rewound to in_off first; -1: ours as it is */
	long in_off;
	bool quiet; /* its stdout and stderr to /dev/null: not the run shown */
};

struct xp_run_opts {
	char *hooks;		/* -H entries joined with commas, or NULL */
	const char *spec;	/* --spec */
	const char *window;	/* --window */
	const char *counter;	/* --counter */
	const char *dir;	/* -d, --data: the dumps */
	bool dir_given;		/* -d was given */
	const char *output;	/* -o, --output: the report; NULL: stderr */
	bool output_short;	/* given as -o: maybe the old spelling of -d */
	FILE *out;		/* where the report goes without --output: stderr */
	const char *callers;	/* --callers, validated */
	const char *step_first; /* --step-first, --step-every, --step-limit: steps' sampling */
	const char *step_every;
	const char *step_limit;
	const char *step_engine; /* --step-engine: translate or trap */
	bool no_aslr;
	bool no_children;      /* --no-children: EXTPROF_CHILDREN=0, the first process only */
	bool status_program;   /* --status program: the program's status, whatever was measured */
	unsigned warmup;       /* --warmup: untimed runs first, their dumps thrown away */
	unsigned repeat;       /* --repeat: runs into DIR/repeat-N each; 0: one run into DIR */
	struct xp_child_io io; /* the runs' stdin, saved once for a series */
	struct xp_report_opts report;
	char **argv; /* PROGRAM ARGS..., NULL-terminated */
};

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
/* The first N for which @dir/repeat-N does not exist: after every repeat-N there. */
int xp_run_dir_next_repeat(const char *dir, unsigned *next, struct xp_err *e);

/* The dumps in @dir that are not in @before: this run's. */
int xp_run_dir_new(const char *dir, const struct xp_names *before, struct xp_names *out,
		   struct xp_err *e);

/*
 * Run @argv (PATH searched) and wait for it, forwarding SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT sent to us.  @status: as from waitpid.  0, or -errno
 * with @e set when the program could not be started.
 */
int xp_run_child(char **argv, bool no_aslr, int *status, struct xp_err *e);

/* xp_run_child with @io (NULL: as xp_run_child). */
int xp_run_child_io(char **argv, bool no_aslr, const struct xp_child_io *io, int *status,
		    struct xp_err *e);

/*
 * Before a series of runs (--warmup, --repeat): our stdin saved so that
 * every run reads the same.  A regular file is read again from where it
 * stood; a pipe, socket or device is copied once into an unlinked file of
 * $TMPDIR; a terminal is left as it is (each run reads it).  @io->in is
 * -1 when there is nothing to save.  0, or -errno with @e set.
 */
int xp_run_save_stdin(struct xp_child_io *io, struct xp_err *e);

/* Remove directory @dir and the files in it (no subdirectories). */
int xp_run_dir_remove(const char *dir, struct xp_err *e);

/* Die the way the program did: default disposition, raise. Returns only if that failed. */
void xp_run_die_like(int sig);

#endif
