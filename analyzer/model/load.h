/* SPDX-License-Identifier: MIT */
/*
 * load: dumps named on the command line (files, or directories of *.xpd)
 * read one at a time and folded into processes, so that a directory of
 * thousands of dumps holds one process's worth of memory per process.
 */
#ifndef XP_LOAD_H
#define XP_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "read/dir_list.h"
#include "util/err.h"
#include "model/proc.h"

struct xp_load {
	bool strict; /* a corrupt or incomplete dump is an error, not skipped */
	bool defer;  /* keep the lines of skipped files for xp_load_finish */
	struct xp_procset set;
	size_t files;	/* dumps read and folded */
	size_t skipped; /* corrupt ones left out, each named on stderr */
	char **skips;	/* with @defer: what was wrong with each, not yet said */
};

/* An empty load; @strict: a corrupt or incomplete dump is an error. */
void xp_load_init(struct xp_load *l, bool strict);
/* Free the processes and the skipped files' lines @l holds. */
void xp_load_free(struct xp_load *l);

/*
 * After the last xp_load_arg: say the skipped files (with @defer), and
 * fail when none was usable.  A lone bad file is then one line, its own
 * defect.  0, or -errno with @e set.
 */
int xp_load_finish(struct xp_load *l, struct xp_err *e);

/* A dump file, or every *.xpd in a directory.  0 or -errno with @e set. */
int xp_load_arg(struct xp_load *l, const char *arg, struct xp_err *e);
/* The dumps @names of directory @dir (links refused). */
int xp_load_names(struct xp_load *l, const char *dir, const struct xp_names *names,
		  struct xp_err *e);

#endif
