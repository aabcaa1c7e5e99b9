// SPDX-License-Identifier: MIT
/*
 * diff_margin: when a change is real.  A deterministic counter promises
 * every unit: any change is real.  A counter that is not deterministic
 * (tsc, ns) promises a per-eval to within two of its steps: the floor and
 * the calibration subtracted from it are each read to within one step.  A
 * floor no two evaluations reached may be off by as much as the next
 * dearest evaluation lay above it (its slack).  Where a side is several
 * runs, their spread is what the machine did to the same work from run to
 * run, and it widens the margin: the spread of each side, a side of one run
 * taken to spread as the other does.  A floor of a single evaluation, on
 * sides of one run each, promises nothing: its change is left unjudged.
 *
 *   margin(per-eval)    = 2 steps + spread(base) + spread(new) + slack(base) + slack(new)
 *   margin(evaluations) = spread(base) + spread(new)       (counts are exact)
 *   margin(cost)        = margin(per-eval) x evaluations + margin(evaluations) x per-eval
 *                         (the larger side's of each)
 */
#include "diff/diff.h"
#include "util/num.h"

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void xp_diff_margins(const struct xp_diff *d, struct xp_diff_row *x)
{
	const struct xp_row *b = x->base, *n = x->next;
	uint64_t pb, pn, eb, en, pe, ev;
	bool mb, mn, unjudged = false;

	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		x->margin[m] = 0;
		x->real[m] = false;
	}
	if (!b || !n)
		return;
	mb = b->runs > 1;
	mn = n->runs > 1;
	pb = b->per_eval_hi - b->per_eval_lo;
	pn = n->per_eval_hi - n->per_eval_lo;
	eb = b->evaluations_hi - b->evaluations_lo;
	en = n->evaluations_hi - n->evaluations_lo;
	/* a side of one run spreads as the other side was measured to */
	if (!mb) {
		pb = pn;
		eb = en;
	}
	if (!mn) {
		pn = pb;
		en = eb;
	}
	pe = xp_sat_add(xp_sat_add(d->deterministic ? 0 : xp_sat_mul(2, d->step), pb), pn);
	ev = xp_sat_add(eb, en);
	x->margin[XP_DIFF_EVALUATIONS] = ev;
	if (!d->deterministic) {
		uint64_t sb = b->slack, sn = n->slack;

		/* an unknown slack is what a measured spread stands in for */
		pe = xp_sat_add(pe, sb == XP_SLACK_UNKNOWN ? 0 : sb);
		pe = xp_sat_add(pe, sn == XP_SLACK_UNKNOWN ? 0 : sn);
		unjudged = !mb && !mn && (sb == XP_SLACK_UNKNOWN || sn == XP_SLACK_UNKNOWN);
	}
	if (unjudged) {
		x->margin[XP_DIFF_PER_EVAL] = XP_DIFF_UNJUDGED;
		x->margin[XP_DIFF_COST] = XP_DIFF_UNJUDGED;
	} else {
		x->margin[XP_DIFF_PER_EVAL] = pe;
		x->margin[XP_DIFF_COST] =
			xp_sat_add(xp_sat_mul(pe, max_u64(b->fin.evaluations, n->fin.evaluations)),
				   xp_sat_mul(ev, max_u64(b->per_eval, n->per_eval)));
	}
	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		uint64_t vb = xp_diff_value(b, (enum xp_diff_metric)m);
		uint64_t vn = xp_diff_value(n, (enum xp_diff_metric)m);
		uint64_t delta = vb > vn ? vb - vn : vn - vb;

		x->real[m] = x->margin[m] != XP_DIFF_UNJUDGED && delta > x->margin[m];
	}
}

bool xp_diff_within_margin(const struct xp_diff *d, const struct xp_diff_row *x)
{
	enum xp_diff_metric m = d->opts.metric;

	return x->base && x->next && !x->real[m] &&
	       xp_diff_value(x->base, m) != xp_diff_value(x->next, m);
}
