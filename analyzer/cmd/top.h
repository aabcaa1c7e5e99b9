/* SPDX-License-Identifier: MIT */
/*
 * top: extprof top DIR, a live table of a running program's dumps (the
 * frames, top_frame.c; the loop, the terminal and the options, cmd_top.c).
 */
#ifndef XP_TOP_H
#define XP_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <uthash.h>

#include "report/report.h"

/* A declaration's evaluations at the previous frame, for its rate. */
struct xp_top_seen {
	char *hkey; /* the row's "kind\x1fsymbol\x1fobject" */
	uint64_t evaluations;
	UT_hash_handle hh;
};

struct xp_top {
	const char *dir;
	double delay; /* seconds between frames */
	double wait;  /* --wait: seconds DIR may be missing before top gives up */
	bool once;
	struct xp_report_opts report;
	struct xp_top_seen *seen; /* the last frame's rows */
	double seen_at;		  /* CLOCK_MONOTONIC seconds of the last frame; 0: none */
};

/* What a frame shows besides the report. */
struct xp_top_state {
	size_t running; /* processes still running (or, on another host, not known ended) */
	size_t ended;
	size_t skipped;	     /* dumps left out of this frame */
	const char *waiting; /* no report: why (no dumps yet...), else NULL */
	double now;	     /* CLOCK_MONOTONIC seconds */
	int64_t realtime_ns; /* CLOCK_REALTIME, as the dumps' start times */
};

/*
 * One frame into @out: the heading, the state, and the table of @r (NULL
 * when waiting), with evaluations per second since the last frame (or,
 * at the first, since the run started).  Updates @t->seen.  0 or -ENOMEM.
 */
int xp_top_frame(struct xp_top *t, const struct xp_report *r, const struct xp_top_state *st,
		 FILE *out, bool colour);
/* Free what the frames of @t kept (the last figures seen). */
void xp_top_free(struct xp_top *t);

#endif
