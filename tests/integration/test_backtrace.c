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

/* What backtrace(3) and _Unwind_Backtrace saw, with and without the shim: recorded only. */
static void backtrace_record(struct matrix_tally *t, const struct matrix_cell *c,
			     const struct matrix_pass *p, void *arg)
{
	const char *plain = p->plain.err, *hooked = p->hooked.err;

	(void)t;
	(void)arg;
	fprintf(stderr,
		"backtrace %s: backtrace(3) %lld frames without the shim, %lld with; "
		"bt_outer reached %lld/%lld, main %lld/%lld; _Unwind_Backtrace %lld "
		"frames without, %lld with, main reached %lld/%lld\n",
		c->name, harness_tagged(plain, "frames", "all"),
		harness_tagged(hooked, "frames", "all"),
		harness_tagged(plain, "reached", "bt_outer"),
		harness_tagged(hooked, "reached", "bt_outer"),
		harness_tagged(plain, "reached", "main"), harness_tagged(hooked, "reached", "main"),
		harness_tagged(plain, "frames", "unwind"),
		harness_tagged(hooked, "frames", "unwind"),
		harness_tagged(plain, "reached", "unwind-main"),
		harness_tagged(hooked, "reached", "unwind-main"));
	if (c == matrix_cells)
		fprintf(stderr, "backtrace %s under the shim:\n%s", c->name, hooked);
}

Test(backtrace, inside_hooked_function)
{
	static const struct matrix_case k = {
		.kase = "backtrace", .hooks = "function:bt_inner,function:bt_outer", .status = -1};

	matrix_run_cells("backtrace", &k, backtrace_record, NULL);
}
