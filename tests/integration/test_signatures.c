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

#define HOOKS                                                                                      \
	"function:sum6,function:sum10,function:vavg,function:vfmt,function:swap_small,"            \
	"function:rev_large,function:fmix,function:many_dbl,function:rot90,function:ldmul,"        \
	"function:mul128,function:addps,function:add8,function:cplx"

Test(signatures, all_cells)
{
	static const struct matrix_case k = {
		.kase = "signatures", .hooks = HOOKS, .status = 0, .hooked = 14, .truths = 14};

	matrix_run_cells("signatures", &k, NULL, NULL);
}
