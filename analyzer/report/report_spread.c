// SPDX-License-Identifier: MIT
/*
 * report_spread: how a declaration's figures spread over the processes
 * that ran it: each process's per-eval (by --stat, with its own
 * calibration) and evaluations, kept as sorted values with how many
 * processes had each, so that the least, the median and the greatest are
 * read off at the end and two spreads merge (a process at a time, or the
 * rows of several executables made one).  The least and the greatest are
 * kept exactly, with the process that had them; the values in between are
 * kept to the histogram's buckets (within 1 %) once a declaration has
 * more than XP_SPREAD_EXACT different ones, so that what a spread holds
 * never grows with the number of processes past that.
 *
 * The flag: the greatest per-eval of the processes at least (1 + R)
 * times the least (R: --flag-ratio, as for state-dependent) and beyond the
 * margin two runs of the declaration are compared with in a diff
 * (report_margin.c), so that what the counter cannot tell apart, and what
 * is close, never flags; and, for the ranks of an MPI job (meant to do the
 * same work), the same of their evaluations.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/bins_add.h"
#include "util/num.h"
#include "util/vec.h"
#include "report/report.h"

/* @dst += @src, values of both kept in order. */
static int vals_add(struct xp_vhist *dst, const struct xp_vhist *src);
XP_DEFINE_BINS_ADD(vals_add, struct xp_vhist, struct xp_vbin, value)

/* The value @v is kept as: itself, or the lower bound of its bucket once coarse. */
static uint64_t spread_key(const struct xp_spread *s, uint64_t v)
{
	return s->coarse ? extprof_hist_lower(extprof_hist_bucket(v)) : v;
}

/* @v's values kept to buckets: in place, still ascending. */
static void vals_coarsen(struct xp_vhist *v)
{
	size_t n = 0;

	for (size_t i = 0; i < v->n; i++) {
		uint64_t key = extprof_hist_lower(extprof_hist_bucket(v->bins[i].value));

		if (n && v->bins[n - 1].value == key)
			v->bins[n - 1].count = xp_sat_add(v->bins[n - 1].count, v->bins[i].count);
		else
			v->bins[n++] = (struct xp_vbin){key, v->bins[i].count};
	}
	v->n = n;
}

static void spread_coarsen(struct xp_spread *s)
{
	vals_coarsen(&s->per_eval);
	vals_coarsen(&s->evaluations);
	s->coarse = true;
}

/* One process more of value @v in @h: 0 or -ENOMEM. */
static int vals_put(struct xp_spread *s, struct xp_vhist *h, uint64_t v)
{
	size_t lo = 0, hi = h->n, cap = h->n;
	uint64_t key = spread_key(s, v);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->bins[mid].value < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->n && h->bins[lo].value == key) {
		h->bins[lo].count = xp_sat_add(h->bins[lo].count, 1);
		return 0;
	}
	/* vals_add sizes the bins exactly: no capacity is kept beside them */
	if (xp_grow(&h->bins, &cap, h->n, sizeof(*h->bins), 4))
		return -ENOMEM;
	memmove(&h->bins[lo + 1], &h->bins[lo], (h->n - lo) * sizeof(*h->bins));
	h->bins[lo] = (struct xp_vbin){key, 1};
	h->n++;
	if (!s->coarse && h->n > XP_SPREAD_EXACT)
		spread_coarsen(s);
	return 0;
}

/* Which of two processes names an end when their values tie: the first by host, pid, rank. */
static int who_cmp(const struct xp_who *a, const struct xp_who *b)
{
	int c = strcmp(a->host, b->host);

	if (!c)
		c = (a->pid > b->pid) - (a->pid < b->pid);
	if (!c)
		c = (a->rank > b->rank) - (a->rank < b->rank);
	return c;
}

/* @end = @x when @x is below it (@low) or above it, or ties it and comes first. */
static void end_take(struct xp_spread_end *end, const struct xp_spread_end *x, bool low, bool first)
{
	if (first || (low ? x->value < end->value : x->value > end->value) ||
	    (x->value == end->value && who_cmp(&x->who, &end->who) < 0))
		*end = *x;
}

int xp_spread_add_process(struct xp_spread *s, bool measured, uint64_t per_eval, uint64_t slack,
			  uint64_t evaluations, const struct xp_who *who)
{
	struct xp_spread_end pe = {per_eval, slack, *who}, ev = {evaluations, 0, *who};
	int err = vals_put(s, &s->evaluations, evaluations);

	if (!err && measured)
		err = vals_put(s, &s->per_eval, per_eval);
	if (err)
		return err;
	s->ranks = (s->processes ? s->ranks : true) && who->rank >= 0;
	end_take(&s->evaluations_lo, &ev, true, !s->processes);
	end_take(&s->evaluations_hi, &ev, false, !s->processes);
	if (measured) {
		end_take(&s->per_eval_lo, &pe, true, !s->measured);
		end_take(&s->per_eval_hi, &pe, false, !s->measured);
		s->measured++;
	}
	s->processes++;
	return 0;
}

