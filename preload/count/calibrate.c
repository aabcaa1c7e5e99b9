// SPDX-License-Identifier: MIT
/*
 * calibrate: what the hook itself costs, in the counter's unit, measured
 * once per process at start-up on functions of the shim's own that are
 * hooked exactly as a program's are (arch: xp_cal_*): the same patched
 * entry, stub, relocated prologue, thunks and counter reads.
 *
 *   calibration      the floor of an empty function's delta: the part of the
 *                    hook that lands between the two counter reads.  The
 *                    analyzer subtracts it, once, after merging.
 *   nested_overhead  what a hooked call costs its caller beyond an unhooked
 *                    one: (floor(outer calling the hooked empty function N
 *                    times) less floor(the same calling its unhooked twin))
 *                    / N.  The shim subtracts it from a delta for each
 *                    hooked evaluation nested inside.  What a nested call
 *                    adds that varies (the libunwind walk of EXTPROF_CALLERS
 *                    >= 2) is not in it: eval.c measures that on every
 *                    call, and calibration subtracts it here too.
 *   resolution       the step the counter moves by, most often, between two
 *                    reads in a row.
 *
 * Both floors are refined below the counter's step from their histograms
 * (extprof_refine_*, the rule the analyzer applies to every declaration).
 * Calibration runs before any declaration is registered, on declaration
 * indices 0..2 and a worker in anonymous memory, both given back after,
 * and the functions are unhooked again.
 */
#include <errno.h>
#include <string.h>

#include "arch/arch.h"
#include "count/counter_read.h"
#include "core/log.h"
#include "core/state.h"
#include "store/dump.h"
#include "count/calibrate.h"
#include "count/counter.h"
#include "count/thread.h"
#include "store/worker.h"

enum { CAL_EMPTY, CAL_OUTER, CAL_OUTER_PLAIN, CAL_N };

#define CAL_ROUND	  2000
#define CAL_MAX_ROUNDS	  400
#define CAL_STABLE_ROUNDS 8
#define CAL_STEPS	  200000

static const struct {
	const char *name;
	void (*fn)(void);
	void (*end)(void);
} cal_fns[CAL_N] = {
	[CAL_EMPTY] = {"empty", xp_cal_empty, xp_cal_empty_end},
	[CAL_OUTER] = {"outer", xp_cal_outer, xp_cal_outer_end},
	[CAL_OUTER_PLAIN] = {"outer_plain", xp_cal_outer_plain, xp_cal_outer_plain_end},
};

/*
 * The most frequent non-zero step between two reads in a row: the counter's
 * own step where it moves in steps (a TSC that moves 26 ticks at a time,
 * and now and then 1 to keep its rate), what two reads can tell apart where
 * it does not.  The smallest step seen would be the rare correction.
 */
static uint64_t cal_resolution(void)
{
	uint64_t steps[64] = {0}, best = 1, prev = xp_counter_read();

	if (xp.counter.kind == EXTPROF_COUNTER_VAR)
		return 1;
	for (int i = 0; i < CAL_STEPS; i++) {
		uint64_t now = xp_counter_read();

		if (now > prev && now - prev < 64)
			steps[now - prev]++;
		prev = now;
	}
	for (uint64_t d = 2; d < 64; d++) {
		if (steps[d] > steps[best])
			best = d;
	}
	return best;
}

/* Declaration @idx's floor, refined from its histogram in worker @w. */
static uint64_t cal_floor(const struct xp_worker *w, uint32_t idx, uint64_t step)
{
	const uint64_t *hist = dump_row(&w->map, idx);
	uint64_t floor = w->map.decls[idx].floor;
	struct extprof_refine r;

	extprof_refine_init(&r, floor, step);
	for (uint32_t b = extprof_hist_bucket(floor); hist && b < EXTPROF_HIST_BUCKETS; b++) {
		if (extprof_hist_lower(b) > floor + r.step)
			break;
		extprof_refine_add(&r, b, hist[b]);
	}
	return extprof_refine_floor(&r);
}

