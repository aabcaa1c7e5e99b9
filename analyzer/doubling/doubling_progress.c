// SPDX-License-Identifier: MIT
/*
 * doubling_progress: the progress of "extprof doubling --sizes", with the
 * time it has taken and an estimate of what is left.  Sizes double, and
 * so, often, does the time a run takes: what is left is not the mean run
 * times the runs left, but each size's own time, or for a size not run
 * yet, the largest one's grown by the growth of the two largest.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "doubling/doubling_progress.h"

static double progress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int xp_dbl_progress_init(struct xp_dbl_progress *p, const uint64_t *sizes, size_t nsizes,
			 unsigned warmup, unsigned repeat, double timeout)
{
	*p = (struct xp_dbl_progress){
		.tty = isatty(STDERR_FILENO),
		.started = progress_now(),
		.sizes = sizes,
		.nsizes = nsizes,
		.warmup = warmup,
		.repeat = repeat,
		.timeout = timeout,
		.secs = calloc(nsizes, sizeof(*p->secs)),
		.runs = calloc(nsizes, sizeof(*p->runs)),
		/* fewer after a timeout */
		.total = warmup + (unsigned)nsizes * repeat,
	};
	if (!p->secs || !p->runs) {
		xp_dbl_progress_free(p);
		return -ENOMEM;
	}
	return 0;
}

void xp_dbl_progress_free(struct xp_dbl_progress *p)
{
	free(p->secs);
	free(p->runs);
	p->secs = NULL;
	p->runs = NULL;
}

/* Seconds a run at size index @j should take; -1 when no run has finished. */
static double progress_predict(const struct xp_dbl_progress *p, size_t j)
{
	size_t hi = p->nsizes, lo = p->nsizes;
	double t_hi, t_lo, b = 1;

	if (p->runs[j])
		return p->secs[j] / p->runs[j];
	for (size_t i = p->nsizes; i-- > 0;) {
		if (!p->runs[i])
			continue;
		if (hi == p->nsizes) {
			hi = i;
		} else {
			lo = i;
			break;
		}
	}
	if (hi == p->nsizes)
		return -1;
	t_hi = p->secs[hi] / p->runs[hi];
	if (lo != p->nsizes) {
		t_lo = p->secs[lo] / p->runs[lo];
		if (t_lo > 0 && t_hi > 0)
			b = log(t_hi / t_lo) / log((double)p->sizes[hi] / (double)p->sizes[lo]);
		b = b < 0 ? 0 : b > 3 ? 3 : b;
	}
	return t_hi * pow((double)p->sizes[j] / (double)p->sizes[hi], b);
}

double xp_dbl_progress_left(const struct xp_dbl_progress *p, const struct xp_dbl_at *at)
{
	unsigned first = at->warmup ? 1 : at->k;
	size_t cap = at->top;
	double left = 0, t;

	if (at->warmup) {
		t = progress_predict(p, 0);
		if (t < 0)
			return -1;
		left += (p->warmup - at->k + 1) * t;
	}
	for (unsigned round = first; round <= p->repeat; round++) {
		for (size_t j = round == first && !at->warmup ? at->size : 0; j < cap; j++) {
			t = progress_predict(p, j);
			if (t < 0)
				return -1;
			left += t;
			/* as the runs stop: this size once more, no larger one, and not again */
			if (p->timeout > 0 && t > p->timeout) {
				cap = j;
				break;
			}
		}
	}
	return left;
}

/* @secs as "4.2 s" under 10 s, "42 s" under a minute, then M:SS, or H:MM:SS from an hour. */
static const char *progress_clock(char *buf, size_t len, double secs)
{
	uint64_t s = secs > 0 ? (uint64_t)(secs + 0.5) : 0;

	if (secs < 9.95)
		snprintf(buf, len, "%.1f s", secs > 0 ? secs : 0);
	else if (s < 60)
		snprintf(buf, len, "%" PRIu64 " s", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRIu64 ":%02u", s / 60, (unsigned)(s % 60));
	else
		snprintf(buf, len, "%" PRIu64 ":%02u:%02u", s / 3600, (unsigned)(s / 60 % 60),
			 (unsigned)(s % 60));
	return buf;
}

void xp_dbl_progress_show(struct xp_dbl_progress *p, const struct xp_dbl_at *at)
{
	double left = xp_dbl_progress_left(p, at);
	char elapsed[32], rest[32];

	fprintf(stderr,
		"%sextprof: doubling: N=%" PRIu64 ", %s %u of %u (run %u of %u), %s elapsed",
		p->tty ? "\r\033[K" : "", p->sizes[at->size], at->warmup ? "warmup" : "repeat",
		at->k, at->warmup ? p->warmup : p->repeat, p->done + 1, p->total,
		progress_clock(elapsed, sizeof(elapsed), progress_now() - p->started));
	if (left >= 0)
		fprintf(stderr, ", about %s left", progress_clock(rest, sizeof(rest), left));
	fputs(p->tty ? "" : "\n", stderr);
	fflush(stderr);
}

void xp_dbl_progress_done(struct xp_dbl_progress *p, size_t size, double secs)
{
	p->secs[size] += secs;
	p->runs[size]++;
	p->done++;
}

void xp_dbl_progress_clear(const struct xp_dbl_progress *p)
{
	if (p->tty)
		fputs("\r\033[K", stderr);
}
