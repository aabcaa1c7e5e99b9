// SPDX-License-Identifier: MIT
/*
 * Matrix case "longjmp" (tests/targets/longjmp.c): longjmp and siglongjmp
 * out of hooked functions.  The program behaves as without the shim; the
 * activations left are "abandoned"; the same functions called normally
 * afterwards are evaluations again.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS                                                                          \
	"function:lj_dive1,function:lj_dive2,function:lj_dive3,function:lj_leaf,"       \
	"function:lj_sig_work,function:lj_handler"

static void longjmp_cells(const char *mode)
{
	char test[64];
	struct matrix_tally t = {.test = test};

	snprintf(test, sizeof(test), "longjmp %s", mode);
	MATRIX_FOR_EACH_CELL(c) {
		char *exe = matrix_exe("longjmp", c), *dir = matrix_tmpdir("lj", c), why[512];
		const char *argv[] = {exe, mode, NULL};
		struct run_result plain, hooked;
		json_t *report;

		matrix_run(argv, NULL, NULL, NULL, &plain);
		matrix_run(argv, HOOKS, dir, NULL, &hooked);
		MX_EXPECT(&t, c, plain.status == 0, "[%s %s] the target fails by itself", test,
			  c->name);
		matrix_expect_same(&t, c, "run", &plain, &hooked);
		MX_EXPECT(&t, c, !strcmp(harness_hook_line(hooked.err), "extprof: hooked 6/6"),
			  "[%s %s] %s", test, c->name, hooked.err);
		report = harness_report_try(dir, NULL, why, sizeof(why));
		MX_EXPECT(&t, c, report, "[%s %s] %s", test, c->name, why);
		MX_EXPECT(&t, c,
			  matrix_expect_tagged(&t, c, "run", report, hooked.err, "truth",
					       "evaluations") == 6,
			  "[%s %s] truth lines: %s", test, c->name, hooked.err);
		matrix_expect_tagged(&t, c, "run", report, hooked.err, "abandoned", "abandoned");
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
		free(exe);
	}
	matrix_summary(&t);
}

/* The normal calls after each longjmp come from main, above what was left. */
Test(longjmp, all_cells)
{
	longjmp_cells("plain");
}

/* The normal calls after each longjmp come from a frame deeper than what was left. */
/* shim defect: activations left by longjmp are reaped only by a call from a shallower
 * frame; until then their functions stay active and their calls count as recursive */
Test(longjmp, deeper_call_after_longjmp)
{
	longjmp_cells("deeper");
}

/* siglongjmp out of a handler running on a sigaltstack. */
/* shim defect: activations on a sigaltstack are never reaped after a siglongjmp out of
 * the handler; their functions stay active (calls count as recursive) and pile up */
Test(longjmp, siglongjmp_from_sigaltstack)
{
	longjmp_cells("altstack");
}
