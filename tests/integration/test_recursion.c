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

/* Evaluations are the outer activations; the rest are recursive, none abandoned. */
static void recursion_check(struct matrix_tally *t, const struct matrix_cell *c,
			    const struct matrix_pass *p, void *arg)
{
	(void)arg;
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		long long outer = harness_tagged(p->hooked.err, "truth", funcs[i]);
		long long total = harness_tagged(p->hooked.err, "total", funcs[i]);
		long long rec = harness_decl_int(p->report, funcs[i], "recursive");

		MX_EXPECT(t, c, outer > 0 && rec == total - outer,
			  "[recursion %s] %s: recursive %lld, total %lld - outer %lld", c->name,
			  funcs[i], rec, total, outer);
		MX_EXPECT(t, c, harness_decl_int(p->report, funcs[i], "abandoned") == 0,
			  "[recursion %s] %s abandoned", c->name, funcs[i]);
	}
}

Test(recursion, all_cells)
{
	static const struct matrix_case k = {
		.kase = "recursion",
		.hooks = "function:fib,function:is_even,function:is_odd,function:down",
		.status = 0,
		.hooked = 4};

	matrix_run_cells("recursion", &k, recursion_check, NULL);
}
