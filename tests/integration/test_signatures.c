// SPDX-License-Identifier: MIT
/*
 * Matrix case "signatures" (tests/targets/signatures.c): every way of
 * passing arguments and returning values survives the hook, in every cell.
 * The target checks its own results; here its output and exit status must
 * equal an unhooked run's, and every function's evaluations its own count.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS                                                                                \
	"function:sum6,function:sum10,function:vavg,function:vfmt,function:swap_small,"      \
	"function:rev_large,function:fmix,function:many_dbl,function:rot90,function:ldmul,"   \
	"function:mul128,function:addps,function:add8,function:cplx"

Test(signatures, all_cells)
{
	struct matrix_tally t = {.test = "signatures"};

	MATRIX_FOR_EACH_CELL(c) {
		char *exe = matrix_exe("signatures", c), *dir = matrix_tmpdir("sig", c), why[512];
		const char *argv[] = {exe, NULL};
		struct run_result plain, hooked;
		json_t *report;

		matrix_run(argv, NULL, NULL, NULL, &plain);
		matrix_run(argv, HOOKS, dir, NULL, &hooked);
		MX_EXPECT(&t, c, plain.status == 0, "[signatures %s] the target fails by itself: %s",
			  c->name, plain.out);
		matrix_expect_same(&t, c, "run", &plain, &hooked);
		MX_EXPECT(&t, c, !strcmp(harness_hook_line(hooked.err), "extprof: hooked 14/14"),
			  "[signatures %s] %s", c->name, hooked.err);
		report = harness_report_try(dir, NULL, why, sizeof(why));
		MX_EXPECT(&t, c, report, "[signatures %s] %s", c->name, why);
		MX_EXPECT(&t, c,
			  matrix_expect_tagged(&t, c, "run", report, hooked.err, "truth",
					       "evaluations") == 14,
			  "[signatures %s] not 14 truth lines: %s", c->name, hooked.err);
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
		free(exe);
	}
	matrix_summary(&t);
}
