// SPDX-License-Identifier: MIT
/*
 * Matrix case "signals" (tests/targets/signals.c): signal handlers calling
 * hooked functions while another hooked function is active on the same
 * thread, on the thread's stack and on a sigaltstack; raised at a known
 * point, or by a 20 us interval timer anywhere (in the hook's own code too).
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS "function:sg_work,function:sg_in_handler,function:sg_tick,function:sg_alarm"

/* Functions never called have no row, or a row of zeros; none abandoned. */
static void signals_check(struct matrix_tally *t, const struct matrix_cell *c,
			  const struct matrix_pass *p, void *arg)
{
	(void)arg;
	for (const char *s = p->hooked.err; (s = strstr(s, "checker-truth: ")); s++) {
		char symbol[64];
		long long want, got;

		if (sscanf(s + 15, "%63s %lld", symbol, &want) != 2)
			continue;
		got = harness_decl_int(p->report, symbol, "evaluations");
		MX_EXPECT(t, c, got == want || (want == 0 && got == -1),
			  "[%s %s] %s: %lld evaluations in the report, %lld by the program's count",
			  t->test, c->name, symbol, got, want);
		MX_EXPECT(t, c, harness_decl_int(p->report, symbol, "abandoned") <= 0,
			  "[%s %s] %s: abandoned %lld", t->test, c->name, symbol,
			  harness_decl_int(p->report, symbol, "abandoned"));
	}
}

static void signals_cells(const char *mode)
{
	const char *args[] = {mode, NULL};
	const struct matrix_case k = {.kase = "signals",
				      .args = args,
				      .hooks = HOOKS,
				      .status = 0,
				      .hooked = 4,
				      .truths = -1};

	matrix_run_cells(NULL, &k, signals_check, NULL);
}

Test(signals, raised_inside_hooked_function)
{
	signals_cells("raise");
}

/* shim defect: a handler's hooked call between a push's frame writes and its depth++
 * overwrites the frame; the interrupted call then returns to the handler's R1 (SIGSEGV) */
Test(signals, interval_timer)
{
	signals_cells("timer");
}

/* shim defect: the same push race as interval_timer (a sigaltstack changes nothing) */
Test(signals, interval_timer_on_sigaltstack)
{
	signals_cells("timer-alt");
}
