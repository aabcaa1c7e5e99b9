// SPDX-License-Identifier: MIT
/*
 * Matrix case "backtrace" (tests/targets/backtrace.c): backtrace(3) inside
 * a hooked function.  Only the program's behaviour is required (same
 * status, same stdout, counts right); what the trace shows under the shim
 * is recorded on stderr ("backtrace CELL: N frames without the shim, M
 * with; ...") for docs/hooking.md, not asserted.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

Test(backtrace, inside_hooked_function)
{
	struct matrix_tally t = {.test = "backtrace"};

	MATRIX_FOR_EACH_CELL(c) {
		char *exe = matrix_exe("backtrace", c), *dir = matrix_tmpdir("bt", c), why[512];
		const char *argv[] = {exe, NULL};
		struct run_result plain, hooked;
		json_t *report;

		matrix_run(argv, NULL, NULL, NULL, &plain);
		matrix_run(argv, "function:bt_inner,function:bt_outer", dir, NULL, &hooked);
		matrix_expect_same(&t, c, "run", &plain, &hooked);
		report = harness_report_try(dir, NULL, why, sizeof(why));
		MX_EXPECT(&t, c, report, "[backtrace %s] %s", c->name, why);
		matrix_expect_tagged(&t, c, "run", report, hooked.err, "truth", "evaluations");
		fprintf(stderr,
			"backtrace %s: backtrace(3) %lld frames without the shim, %lld with; "
			"bt_outer reached %lld/%lld, main %lld/%lld; _Unwind_Backtrace %lld "
			"frames without, %lld with, main reached %lld/%lld\n",
			c->name, harness_tagged(plain.err, "frames", "all"),
			harness_tagged(hooked.err, "frames", "all"),
			harness_tagged(plain.err, "reached", "bt_outer"),
			harness_tagged(hooked.err, "reached", "bt_outer"),
			harness_tagged(plain.err, "reached", "main"),
			harness_tagged(hooked.err, "reached", "main"),
			harness_tagged(plain.err, "frames", "unwind"),
			harness_tagged(hooked.err, "frames", "unwind"),
			harness_tagged(plain.err, "reached", "unwind-main"),
			harness_tagged(hooked.err, "reached", "unwind-main"));
		if (c == matrix_cells)
			fprintf(stderr, "backtrace %s under the shim:\n%s", c->name, hooked.err);
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
		free(exe);
	}
	matrix_summary(&t);
}
