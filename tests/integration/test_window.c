// SPDX-License-Identifier: MIT
/*
 * The window closes when its activation is abandoned: a thread that ends
 * inside the window function (pthread_exit, or a longjmp out of it) must
 * not leave the window open for the evaluations that come after, on any
 * thread (tests/targets/window_exit.c; var: counter, so every figure is
 * exact).
 */
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "harness.h"

#define N 100

/* window_exit @mode under the shim, window win_body: its report. */
static json_t *window_exit_run(const char *mode, struct run_result *r)
{
	char *dir = harness_tmpdir("window");
	char n[16], denv[4200];
	const char *argv[] = {harness_path("WINDOW_EXIT_TARGET"), mode, n, NULL};
	char shim[4200];
	const char *env[] = {shim,
			     denv,
			     "EXTPROF_HOOKS=function:we_leaf,function:win_body",
			     "EXTPROF_COUNTER=var:we_units",
			     "EXTPROF_WINDOW=win_body",
			     "EXTPROF_CALLERS=",
			     "EXTPROF_SPEC=",
			     NULL};
	json_t *rep;

	snprintf(n, sizeof(n), "%d", N);
	snprintf(shim, sizeof(shim), "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM"));
	snprintf(denv, sizeof(denv), "EXTPROF_DIR=%s", dir);
	harness_run(argv, env, r);
	cr_assert_eq(r->status, 0, "window_exit %s: status %d: %s", mode, r->status, r->err);
	rep = harness_report(dir, NULL);
	harness_rmdir(dir);
	cr_assert(rep, "no report");
	return rep;
}

static long long field(json_t *rep, const char *name, const char *key)
{
	json_t *d = harness_decl(rep, name);

	cr_assert(d, "%s is not in the report", name);
	return harness_int(d, key);
}

/* Only the N calls inside win_body are evaluations; the 3N others are outside. */
static void expect_window_closed(const char *mode)
{
	struct run_result r;
	json_t *rep = window_exit_run(mode, &r);

	cr_expect_eq(harness_truth(r.err, "we_leaf"), 4 * N);
	cr_expect_eq(field(rep, "we_leaf", "evaluations"), N,
		     "%s: we_leaf evaluations %lld, expected %d (the window stayed open?)", mode,
		     field(rep, "we_leaf", "evaluations"), N);
	cr_expect_eq(field(rep, "we_leaf", "outside"), 3 * N,
		     "%s: we_leaf outside %lld, expected %d", mode,
		     field(rep, "we_leaf", "outside"), 3 * N);
	cr_expect_eq(field(rep, "we_leaf", "per_eval"), 3);
	cr_expect_eq(field(rep, "win_body", "abandoned"), 1, "%s: win_body abandoned %lld", mode,
		     field(rep, "win_body", "abandoned"));
	json_decref(rep);
	harness_free(&r);
}

Test(window, thread_exits_inside_the_window)
{
	expect_window_closed("exit");
}

Test(window, longjmp_out_of_the_window)
{
	expect_window_closed("longjmp");
}