/* Patch the calibration functions as hooks.c patches a program's. */
static int cal_hook(struct arch_hook *hooks)
{
	char why[128];
	int err;

	for (uint32_t i = 0; i < CAL_N; i++) {
		uint64_t addr = (uint64_t)cal_fns[i].fn, size = (uint64_t)cal_fns[i].end - addr;

		err = arch_prepare_hook(addr, size, i, NULL, 0, &hooks[i], why, sizeof(why));
		if (!err)
			err = arch_commit_hook(&hooks[i], why, sizeof(why));
		if (err) {
			log_msg("calibration: %s %s", cal_fns[i].name, why);
			while (i--)
				arch_unhook(&hooks[i]);
			return err;
		}
		memset(&xp.decls[i], 0, sizeof(xp.decls[i]));
		strcpy(xp.decls[i].kind, "calibration");
		strcpy(xp.decls[i].symbol, cal_fns[i].name);
		strcpy(xp.decls[i].object, "libextprof.so");
		xp.decls[i].address = addr;
		xp.decls[i].size = size;
		xp.decls[i].stub = hooks[i].stub;
	}
	return 0;
}

int calibrate_hook(void)
{
	struct arch_hook hooks[CAL_N];
	uint64_t last[CAL_N] = {0}, floors[CAL_N], step;
	struct xp_worker *w;
	int stable = 0, rounds, err;

	/* steps counts none of the hook's own instructions (step.c): nothing to measure */
	if (xp.counter.kind == EXTPROF_COUNTER_STEPS) {
		xp.meta.calibration = 0;
		xp.meta.nested_overhead = 0;
		xp.meta.resolution = 1;
		xp.counter.flags |= EXTPROF_COUNTER_F_CALIBRATION_SETTLED;
		return 0;
	}
	xp.meta.resolution = cal_resolution();
	step = xp.counter.flags & EXTPROF_COUNTER_F_DETERMINISTIC ? 0 : xp.meta.resolution;
	err = cal_hook(hooks);
	if (err)
		return err;
	xp.ndecls = CAL_N;
	xp.calibrating = true;

	w = thread_begin(&xp_self);
	if (!w) {
		err = -ENOMEM;
		goto out;
	}
	for (rounds = 0; rounds < CAL_MAX_ROUNDS && stable < CAL_STABLE_ROUNDS; rounds++) {
		bool same = true;

		for (int k = 0; k < CAL_ROUND; k++) {
			xp_cal_empty();
			xp_cal_outer();
			xp_cal_outer_plain();
		}
		for (int i = 0; i < CAL_N; i++) {
			floors[i] = w->map.decls[i].floor;
			same &= floors[i] == last[i] && w->map.decls[i].floor_hits >= 2;
			last[i] = floors[i];
		}
		stable = same ? stable + 1 : 0;
	}
	for (uint32_t i = 0; i < CAL_N; i++)
		floors[i] = cal_floor(w, i, step);
	xp.meta.calibration = floors[CAL_EMPTY];
	xp.meta.nested_overhead =
		floors[CAL_OUTER] > floors[CAL_OUTER_PLAIN]
			? (floors[CAL_OUTER] - floors[CAL_OUTER_PLAIN] + ARCH_CAL_NESTED / 2) /
				  ARCH_CAL_NESTED
			: 0;
	if (stable >= CAL_STABLE_ROUNDS)
		xp.counter.flags |= EXTPROF_COUNTER_F_CALIBRATION_SETTLED;
	thread_forget_self();
	err = 0;
out:
	for (uint32_t i = 0; i < CAL_N; i++)
		arch_unhook(&hooks[i]);
	xp.calibrating = false;
	xp.ndecls = 0;
	memset(xp.decls, 0, CAL_N * sizeof(xp.decls[0]));
	return err;
}
