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

#define HOOKS                                                                                      \
	"function:ex_thrower,function:ex_middle,function:ex_catcher,function:ex_inside,"           \
	"function:ex_rethrow"

static void exceptions_cells(const char *test, const char *hooks, int nhooks, bool counts)
{
	const struct matrix_case k = {.kase = "exceptions",
				      .hooks = hooks,
				      .status = 0,
				      .hooked = nhooks,
				      .no_report = !counts,
				      .truths = counts ? 0 : -1,
				      .abandoned = counts};

	matrix_run_cells(test, &k, NULL, NULL);
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
