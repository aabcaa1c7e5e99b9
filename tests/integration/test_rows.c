// SPDX-License-Identifier: MIT
/*
 * Dumps sized to what is called: a program whose 4
 * threads call a few of 2,049 hooked functions (tests/targets/many.c).
 * Each worker's live dump holds space for the rows of the functions its
 * thread called, not for all those hooked; the compact dumps at exit
 * likewise; the counts are exact (var:) and p50/p99 come from the
 * histograms; every hooked function is in the report.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "dump_space.h"
#include "extprof/dump.h"
#include "harness.h"

#define HOOKED_FNS 2049 /* many_0000 ... many_3777, many_vary */
#define THREADS	   4

/* A live dump: within its bound, and far below a row for each function hooked. */
static void expect_live(const char *path, const struct dump_space *s, void *arg)
{
	(void)arg;
	cr_assert(s, "%s is no dump", path);
	cr_expect(!s->compact, "%s: compact before the exit", path);
	cr_expect_eq(s->ndecls, HOOKED_FNS);
	/* row 0, and the 5 functions its thread called: many_0000, its 3, many_vary */
	cr_expect_eq(s->rows, 1 + 5, "%s: %llu rows", path, s->rows);
	cr_expect_leq(s->alloc, dump_space_bound(s), "%s: %llu bytes on disk for %llu rows", path,
		      s->alloc, s->rows);
	cr_expect_lt(s->alloc * 20, (unsigned long long)HOOKED_FNS * EXTPROF_HIST_ROW_BYTES,
		     "%s: %llu bytes on disk, not far below a row for each of %d functions", path,
		     s->alloc, HOOKED_FNS);
	fprintf(stderr, "rows: live %s: %llu rows, %llu bytes on disk (bound %llu)\n", path,
		s->rows, s->alloc, dump_space_bound(s));
}

/* A compact dump: no room kept, its size the declarations', their names' and the buckets'. */
static void expect_compact(const char *path, const struct dump_space *s, void *arg)
{
	(void)arg;
	cr_assert(s, "%s is no dump", path);
	cr_expect(s->compact, "%s: not compact after the exit", path);
	cr_expect_leq(s->alloc, s->size + 4096, "%s", path);
	cr_expect_leq(s->size, s->ndecls * 256 + s->sparse * 16 + 65536, "%s: %llu bytes", path,
		      s->size);
}

Test(rows, few_of_many_from_4_threads, .timeout = 120)
{
	char *dir = harness_tmpdir("rows"), *env_dir, *env_shim, *line;
	const char *argv[] = {harness_path("MANY_TARGET"), "4", "hold", NULL};
	struct spawned sp;
	struct run_result r;
	json_t *report, *vary;

	cr_assert(asprintf(&env_dir, "EXTPROF_DIR=%s", dir) > 0);
	cr_assert(asprintf(&env_shim, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	harness_spawn(argv,
		      (const char *const[]){env_shim, env_dir, "EXTPROF_HOOKS=function:many_*",
					    "EXTPROF_COUNTER=var:many_work",
					    "EXTPROF_SPEC=", "EXTPROF_LOG=stderr", NULL},
		      &sp);
	while ((line = harness_read_line(&sp, 60000)) && strcmp(line, "ready"))
		free(line);
	cr_assert(line, "the target never said it was ready");
	free(line);
	/* the threads are done, the process holds: its dumps are live */
	cr_expect_eq(dump_space_each(dir, expect_live, NULL), THREADS, "a worker per thread");
	kill(sp.pid, SIGUSR1);
	cr_assert_eq(harness_reap(&sp, &r), 0, "%s", r.err);
	cr_expect(strstr(r.err, "extprof: hooked 2,049/2,049"), "%s", r.err);
	cr_expect_eq(dump_space_each(dir, expect_compact, NULL), THREADS);

	report = harness_report(dir, NULL);
	cr_assert(report);
	cr_expect(json_is_true(json_object_get(report, "complete")));
	cr_expect_eq(json_array_size(json_object_get(report, "declarations")), HOOKED_FNS,
		     "every hooked function is in the report");
	/* exact counts and floors: many_NNNN does (NNNN % 7) + 1 units */
	for (const char *p = r.err; (p = strstr(p, "checker-truth: many_")); p++) {
		char name[32];
		long long n;
		unsigned idx = 0;

		cr_assert_eq(sscanf(p, "checker-truth: %31s %lld", name, &n), 2);
		cr_expect_eq(harness_decl_int(report, name, "evaluations"), n, "%s", name);
		if (strcmp(name, "many_vary") && sscanf(name, "many_%o", &idx) == 1)
			cr_expect_eq(harness_decl_int(report, name, "per_eval"), idx % 7 + 1, "%s",
				     name);
	}
	cr_expect_eq(harness_decl_int(report, "many_0000", "evaluations"), 500 * THREADS);
	cr_expect_eq(harness_decl_int(report, "many_0777", "evaluations"), 0, "never called");
	/* many_vary(k) for k = 1..100 in each thread: the histograms' percentiles */
	vary = harness_decl(report, "many_vary");
	cr_assert(vary);
	cr_expect_eq(harness_int(vary, "evaluations"), 100 * THREADS);
	cr_expect_eq(harness_int(vary, "per_eval"), 1);
	cr_expect_eq(harness_int(vary, "p50"), 50);
	cr_expect_eq(harness_int(vary, "p99"), 99);
	cr_expect_eq(harness_int(vary, "histogram_lost"), 0);
	cr_expect_eq(harness_int(vary, "observed"), 5050 * THREADS);
	json_decref(report);
	harness_free(&r);
	free(env_dir);
	free(env_shim);
	harness_rmdir(dir);
}
