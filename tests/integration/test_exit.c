// SPDX-License-Identifier: MIT
/*
 * Matrix case "exit" (tests/targets/exit.c): the process ends from inside
 * hooked functions by return, exit, _exit, abort or SIGKILL.  The exit
 * status or signal is the unhooked one; the dump left behind holds the
 * evaluations made so far and says whether the process finished cleanly.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS "function:xt_counted,function:xt_outer,function:xt_inner"

struct exit_mode {
	const char *mode;
	int status;    /* without the shim */
	bool complete; /* the dumps say the process finished cleanly */
	bool abandons; /* the open activations are counted as abandoned */
};

static const struct exit_mode modes[] = {
	{"return", 0, true, true},
	{"exit", 3, true, true},
	/* the shim sees _exit (preload/host/exec.c): its live dumps are whole, marked EXIT_NOW */
	{"_exit", 4, true, true},
	{"abort", 128 + SIGABRT, false, false},
	{"kill", 128 + SIGKILL, false, false},
};

static void exit_cells(const char *test, bool abandons_always)
{
	struct matrix_tally t = {.test = test};

	MATRIX_FOR_EACH_CELL(c)
	{
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			const struct exit_mode *x = &modes[m];
			const char *args[] = {x->mode, NULL};
			const struct matrix_case k = {.kase = "exit",
						      .args = args,
						      .hooks = HOOKS,
						      .status = x->status,
						      .abandoned = x->abandons || abandons_always};
			struct matrix_pass p;
			json_t *complete;

			matrix_pass_run(&t, c, &k, x->mode, &p);
			/* xt_counted's ten, whatever the end */
			MX_EXPECT(&t, c,
				  harness_decl_int(p.report, "xt_counted", "evaluations") == 10,
				  "[exit %s] %s: xt_counted has %lld evaluations", c->name, x->mode,
				  harness_decl_int(p.report, "xt_counted", "evaluations"));
			complete = p.report ? json_object_get(p.report, "complete") : NULL;
			MX_EXPECT(&t, c,
				  json_is_boolean(complete) &&
					  json_is_true(complete) == x->complete,
				  "[exit %s] %s: complete is %s", c->name, x->mode,
				  json_is_true(complete) ? "true" : "false");
			matrix_pass_free(&p);
		}
	}
	matrix_summary(&t);
}

Test(exit, all_cells)
{
	exit_cells("exit", false);
}

/*
 * extprof counts a call still in progress when the process ends as
 * abandoned, however it ends.  shim gap: after _exit, abort or SIGKILL the
 * open activations are not counted (nothing of the shim runs at the end, and
 * the dump does not say which activations were open).
 */
Test(exit, open_activations_abandoned_however_it_ends)
{
	exit_cells("exit abandoned", true);
}
