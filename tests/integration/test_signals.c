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

static void signals_cells(const char *mode)
{
	char test[64];
	struct matrix_tally t = {.test = test};

	snprintf(test, sizeof(test), "signals %s", mode);
	MATRIX_FOR_EACH_CELL(c) {
		char *exe = matrix_exe("signals", c), *dir = matrix_tmpdir("sig", c), why[512];
		const char *argv[] = {exe, mode, NULL};
		struct run_result plain, hooked;
		json_t *report;

		matrix_run(argv, NULL, NULL, NULL, &plain);
		matrix_run(argv, HOOKS, dir, NULL, &hooked);
		MX_EXPECT(&t, c, plain.status == 0, "[%s %s] the target fails by itself", test,
			  c->name);
		matrix_expect_same(&t, c, "run", &plain, &hooked);
		MX_EXPECT(&t, c, !strcmp(harness_hook_line(hooked.err), "extprof: hooked 4/4"),
			  "[%s %s] %s", test, c->name, hooked.err);
		report = harness_report_try(dir, NULL, why, sizeof(why));
		MX_EXPECT(&t, c, report, "[%s %s] %s", test, c->name, why);
		/* functions never called have no row, or a row of zeros */
		for (const char *p = hooked.err; (p = strstr(p, "checker-truth: ")); p++) {
			char symbol[64];
			long long want, got;

			if (sscanf(p + 15, "%63s %lld", symbol, &want) != 2)
				continue;
			got = harness_decl_int(report, symbol, "evaluations");
			MX_EXPECT(&t, c, got == want || (want == 0 && got == -1),
				  "[%s %s] %s: %lld evaluations in the report, %lld by the "
				  "program's count",
				  test, c->name, symbol, got, want);
			MX_EXPECT(&t, c, harness_decl_int(report, symbol, "abandoned") <= 0,
				  "[%s %s] %s: abandoned %lld", test, c->name, symbol,
				  harness_decl_int(report, symbol, "abandoned"));
		}
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
		free(exe);
	}
	matrix_summary(&t);
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
