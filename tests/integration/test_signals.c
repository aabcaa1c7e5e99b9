// SPDX-License-Identifier: MIT
/*
 * Matrix case "signals" (tests/targets/signals.c): signal handlers calling
 * hooked functions while another hooked function is active on the same
 * thread, on the thread's stack and on a sigaltstack; raised at a known
 * point, or by a 20 us interval timer anywhere (in the hook's own code too);
 * and a thread's first evaluation interrupted by a handler's.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS                                                                                      \
	"function:sg_work,function:sg_in_handler,function:sg_tick,function:sg_alarm,"              \
	"function:sg_first,function:sg_first_handler"

/* Functions never called have no row, or a row of zeros; none abandoned. */
static void signals_check(struct matrix_tally *t, const struct matrix_cell *c,
			  const struct matrix_pass *p, void *arg)
{
	long long threads, handled, counted;

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
	threads = harness_tagged(p->hooked.err, "threads", "sg_first");
	if (threads < 0)
		return;
	/* one worker a thread: taken twice, the first stays the ended thread's */
	MX_EXPECT(t, c, p->report && harness_int(p->report, "threads") == threads,
		  "[%s %s] %lld threads took a worker, %lld threads by the program's count",
		  t->test, c->name, p->report ? harness_int(p->report, "threads") : -1, threads);
	/* a handler's call while the thread takes its worker passes uncounted */
	handled = harness_tagged(p->hooked.err, "handled", "sg_first_handler");
	counted = harness_decl_int(p->report, "sg_first_handler", "evaluations");
	MX_EXPECT(t, c, counted <= handled,
		  "[%s %s] sg_first_handler: %lld evaluations, %lld calls by the program's count",
		  t->test, c->name, counted, handled);
}

static void signals_cells(const char *mode)
{
	const char *args[] = {mode, NULL};
	const struct matrix_case k = {.kase = "signals",
				      .args = args,
				      .hooks = HOOKS,
				      .status = 0,
				      .hooked = 6,
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

/* shim defects: a handler's hooked call just before the thread's first evaluation was busy took
 * a second worker (the first left owned by the ended thread, read at exit: more threads than the
 * program's in the report, or SIGSEGV), or a slow path at the top of the shim's stack the first
 * was on; with steps, a handler that interrupted the code cache's dispatcher had the thread's
 * stack taken for its own, and the interrupted activation popped (SIGSEGV at its return) */
Test(signals, first_evaluation_interrupted)
{
	signals_cells("first");
}
