/* SPDX-License-Identifier: MIT */
/*
 * top: extprof top DIR, a live table of a running program's dumps (the
 * frames, top_screen.c; the loop, the terminal and the options, cmd_top.c).
 */
#ifndef XP_TOP_H
#define XP_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <uthash.h>

#include "report/report.h"

/*
 * A declaration's evaluations at the last two frames that saw them change,
 * for its rate: a dump changes when a call ends, which for a function
 * called less often than frames are drawn is not at every frame.
 */
struct xp_top_seen {
	char *hkey;	  /* the row's "kind\x1fsymbol\x1fobject" */
	uint64_t last;	  /* evaluations when they last changed */
	double last_at;	  /* CLOCK_MONOTONIC seconds of that frame */
	uint64_t before;  /* evaluations at the change before */
	double before_at; /* and when */
	unsigned frame;	  /* the last frame that had the row */
	UT_hash_handle hh;
};

struct xp_top {
	const char *dir;
	double delay; /* seconds between frames */
	double wait;  /* --wait: seconds DIR may be missing before top gives up */
	bool once;
	struct xp_report_opts report;
	struct xp_top_seen *seen; /* the rows of the last frame */
	double seen_at;		  /* CLOCK_MONOTONIC seconds of the last frame; 0: none */
	unsigned frame;		  /* frames drawn with a report */
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
 * One screen (a frame) into @out: the heading, the state, and the table of @r (NULL
 * when waiting), with evaluations per second over the time between the
 * last two changes of each count the frames saw (at the first, over the
 * run so far).  Updates @t->seen.  0 or -ENOMEM.
 */
int xp_top_screen(struct xp_top *t, const struct xp_report *r, const struct xp_top_state *st,
		  FILE *out, bool colour);
/* Free what the frames of @t kept (the last figures seen). */
void xp_top_free(struct xp_top *t);

#endif
