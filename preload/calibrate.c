// SPDX-License-Identifier: MIT
/*
 * calibrate: what the hook itself costs, in the counter's unit, measured
 * once per process at start-up through the very same stub, thunks and
 * counter as every declaration.
 *
 *   calibration      the floor of an empty function's delta: the part of the
 *                    hook that lands between the two counter reads.  The
 *                    analyzer subtracts it, once, after merging.
 *   nested_overhead  what a hooked call costs its caller beyond an unhooked
 *                    one: floor(outer calling a hooked empty function) less
 *                    floor(outer calling it directly).  The shim subtracts it
 *                    from a delta for each hooked evaluation nested inside.
 *   resolution       the smallest step the counter was seen to take.
 *
 * Calibration runs before any declaration is registered, on declaration
 * indices 0..2 and a worker in anonymous memory, both given back after.
 */
#include <errno.h>
#include <string.h>

#include "arch.h"
#include "counter_read.h"
#include "shim.h"

enum { CAL_EMPTY, CAL_OUTER_HOOKED, CAL_OUTER_PLAIN, CAL_N };

#define CAL_ROUND	  2000
#define CAL_MAX_ROUNDS	  400
#define CAL_STABLE_ROUNDS 8

static void (*volatile cal_empty_stub)(void);
static void (*volatile cal_empty_plain)(void);

__attribute__((noinline)) static void cal_empty(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) static void cal_outer_hooked(void)
{
	cal_empty_stub();
}

__attribute__((noinline)) static void cal_outer_plain(void)
{
	cal_empty_plain();
}

static uint64_t cal_resolution(void)
{
	uint64_t best = UINT64_MAX, prev = xp_counter_read();

	if (xp.counter.kind == EXTPROF_COUNTER_VAR)
		return 1;
	for (int i = 0; i < 200000 && best > 1; i++) {
		uint64_t now = xp_counter_read();

		if (now > prev && now - prev < best)
			best = now - prev;
		prev = now;
	}
	return best == UINT64_MAX ? 1 : best;
}

static const char *const cal_names[CAL_N] = {"empty", "outer_hooked", "outer_plain"};

int calibrate_hook(void)
{
	void (*volatile stubs[CAL_N])(void);
	static void (*const fns[CAL_N])(void) = {cal_empty, cal_outer_hooked, cal_outer_plain};
	uint64_t last[CAL_N] = {0}, floors[CAL_N];
	struct xp_worker *w;
	int stable = 0, rounds, err;

	for (int i = 0; i < CAL_N; i++) {
		void *entry, *stub;

		err = arch_make_stub((uint64_t)fns[i], (uint32_t)i, &entry, &stub);
		if (err)
			return err;
		memset(&xp.decls[i], 0, sizeof(xp.decls[i]));
		strcpy(xp.decls[i].kind, "calibration");
		strcpy(xp.decls[i].symbol, cal_names[i]);
		strcpy(xp.decls[i].object, "libextprof.so");
		xp.decls[i].stub = stub;
		stubs[i] = (void (*)(void))entry;
	}
	cal_empty_stub = stubs[CAL_EMPTY];
	cal_empty_plain = cal_empty;
	xp.ndecls = CAL_N;
	xp.calibrating = true;

	w = worker_acquire(&xp_self);
	if (!w) {
		err = -ENOMEM;
		goto out;
	}
	for (rounds = 0; rounds < CAL_MAX_ROUNDS && stable < CAL_STABLE_ROUNDS; rounds++) {
		bool same = true;

		for (int k = 0; k < CAL_ROUND; k++)
			for (int i = 0; i < CAL_N; i++)
				stubs[i]();
		for (int i = 0; i < CAL_N; i++) {
			floors[i] = w->map.decls[i].floor;
			same &= floors[i] == last[i] && w->map.decls[i].floor_hits >= 2;
			last[i] = floors[i];
		}
		stable = same ? stable + 1 : 0;
	}
	xp.meta.calibration = floors[CAL_EMPTY];
	xp.meta.nested_overhead = floors[CAL_OUTER_HOOKED] > floors[CAL_OUTER_PLAIN]
					  ? floors[CAL_OUTER_HOOKED] - floors[CAL_OUTER_PLAIN]
					  : 0;
	xp.meta.resolution = cal_resolution();
	if (stable >= CAL_STABLE_ROUNDS)
		xp.counter.flags |= EXTPROF_COUNTER_F_CALIBRATION_SETTLED;
	worker_forget_self();
	err = 0;
out:
	xp.calibrating = false;
	xp.ndecls = 0;
	memset(xp.decls, 0, CAL_N * sizeof(xp.decls[0]));
	return err;
}
