// SPDX-License-Identifier: MIT
/*
 * diff_margin: when a change between the two sides is real: the margin
 * between two rows of a declaration (report/report_margin.c, the rule a
 * report's spread over processes follows too), with the counters of both
 * sides.
 */
#include "diff/diff.h"

void xp_diff_margins(const struct xp_diff *d, struct xp_diff_row *x)
{
	struct xp_margin m;

	for (int k = 0; k < XP_DIFF_NMETRICS; k++) {
		x->margin[k] = 0;
		x->real[k] = false;
	}
	if (!x->base || !x->next)
		return;
	xp_margin_between(&m, x->base, x->next, d->deterministic, d->step);
	for (int k = 0; k < XP_DIFF_NMETRICS; k++) {
		x->margin[k] = m.of[k];
		x->real[k] = m.real[k];
	}
}

bool xp_diff_within_margin(const struct xp_diff *d, const struct xp_diff_row *x)
{
	enum xp_diff_metric m = d->opts.metric;

	return x->base && x->next && !x->real[m] &&
	       xp_diff_value(x->base, m) != xp_diff_value(x->next, m);
}
