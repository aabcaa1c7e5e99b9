// SPDX-License-Identifier: MIT
/*
 * Matrix case "exceptions" (tests/targets/exceptions.cpp): C++ exceptions
 * thrown through hooked frames behave exactly as without the shim, and
 * the activations they leave are "abandoned".
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS                                                                          \
	"function:ex_thrower,function:ex_middle,function:ex_catcher,function:ex_inside,"  \
	"function:ex_rethrow"

static void exceptions_cells(const char *test, const char *hooks, int nhooks, bool counts)
{
	struct matrix_tally t = {.test = test};
	char line[64];

	snprintf(line, sizeof(line), "extprof: hooked %d/%d", nhooks, nhooks);
	MATRIX_FOR_EACH_CELL(c) {
		char *exe = matrix_exe("exceptions", c), *dir = matrix_tmpdir("ex", c), why[512];
		const char *argv[] = {exe, NULL};
		struct run_result plain, hooked;
		json_t *report;

		matrix_run(argv, NULL, NULL, NULL, &plain);
		matrix_run(argv, hooks, dir, NULL, &hooked);
		MX_EXPECT(&t, c, plain.status == 0, "[%s %s] the target fails by itself", test,
			  c->name);
		matrix_expect_same(&t, c, "run", &plain, &hooked);
		MX_EXPECT(&t, c, !strcmp(harness_hook_line(hooked.err), line), "[%s %s] %s", test,
			  c->name, hooked.err);
		if (counts) {
			report = harness_report_try(dir, NULL, why, sizeof(why));
			MX_EXPECT(&t, c, report, "[%s %s] %s", test, c->name, why);
			matrix_expect_tagged(&t, c, "run", report, hooked.err, "truth",
					     "evaluations");
			matrix_expect_tagged(&t, c, "run", report, hooked.err, "abandoned",
					     "abandoned");
			json_decref(report);
		}
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
		free(exe);
	}
	matrix_summary(&t);
}

/* Thrown and caught inside one hooked function: no hooked frame is crossed. */
Test(exceptions, caught_inside_hooked_function)
{
	exceptions_cells("exceptions inside", "function:ex_inside", 1, false);
}

/* Thrown through hooked frames (ex_thrower, ex_middle, ex_rethrow). */
Test(exceptions, thrown_through_hooked_frames)
{
	exceptions_cells("exceptions through", HOOKS, 5, true);
}
