/* SPDX-License-Identifier: MIT */
/*
 * doubling_progress: where "extprof doubling --sizes" is, on stderr: which
 * run, for how long the test has run, and about how long it has left.  On
 * a terminal one line redrawn; elsewhere (a log, a CI job) one line a run.
 */
#ifndef XP_DOUBLING_PROGRESS_H
#define XP_DOUBLING_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xp_dbl_progress {
	bool tty;	       /* stderr is a terminal: one line, redrawn */
	double started;	       /* CLOCK_MONOTONIC seconds at the first run */
	const uint64_t *sizes; /* ascending */
	size_t nsizes;
	unsigned warmup, repeat; /* runs at sizes[0] first; rounds of every size */
	double timeout;		 /* --timeout: a size that takes longer is the last; 0: none */
	double *secs;		 /* per size: the seconds its runs took, summed */
	unsigned *runs;		 /* per size: its runs finished */
	unsigned done, total;	 /* runs finished, and planned */
};

/* Where the test is: the run about to start. */
struct xp_dbl_at {
	bool warmup; /* a warmup run (at sizes[0]), else one of round @k */
	unsigned k;  /* which warmup, or which round (from 1) */
	size_t size; /* the index of its size */
	size_t top;  /* the sizes still run: sizes[0..top) (fewer after a timeout) */
};

/* Set @p up for the sizes and runs of doubling's options: 0 or -ENOMEM. */
int xp_dbl_progress_init(struct xp_dbl_progress *p, const uint64_t *sizes, size_t nsizes,
			 unsigned warmup, unsigned repeat, double timeout);
/* Free what xp_dbl_progress_init allocated. */
void xp_dbl_progress_free(struct xp_dbl_progress *p);

/*
 * Seconds the runs from @at on should take: each size as its own runs so
 * far took, or, not run yet, as the largest size run grown as the two
 * largest grew (N^b, b from 0 to 3); a size predicted over the timeout is
 * the last.  -1 before a run has finished.
 */
double xp_dbl_progress_left(const struct xp_dbl_progress *p, const struct xp_dbl_at *at);

/* Say the run @at is starting: "N=..., repeat K of R (run I of T), M:SS elapsed, about M:SS left".
 */
void xp_dbl_progress_show(struct xp_dbl_progress *p, const struct xp_dbl_at *at);
/* The run of size index @size took @secs. */
void xp_dbl_progress_done(struct xp_dbl_progress *p, size_t size, double secs);
/* Clear the terminal's line before something else is said (nothing to do elsewhere). */
void xp_dbl_progress_clear(const struct xp_dbl_progress *p);

#endif
