/* SPDX-License-Identifier: MIT */
/*
 * load: dumps named on the command line (files, directories of *.xpd, or
 * glob patterns of either) read one at a time and folded into processes.
 * Streamed (xp_load_stream), each process whose dumps are all read is
 * handed on and freed: what a fleet's thousands of dumps hold in memory is
 * the few processes being read, not all of them.
 */
#ifndef XP_LOAD_H
#define XP_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "read/dir_list.h"
#include "util/err.h"
#include "util/u64set.h"
#include "model/proc.h"

/* A process whose dumps are all read, handed on (xp_load_stream): 0, or -errno with @e set. */
typedef int (*xp_load_sink_fn)(void *arg, const struct xp_proc *p, struct xp_err *e);

/*
 * Processes kept open while streaming: a process's dumps are read one
 * after another (a directory is read in name order, and the shim's names
 * put a process's workers together), so a few suffice; one whose dumps are
 * further apart than this is refused, never merged twice.
 */
#define XP_LOAD_PENDING 16

struct xp_load {
	bool strict; /* a corrupt or incomplete dump is an error, not skipped */
	bool defer;  /* keep the lines of skipped files for xp_load_finish */
	struct xp_procset set;
	size_t files;	      /* dumps read and folded */
	size_t skipped;	      /* corrupt ones left out, each named on stderr */
	char **skips;	      /* with @defer: what was wrong with each, not yet said */
	xp_load_sink_fn sink; /* streaming: where a process goes once read; NULL: kept in @set */
	void *sink_arg;
	struct xp_u64set done; /* the processes handed on: their keys' hashes */
	/*
	 * The files of MPI jobs met (read/job.h), read after every other dump
	 * (xp_load_finish): a dump of theirs whose process was read already,
	 * from a file of its own (a rank that kept its dumps when the job's
	 * merge did not finish for it), is read once.
	 */
	struct xp_load_job *jobs;
	size_t njobs;
};

/* An empty load; @strict: a corrupt or incomplete dump is an error. */
void xp_load_init(struct xp_load *l, bool strict);
/*
 * Stream: each process, once its dumps are read, goes to @sink(@arg, ...)
 * and is freed, instead of staying in l->set (the last ones at
 * xp_load_finish).
 */
void xp_load_stream(struct xp_load *l, xp_load_sink_fn sink, void *arg);
/* Free the processes and the skipped files' lines @l holds. */
void xp_load_free(struct xp_load *l);

/*
 * After the last xp_load_arg: the MPI jobs' files read, the processes
 * still open handed on (when streaming), the skipped files said (with
 * @defer), and a failure when none was usable.  A lone bad file is then
 * one line, its own defect.  0, or -errno with @e set.
 */
int xp_load_finish(struct xp_load *l, struct xp_err *e);

/*
 * A dump file, every *.xpd in a directory, or, when @arg names nothing and
 * holds a glob's * ? or [, every file and directory it matches (in name
 * order: quoted, so that 64,000 names need not fit a command line).  0 or
 * -errno with @e set.
 */
int xp_load_arg(struct xp_load *l, const char *arg, struct xp_err *e);
/* The dumps @names of directory @dir (links refused). */
int xp_load_names(struct xp_load *l, const char *dir, const struct xp_names *names,
		  struct xp_err *e);

#endif