int xp_spread_add(struct xp_spread *dst, const struct xp_spread *src)
{
	struct xp_vhist pe = src->per_eval, ev = src->evaluations;
	int err;

	if (!src->processes)
		return 0;
	if (src->coarse && !dst->coarse)
		spread_coarsen(dst);
	if (dst->coarse && !src->coarse) {
		/* a coarse copy of @src's values to add */
		pe.bins = malloc((pe.n + 1) * sizeof(*pe.bins));
		ev.bins = malloc((ev.n + 1) * sizeof(*ev.bins));
		if (!pe.bins || !ev.bins) {
			free(pe.bins);
			free(ev.bins);
			return -ENOMEM;
		}
		memcpy(pe.bins, src->per_eval.bins, pe.n * sizeof(*pe.bins));
		memcpy(ev.bins, src->evaluations.bins, ev.n * sizeof(*ev.bins));
		vals_coarsen(&pe);
		vals_coarsen(&ev);
	}
	err = vals_add(&dst->per_eval, &pe) ?: vals_add(&dst->evaluations, &ev);
	if (pe.bins != src->per_eval.bins) {
		free(pe.bins);
		free(ev.bins);
	}
	if (err)
		return err;
	if (!dst->coarse &&
	    (dst->per_eval.n > XP_SPREAD_EXACT || dst->evaluations.n > XP_SPREAD_EXACT))
		spread_coarsen(dst);
	dst->ranks = (dst->processes ? dst->ranks : true) && src->ranks;
	end_take(&dst->evaluations_lo, &src->evaluations_lo, true, !dst->processes);
	end_take(&dst->evaluations_hi, &src->evaluations_hi, false, !dst->processes);
	if (src->measured) {
		end_take(&dst->per_eval_lo, &src->per_eval_lo, true, !dst->measured);
		end_take(&dst->per_eval_hi, &src->per_eval_hi, false, !dst->measured);
	}
	dst->processes = xp_sat_add(dst->processes, src->processes);
	dst->measured = xp_sat_add(dst->measured, src->measured);
	return 0;
}

uint64_t xp_spread_median(const struct xp_vhist *v)
{
	unsigned __int128 total = 0, seen = 0, rank;

	for (size_t i = 0; i < v->n; i++)
		total += v->bins[i].count;
	if (!total)
		return 0;
	rank = (total + 1) / 2;
	for (size_t i = 0; i < v->n; i++) {
		seen += v->bins[i].count;
		if (seen >= rank)
			return v->bins[i].value;
	}
	return v->bins[v->n - 1].value;
}

void xp_spread_free(struct xp_spread *s)
{
	free(s->per_eval.bins);
	free(s->evaluations.bins);
	memset(s, 0, sizeof(*s));
}

/* A row of one run standing for an end of the spread: what the margin reads of it. */
static void end_row(struct xp_row *x, const struct xp_spread_end *pe, uint64_t evaluations)
{
	memset(x, 0, sizeof(*x));
	x->runs = 1;
	x->per_eval = x->per_eval_lo = x->per_eval_hi = pe ? pe->value : 0;
	x->slack = pe ? pe->slack : 0;
	x->fin.evaluations = x->evaluations_lo = x->evaluations_hi = evaluations;
}

/* @hi at least (1 + @ratio) times @lo. */
static bool beyond_ratio(uint64_t lo, uint64_t hi, double ratio)
{
	return (long double)hi >= (long double)lo * (1.0L + (long double)ratio);
}

bool xp_spread_imbalance(const struct xp_row *row, const struct xp_report *r, uint64_t *margin)
{
	const struct xp_spread *s = &row->spread;
	struct xp_row a, b;
	struct xp_margin m;
	bool imbalance = false;

	*margin = 0;
	if (s->measured >= 2) {
		end_row(&a, &s->per_eval_lo, 0);
		end_row(&b, &s->per_eval_hi, 0);
		xp_margin_between(&m, &a, &b, r->deterministic, r->step);
		*margin = m.of[XP_METRIC_PER_EVAL];
		imbalance = m.real[XP_METRIC_PER_EVAL] &&
			    beyond_ratio(a.per_eval, b.per_eval, r->opts.flag_ratio);
	}
	if (s->ranks && s->processes >= 2) {
		end_row(&a, NULL, s->evaluations_lo.value);
		end_row(&b, NULL, s->evaluations_hi.value);
		xp_margin_between(&m, &a, &b, r->deterministic, r->step);
		imbalance = imbalance || (m.real[XP_METRIC_EVALUATIONS] &&
					  beyond_ratio(a.fin.evaluations, b.fin.evaluations,
						       r->opts.flag_ratio));
	}
	return imbalance;
}
