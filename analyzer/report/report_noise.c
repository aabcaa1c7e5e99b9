// SPDX-License-Identifier: MIT
/*
 * report_noise: what a counter that is not deterministic can be trusted
 * with.  The step its deltas really move in (a VM's TSC may advance 26 ticks
 * at a time while two reads now and then differ by 1, which is what the
 * shim's resolution records), observed with the rare deltas a preemption
 * landed in set aside, and the state-dependent flag that allows for both.
 */
#include "util/num.h"
#include "report/report.h"

/*
 * Buckets up to 256 are at most 2 wide: a gap between them is known to
 * within a unit, and a step of 26 is seen in deltas of 130 to 250 too.
 */
#define STEP_TOP 256u

void xp_step_add(struct xp_step *s, const struct xp_hist *h)
{
	for (size_t i = 1; i < h->n && extprof_hist_lower(h->bins[i].bucket) < STEP_TOP; i++) {
		const struct xp_hbin *a = &h->bins[i - 1], *b = &h->bins[i];
		uint64_t w = a->count < b->count ? a->count : b->count;
		uint64_t gap = extprof_hist_lower(b->bucket) - extprof_hist_lower(a->bucket);

		s->weight[gap] = xp_sat_add(s->weight[gap], w);
	}
}

uint64_t xp_step_get(const struct xp_step *s)
{
	unsigned __int128 total = 0, seen = 0;

	for (uint32_t g = 1; g < XP_STEP_MAX; g++)
		total += s->weight[g];
	if (!total)
		return 0;
	for (uint32_t g = 1; g < XP_STEP_MAX; g++) {
		seen += s->weight[g];
		if (2 * seen >= total)
			return g;
	}
	return 0;
}

/*
 * A floor fewer than two evaluations reached may be high, or, with a
 * counter read out of order, a lucky low: the next run's least delta is
 * as likely to be its next dearest evaluation.  The gap to that one is how
 * far the floor can be trusted.
 */
uint64_t xp_row_slack(const struct xp_row *row)
{
	return row->settled ? 0 : xp_fin_slack(&row->fin);
}

uint64_t xp_fin_slack(const struct xp_fin *f)
{
	if (f->hits >= 2 || !f->evaluations)
		return 0;
	if (f->evaluations < 2 || f->floor == EXTPROF_FLOOR_NONE || !f->vals.n)
		return XP_SLACK_UNKNOWN;
	if (f->vals.bins[0].count >= 2 || f->vals.n < 2)
		return 0;
	return f->vals.bins[1].value - f->vals.bins[0].value;
}

/*
 * A preemption or an interrupt adds up to milliseconds to the call it
 * lands in, and lands in a call with a chance of the call's length over
 * the time between two of them.  No machine interrupts a thread more often
 * than every 100 µs or so, and a counter that is not deterministic counts
 * at least a unit a ns (tsc, cycles, ns): 100,000 units bound that time
 * from below.  So a call as long as its p50 and a step is hit with a chance
 * of at most that over 100,000, and that share of the evaluations, the
 * dearest, is counted at the value below them, never more than 5 %: the
 * checker's consistent at -n 512 (120 µs a call) had 4.5 % of its calls
 * preempted, 2 to 19 ms each, on a machine at load 10 on 2 CPUs; a
 * 26-tick allocator has 0.05 % of its calls set aside, and its slow path,
 * 2.5 % of them, still makes it state-dependent.  observed keeps them all.
 */
#define INTERRUPT_UNITS 100000.0
#define TRIM_MAX	0.05

/* The value of the evaluation of rank @rank (1-based, ascending) in @f's histogram. */
static uint64_t value_at_rank(const struct xp_fin *f, unsigned __int128 rank)
{
	unsigned __int128 seen = 0;

	for (size_t i = 0; i < f->vals.n; i++) {
		seen += f->vals.bins[i].count;
		if (seen >= rank)
			return f->vals.bins[i].value;
	}
	return f->vals.n ? f->vals.bins[f->vals.n - 1].value : 0;
}

uint64_t xp_fin_trimmed(const struct xp_fin *f, bool deterministic, uint64_t step)
{
	unsigned __int128 total = 0, keep;
	uint64_t top, cut = 0;
	double share;

	if (deterministic || !f->evaluations || !f->vals.n)
		return f->observed;
	for (size_t i = 0; i < f->vals.n; i++)
		total += f->vals.bins[i].count;
	share = ((double)xp_fin_percentile(f, 50) + (double)step) / INTERRUPT_UNITS;
	if (share > TRIM_MAX)
		share = TRIM_MAX;
	keep = total - (unsigned __int128)((double)total * share);
	if (keep == total)
		return f->observed;
	top = value_at_rank(f, keep);
	for (size_t i = f->vals.n; i-- > 0 && f->vals.bins[i].value > top;)
		cut = xp_sat_add(cut,
				 xp_sat_mul(f->vals.bins[i].value - top, f->vals.bins[i].count));
	return f->observed > cut ? f->observed - cut : 0;
}

/*
 * Beyond noise: trimmed is at least cost x (1 + --flag-ratio), and above
 * cost by more than two steps per evaluation.  Two steps: a delta and the
 * calibration subtracted from it are each read to within one step, so a
 * function whose every call costs the same still averages up to two steps
 * above its floor.  A deterministic counter has no such noise.
 */
bool xp_row_state_dependent(const struct xp_row *row, const struct xp_report *r)
{
	uint64_t ev = row->fin.evaluations, gap, allow;

	if (!ev || row->trimmed <= row->cost)
		return false;
	gap = row->trimmed - row->cost;
	allow = r->deterministic ? 0 : xp_sat_mul(xp_sat_mul(2, r->step), ev);
	if (gap <= allow)
		return false;
	return (long double)row->trimmed >=
	       (long double)row->cost * (1.0L + (long double)r->opts.flag_ratio);
}
