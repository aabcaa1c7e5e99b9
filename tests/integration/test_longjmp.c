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

#define HOOKS                                                                                      \
	"function:lj_dive1,function:lj_dive2,function:lj_dive3,function:lj_leaf,"                  \
	"function:lj_sig_work,function:lj_handler"

static void longjmp_cells(const char *mode)
{
	const char *args[] = {mode, NULL};
	const struct matrix_case k = {.kase = "longjmp",
				      .args = args,
				      .hooks = HOOKS,
				      .status = 0,
				      .hooked = 6,
				      .truths = 6,
				      .abandoned = true};

	matrix_run_cells(NULL, &k, NULL, NULL);
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
