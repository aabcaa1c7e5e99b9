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

#define HOOKS                                                                                      \
	"function:th_work,function:th_other,function:th_forker,function:th_execer,"                \
	"function:th_spawner"

struct threads_mode {
	const char *mode;
	int processes; /* in the report */
	int max_dumps; /* at most this many dump files */
};

/* Every process complete, each with dumps of its own, as many as the mode makes. */
static void threads_check(struct matrix_tally *t, const struct matrix_cell *c,
			  const struct matrix_pass *p, void *arg)
{
	const struct threads_mode *x = arg;
	json_t *report = p->report;
	char why[512];
	int dumps;

	MX_EXPECT(t, c, report && json_is_true(json_object_get(report, "complete")),
		  "[%s %s] the report is not complete: every process exited cleanly", t->test,
		  c->name);
	MX_EXPECT(t, c, report && harness_int(report, "processes") == x->processes,
		  "[%s %s] %lld processes in the report, want %d", t->test, c->name,
		  report ? harness_int(report, "processes") : -1, x->processes);
	dumps = harness_count_files(p->dir, ".xpd");
	MX_EXPECT(t, c, dumps >= x->processes && dumps <= x->max_dumps,
		  "[%s %s] %d dump files, want %d to %d", t->test, c->name, dumps, x->processes,
		  x->max_dumps);
	if (!strcmp(x->mode, "fork")) {
		/* the child's own dumps: its counts from zero */
		long long child = harness_tagged(p->hooked.err, "pid", "child");
		json_t *own = harness_report_pid(p->dir, (long)child, why, sizeof(why));

		MX_EXPECT(t, c, own, "[%s %s] the child's dumps: %s", t->test, c->name, why);
		matrix_expect_tagged(t, c, "child", own, p->hooked.err, "child-truth",
				     "evaluations");
		json_decref(own);
	}
}

static void threads_cells(const struct threads_mode *x)
{
	const char *args[] = {x->mode, NULL};
	const struct matrix_case k = {.kase = "threads",
				      .args = args,
				      .hooks = HOOKS,
				      .status = 0,
				      .hooked = 5,
				      .abandoned = true};

	matrix_run_cells(NULL, &k, threads_check, (void *)x);
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
