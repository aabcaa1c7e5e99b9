// SPDX-License-Identifier: MIT
/*
 * The example checker under the shim: every hooked predicate's evaluations
 * equal the counts the checker keeps itself, for 1 and 4 workers; and the
 * program's output and exit status are the same with and without the shim,
 * built at -O0 and at -O2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

static char *checker_spec(void)
{
	char *spec;

	cr_assert(asprintf(&spec, "%s/examples/checker/checker.hooks",
			   harness_path("EXTPROF_SOURCE_ROOT")) > 0);
	return spec;
}

/* Run @exe -n @n -w @w, under the shim when @dir is given. */
static void checker_run(const char *exe, const char *n, const char *w, const char *dir,
			struct run_result *r)
{
	const char *argv[] = {exe, "-n", n, "-w", w, NULL};
	char *spec = checker_spec(), *preload = NULL, *dumps = NULL, *specv = NULL;

	if (dir) {
		cr_assert(asprintf(&preload, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
		cr_assert(asprintf(&dumps, "EXTPROF_DIR=%s", dir) > 0);
		cr_assert(asprintf(&specv, "EXTPROF_SPEC=%s", spec) > 0);
	}
	const char *env[] = {preload ? preload : "LD_PRELOAD=", dumps ? dumps : "EXTPROF_DIR=",
			     specv ? specv : "EXTPROF_SPEC=", "EXTPROF_COUNTER=tsc", NULL};

	harness_run(argv, env, r);
	free(preload);
	free(dumps);
	free(specv);
	free(spec);
}

/* Every "checker-truth: SYMBOL COUNT" line has a row with that many evaluations. */
static void checker_expect_truth(const char *workers)
{
	char *dir = harness_tmpdir("truth");
	struct run_result r;
	json_t *report;
	int checked = 0;

	checker_run(harness_path("CHECKER_TRUTH_O2"), "5", workers, dir, &r);
	cr_assert_eq(r.status, 0, "checker failed: %s", r.err);
	report = harness_report(dir, NULL);

	for (const char *p = r.err; (p = strstr(p, "checker-truth: ")); checked++) {
		char symbol[128];
		long long count;
		json_t *d;

		p += strlen("checker-truth: ");
		cr_assert_eq(sscanf(p, "%127s %lld", symbol, &count), 2);
		d = harness_decl(report, symbol);
		cr_assert(d, "%s is not in the report", symbol);
		cr_expect_eq(harness_int(d, "evaluations"), count,
			     "%s: %lld evaluations in the report, %lld by the checker's count",
			     symbol, harness_int(d, "evaluations"), count);
		cr_expect_eq(harness_int(d, "abandoned"), 0);
		cr_expect_eq(harness_int(d, "recursive"), 0);
	}
	cr_assert_geq(checked, 12, "too few truth lines: %s", r.err);
	cr_expect_eq(json_array_size(json_object_get(report, "declarations")), (size_t)checked,
		     "every hooked predicate has a truth count");
	cr_expect(json_is_true(json_object_get(report, "complete")));
	cr_expect_leq(harness_int(report, "workers"), atoi(workers) + 1);
	json_decref(report);
	harness_free(&r);
	harness_rmdir(dir);
}

Test(checker, evaluations_equal_truth_1_worker)
{
	checker_expect_truth("1");
}

Test(checker, evaluations_equal_truth_4_workers)
{
	checker_expect_truth("4");
}

static void checker_expect_same(const char *var)
{
	const char *exe = harness_path(var);
	char *dir = harness_tmpdir("same");
	struct run_result plain, hooked;

	checker_run(exe, "5", "3", NULL, &plain);
	checker_run(exe, "5", "3", dir, &hooked);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	cr_expect_eq(hooked.status, plain.status);
	cr_expect_str_eq(hooked.out, plain.out);
	cr_expect(strstr(hooked.err, "extprof: hooked 18/18"), "hook summary: %s", hooked.err);
	cr_expect_gt(harness_count_files(dir, ".xpd"), 0);
	harness_free(&plain);
	harness_free(&hooked);
	harness_rmdir(dir);
}

Test(checker, same_output_O0)
{
	checker_expect_same("CHECKER_PLAIN_O0");
}

Test(checker, same_output_O2)
{
	checker_expect_same("CHECKER_PLAIN_O2");
}

/* A bad exit status passes through too. */
Test(checker, same_usage_error)
{
	const char *argv[] = {harness_path("CHECKER_PLAIN_O2"), "-n", "nonsense", NULL};
	char *dir = harness_tmpdir("usage"), *dumps, *preload, *spec = checker_spec(), *specv;
	struct run_result plain, hooked;

	cr_assert(asprintf(&dumps, "EXTPROF_DIR=%s", dir) > 0);
	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	cr_assert(asprintf(&specv, "EXTPROF_SPEC=%s", spec) > 0);
	const char *env[] = {preload, dumps, specv, NULL};

	harness_run(argv, NULL, &plain);
	harness_run(argv, env, &hooked);
	cr_expect_eq(plain.status, 2);
	cr_expect_eq(hooked.status, plain.status);
	cr_expect_str_eq(hooked.out, plain.out);
	harness_free(&plain);
	harness_free(&hooked);
	free(dumps);
	free(preload);
	free(specv);
	free(spec);
	harness_rmdir(dir);
}

/* Run @exe under the shim with var:checker_work into @dir. */
static void checker_run_var(const char *exe, const char *dir)
{
	const char *argv[] = {exe, "-n", "5", "-w", "2", NULL};
	char *spec = checker_spec(), *preload, *dumps, *specv;
	struct run_result r;

	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	cr_assert(asprintf(&dumps, "EXTPROF_DIR=%s", dir) > 0);
	cr_assert(asprintf(&specv, "EXTPROF_SPEC=%s", spec) > 0);
	const char *env[] = {preload, dumps, specv, "EXTPROF_COUNTER=var:checker_work", NULL};

	harness_run(argv, env, &r);
	cr_assert_eq(r.status, 0, "%s: %s", exe, r.err);
	harness_free(&r);
	free(preload);
	free(dumps);
	free(specv);
	free(spec);
}

/*
 * extprof diff on two runs of the example, the second built with a slower
 * type_ok: it names type_ok (+100 % per-eval: 2(N+1) units for N+1), and
 * --fail-above fails the command; without it the command succeeds.
 */
Test(checker, diff_names_the_slower_predicate)
{
	char *base = harness_tmpdir("diff-base"), *slow = harness_tmpdir("diff-new");
	const char *bin = harness_path("EXTPROF_BIN");
	struct run_result plain, gated;
	const char *line;

	checker_run_var(harness_path("CHECKER_PLAIN_O2"), base);
	checker_run_var(harness_path("CHECKER_SLOW_O2"), slow);

	const char *argv[] = {bin, "diff", base, slow, NULL};
	const char *argv_gate[] = {bin, "diff", "--fail-above", "10", base, slow, NULL};

	harness_run(argv, NULL, &plain);
	harness_run(argv_gate, NULL, &gated);
	cr_expect_eq(plain.status, 0, "diff: %s", plain.err);
	cr_expect_eq(gated.status, 1, "diff --fail-above 10: status %d: %s", gated.status,
		     gated.err);
	line = strstr(plain.out, "type_ok");
	cr_assert(line, "diff does not name type_ok: %s", plain.out);
	cr_expect(strstr(line, "+100.0%") && strstr(line, "+100.0%") < strchr(line, '\n'),
		  "type_ok's line does not say +100.0%%: %s", plain.out);
	/* the others did not change */
	cr_expect(!strstr(plain.out, "consistent") ||
			  !strstr(strstr(plain.out, "consistent"), "+100.0%") ||
			  strstr(strstr(plain.out, "consistent"), "+100.0%") >
				  strchr(strstr(plain.out, "consistent"), '\n'),
		  "consistent changed: %s", plain.out);
	harness_free(&plain);
	harness_free(&gated);
	harness_rmdir(base);
	harness_rmdir(slow);
}
