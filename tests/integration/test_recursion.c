// SPDX-License-Identifier: MIT
/*
 * Matrix case "recursion" (tests/targets/recursion.c): direct and mutual
 * recursion, and 80000 nested activations.  Evaluations are the outermost
 * activations; the re-entries while active are "recursive" = total - outer.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

static const char *const funcs[] = {"fib", "is_even", "is_odd", "down"};

Test(recursion, all_cells)
{
	struct matrix_tally t = {.test = "recursion"};

	MATRIX_FOR_EACH_CELL(c) {
		char *exe = matrix_exe("recursion", c), *dir = matrix_tmpdir("rec", c), why[512];
		const char *argv[] = {exe, NULL};
		struct run_result plain, hooked;
		json_t *report;

		matrix_run(argv, NULL, NULL, NULL, &plain);
		matrix_run(argv, "function:fib,function:is_even,function:is_odd,function:down", dir,
			   NULL, &hooked);
		MX_EXPECT(&t, c, plain.status == 0, "[recursion %s] the target fails by itself",
			  c->name);
		matrix_expect_same(&t, c, "run", &plain, &hooked);
		MX_EXPECT(&t, c, !strcmp(harness_hook_line(hooked.err), "extprof: hooked 4/4"),
			  "[recursion %s] %s", c->name, hooked.err);
		report = harness_report_try(dir, NULL, why, sizeof(why));
		MX_EXPECT(&t, c, report, "[recursion %s] %s", c->name, why);
		matrix_expect_tagged(&t, c, "run", report, hooked.err, "truth", "evaluations");
		for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
			long long outer = harness_tagged(hooked.err, "truth", funcs[i]);
			long long total = harness_tagged(hooked.err, "total", funcs[i]);
			long long rec = harness_decl_int(report, funcs[i], "recursive");

			MX_EXPECT(&t, c, outer > 0 && rec == total - outer,
				  "[recursion %s] %s: recursive %lld, total %lld - outer %lld",
				  c->name, funcs[i], rec, total, outer);
			MX_EXPECT(&t, c, harness_decl_int(report, funcs[i], "abandoned") == 0,
				  "[recursion %s] %s abandoned", c->name, funcs[i]);
		}
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
		free(exe);
	}
	matrix_summary(&t);
}
