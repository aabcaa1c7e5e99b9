// SPDX-License-Identifier: MIT
/*
 * report_margin: when two figures of a declaration differ for real, between
 * two runs (extprof diff) or between two processes of one run (a report's
 * spread).  A deterministic counter promises every unit: any difference is
 * real.  A counter that is not deterministic (tsc, ns) promises a per-eval
 * to within two of its steps: the floor and the calibration subtracted from
 * it are each read to within one step.  A floor no two evaluations reached
 * may be off by as much as the next dearest evaluation lay above it (its
 * slack).  Where a side is several runs, their spread is what the machine
 * did to the same work from run to run, and it widens the margin: the
 * spread of each side, a side of one run taken to spread as the other
 * does.  A floor of a single evaluation, on sides of one run each,
 * promises nothing: its difference is left unjudged.
 *
 *   margin(per-eval)    = 2 steps + spread(a) + spread(b) + slack(a) + slack(b)
 *   margin(evaluations) = spread(a) + spread(b)       (counts are exact)
 *   margin(cost)        = margin(per-eval) x evaluations + margin(evaluations) x per-eval
 *                         (the larger side's of each)
 */
#include "util/num.h"
#include "report/report.h"

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void xp_margin_between(struct xp_margin *m, const struct xp_row *a, const struct xp_row *b,
		       bool deterministic, uint64_t step)
{
	uint64_t pa, pb, ea, eb, pe, ev;
	bool ma = a->runs > 1, mb = b->runs > 1, unjudged = false;

	pa = a->per_eval_hi - a->per_eval_lo;
	pb = b->per_eval_hi - b->per_eval_lo;
	ea = a->evaluations_hi - a->evaluations_lo;
	eb = b->evaluations_hi - b->evaluations_lo;
	/* a side of one run spreads as the other side was measured to */
	if (!ma) {
		pa = pb;
		ea = eb;
	}
	if (!mb) {
		pb = pa;
		eb = ea;
	}
	pe = xp_sat_add(xp_sat_add(deterministic ? 0 : xp_sat_mul(2, step), pa), pb);
	ev = xp_sat_add(ea, eb);
	m->of[XP_METRIC_EVALUATIONS] = ev;
	if (!deterministic) {
		uint64_t sa = a->slack, sb = b->slack;

		/* an unknown slack is what a measured spread stands in for */
		pe = xp_sat_add(pe, sa == XP_SLACK_UNKNOWN ? 0 : sa);
		pe = xp_sat_add(pe, sb == XP_SLACK_UNKNOWN ? 0 : sb);
		unjudged = !ma && !mb && (sa == XP_SLACK_UNKNOWN || sb == XP_SLACK_UNKNOWN);
	}
	if (unjudged) {
		m->of[XP_METRIC_PER_EVAL] = XP_MARGIN_UNJUDGED;
		m->of[XP_METRIC_COST] = XP_MARGIN_UNJUDGED;
	} else {
		m->of[XP_METRIC_PER_EVAL] = pe;
		m->of[XP_METRIC_COST] =
			xp_sat_add(xp_sat_mul(pe, max_u64(a->fin.evaluations, b->fin.evaluations)),
				   xp_sat_mul(ev, max_u64(a->per_eval, b->per_eval)));
	}
	for (int k = 0; k < XP_NMETRICS; k++) {
		uint64_t va = xp_metric_value(a, (enum xp_metric)k);
		uint64_t vb = xp_metric_value(b, (enum xp_metric)k);
		uint64_t delta = va > vb ? va - vb : vb - va;

		m->real[k] = m->of[k] != XP_MARGIN_UNJUDGED && delta > m->of[k];
	}
}
