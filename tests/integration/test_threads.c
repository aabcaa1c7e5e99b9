// SPDX-License-Identifier: MIT
/*
 * Matrix case "threads" (tests/targets/threads.c): 64 threads at once;
 * 2400 threads, 8 at a time (the dumps stay at the peak); fork (the child's
 * dumps are its own, from zero); exec of itself (the new image is profiled
 * again); vfork + exec and posix_spawn.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS                                                                          \
	"function:th_work,function:th_other,function:th_forker,function:th_execer,"      \
	"function:th_spawner"

struct threads_mode {
	const char *mode;
	int processes;   /* in the report */
	int max_dumps;   /* at most this many dump files */
};

static void threads_cells(const struct threads_mode *x)
{
	char test[64];
	struct matrix_tally t = {.test = test};

	snprintf(test, sizeof(test), "threads %s", x->mode);
	MATRIX_FOR_EACH_CELL(c) {
		char *exe = matrix_exe("threads", c), *dir = matrix_tmpdir("thr", c), why[512];
		const char *argv[] = {exe, x->mode, NULL};
		struct run_result plain, hooked;
		json_t *report;
		int dumps;

		matrix_run(argv, NULL, NULL, NULL, &plain);
		matrix_run(argv, HOOKS, dir, NULL, &hooked);
		MX_EXPECT(&t, c, plain.status == 0, "[%s %s] the target fails by itself: %s", test,
			  c->name, plain.out);
		matrix_expect_same(&t, c, "run", &plain, &hooked);
		MX_EXPECT(&t, c, !strcmp(harness_hook_line(hooked.err), "extprof: hooked 5/5"),
			  "[%s %s] %s", test, c->name, hooked.err);
		report = harness_report_try(dir, NULL, why, sizeof(why));
		MX_EXPECT(&t, c, report, "[%s %s] %s", test, c->name, why);
		matrix_expect_tagged(&t, c, "run", report, hooked.err, "truth", "evaluations");
		matrix_expect_tagged(&t, c, "run", report, hooked.err, "abandoned", "abandoned");
		MX_EXPECT(&t, c, report && json_is_true(json_object_get(report, "complete")),
			  "[%s %s] the report is not complete: every process exited cleanly", test,
			  c->name);
		MX_EXPECT(&t, c,
			  report && harness_int(report, "processes") == x->processes,
			  "[%s %s] %lld processes in the report, want %d", test, c->name,
			  report ? harness_int(report, "processes") : -1, x->processes);
		dumps = harness_count_files(dir, ".xpd");
		MX_EXPECT(&t, c, dumps >= x->processes && dumps <= x->max_dumps,
			  "[%s %s] %d dump files, want %d to %d", test, c->name, dumps,
			  x->processes, x->max_dumps);
		if (!strcmp(x->mode, "fork")) {
			/* the child's own dumps: its counts from zero */
			long long child = harness_tagged(hooked.err, "pid", "child");
			json_t *own = harness_report_pid(dir, (long)child, why, sizeof(why));

			MX_EXPECT(&t, c, own, "[%s %s] the child's dumps: %s", test, c->name, why);
			matrix_expect_tagged(&t, c, "child", own, hooked.err, "child-truth",
					     "evaluations");
			json_decref(own);
		}
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
		free(exe);
	}
	matrix_summary(&t);
}

Test(threads, wide_64_at_once)
{
	static const struct threads_mode x = {"wide", 1, 65};

	threads_cells(&x);
}

Test(threads, churn_2400_threads_8_at_a_time)
{
	static const struct threads_mode x = {"churn", 1, 9};

	threads_cells(&x);
}

Test(threads, fork_child_starts_from_zero)
{
	static const struct threads_mode x = {"fork", 2, 2};

	threads_cells(&x);
}

Test(threads, exec_of_itself)
{
	static const struct threads_mode x = {"exec", 2, 2};

	threads_cells(&x);
}

Test(threads, vfork_and_exec)
{
	static const struct threads_mode x = {"vfork", 2, 2};

	threads_cells(&x);
}

Test(threads, posix_spawn)
{
	static const struct threads_mode x = {"spawn", 2, 2};

	threads_cells(&x);
}
