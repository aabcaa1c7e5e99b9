// SPDX-License-Identifier: MIT
/*
 * The steps counter's code cache (the translation engine, the default)
 * through the real shim, against ground truths nobody here computed:
 * callgrind's inclusive instruction totals for the example checker's 18
 * predicates and for zlib's crc32 and adler32 (lazily bound, Debian's
 * libz), the trap engine stepping every evaluation of the same runs; a
 * caller reads the same with its callee hooked or not (C, Lua's
 * lua_pcallk over luaV_execute, SQLite's sqlite3_step); what the program
 * does is as without the shim (a SIGSEGV handler reading its fault, exec,
 * C++ exceptions in and out of a counted function); code that cannot be
 * translated (pcre2's JIT under grep -P, code the program rewrites, a stack
 * switch) runs natively, and its evaluations are marked not whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const checker_hooks =
	"invariant:type_ok,invariant:consistent,invariant:commit_justified,terminal:is_terminal,"
	"action_property:decision_is_stable,guard:can_*,transition:do_*";

static char *setting(const char *name, const char *value)
{
	char *s;

	cr_assert(asprintf(&s, "%s=%s", name, value ? value : "") > 0);
	return s;
}

/*
 * Run @argv under steps with @engine (NULL: the default); its report, its
 * output in @r.  An engine named is a comparison of the two: the trap
 * engine holds back a sample during which the loader bound a symbol lazily
 * (docs/measurement.md), the code cache counts that call, so both runs bind
 * every symbol at start (LD_BIND_NOW).
 */
static json_t *steps_run(const char *const argv[], const char *hooks, const char *engine,
			 struct run_result *r)
{
	char *dir = harness_tmpdir("xlate");
	char *env[] = {setting("LD_PRELOAD", harness_path("EXTPROF_SHIM")),
		       setting("EXTPROF_DIR", dir), setting("EXTPROF_HOOKS", hooks),
		       setting("EXTPROF_COUNTER", "steps"), setting("EXTPROF_STEP_ENGINE", engine),
		       /* the trap engine steps every evaluation */
		       setting("EXTPROF_STEP_FIRST", "0"), setting("EXTPROF_STEP_EVERY", "1"),
		       setting("EXTPROF_SPEC", NULL), setting("EXTPROF_CALLERS", NULL),
		       setting("EXTPROF_WINDOW", NULL), setting("LD_BIND_NOW", engine ? "1" : NULL),
		       NULL};
	json_t *report;

	harness_run(argv, (const char *const *)env, r);
	cr_assert(strstr(r->err, "extprof: hooked"), "%s: %s", argv[0], r->err);
	report = harness_report(dir, NULL);
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	harness_rmdir(dir);
	return report;
}

static void expect_eq(json_t *report, const char *name, const char *key, long long want)
{
	long long got = harness_decl_int(report, name, key);

	cr_expect_eq(got, want, "%s: %s is %lld, expected %lld", name, key, got, want);
}

/* Every declaration evaluated in @report: every evaluation counted whole. */
static size_t expect_all_whole(json_t *report)
{
	json_t *d;
	size_t i, n = 0;

	json_array_foreach(json_object_get(report, "declarations"), i, d)
	{
		if (!harness_int(d, "evaluations"))
			continue;
		n++;
		cr_expect_eq(harness_int(d, "not_whole"), 0, "%s: %lld not counted whole",
			     json_string_value(json_object_get(d, "name")),
			     harness_int(d, "not_whole"));
	}
	return n;
}

/* The figures of @name in @a (the code cache) and @b (the trap engine): the same. */
static void expect_same_figures(json_t *a, json_t *b, const char *name)
{
	static const char *const keys[] = {"evaluations", "per_eval",  "p50",	   "p99",
					   "observed",	  "recursive", "abandoned"};

	for (size_t i = 0; i < NELEM(keys); i++) {
		long long x = harness_decl_int(a, name, keys[i]),
			  y = harness_decl_int(b, name, keys[i]);

		cr_expect_eq(x, y, "%s: %s %lld by the code cache, %lld by the trap engine", name,
			     keys[i], x, y);
	}
}

/* Every declaration evaluated in @a, with the same figures in @b. */
static void expect_same_report(json_t *a, json_t *b)
{
	json_t *d;
	size_t i;

	json_array_foreach(json_object_get(a, "declarations"), i,
			   d) if (harness_int(d, "evaluations"))
		expect_same_figures(a, b, json_string_value(json_object_get(d, "name")));
}

/* Run @argv without the shim: its output. */
static void plain_run(const char *const argv[], struct run_result *r)
{
	harness_run(argv, NULL, r);
	cr_assert_eq(r->status, 0, "%s: status %d: %s", argv[0], r->status, r->err);
}

/* ---- callgrind -------------------------------------------------------------------------- */

/* Run @argv under callgrind (@opt: one more option, or NULL): its output file, in @tmp. */
static char *callgrind_run(const char *const argv[], const char *opt, const char *tmp)
{
	static int n;
	char *out, *outopt;
	const char *vargv[32] = {"valgrind", "--tool=callgrind", NULL};
	struct run_result r;
	size_t k = 2;

	cr_assert(asprintf(&out, "%s/callgrind.out.%d", tmp, n++) > 0);
	cr_assert(asprintf(&outopt, "--callgrind-out-file=%s", out) > 0);
	vargv[k++] = outopt;
	if (opt)
		vargv[k++] = opt;
	for (size_t i = 0; argv[i] && k < NELEM(vargv) - 1; i++)
		vargv[k++] = argv[i];
	vargv[k] = NULL;
	harness_run(vargv, NULL, &r);
	cr_assert_eq(r.status, 0, "valgrind: %d: %s", r.status, r.err);
	harness_free(&r);
	free(outopt);
	return out;
}

/*
 * callgrind_annotate's inclusive total of function @name in @file (a line
 * "1,234 (5.6%)  file.c:NAME [object]"), or -1.
 */
static long long callgrind_inclusive(const char *file, const char *name)
{
	const char *argv[] = {"callgrind_annotate", "--inclusive=yes", "--threshold=100", file,
			      NULL};
	struct run_result r;
	char *want, *line, *save = NULL;
	long long v = -1;

	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "callgrind_annotate: %s", r.err);
	cr_assert(asprintf(&want, ":%s [", name) > 0);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char digits[64];
		size_t k = 0;

		if (!strstr(line, want) || strstr(line, "=>"))
			continue;
		for (const char *p = line; *p && *p != '(' && k < sizeof(digits) - 1; p++)
			if (*p >= '0' && *p <= '9')
				digits[k++] = *p;
		digits[k] = '\0';
		v = atoll(digits);
		break;
	}
	free(want);
	harness_free(&r);
	return v;
}

TestSuite(translate, .timeout = 600);

/*
 * The example checker with all 18 predicates hooked: every evaluation
 * counted, whole; each predicate's observed is callgrind's inclusive total
 * of it; commit_justified's per-eval is its cheap case.
 */
Test(translate, checker_observed_equals_callgrind)
{
	const char *argv[] = {
		harness_path("CHECKER_PLAIN_O2"), "-n", "8", "-m", "5000", "-w", "1", NULL};
	char *tmp = harness_tmpdir("callgrind"), *cg = callgrind_run(argv, NULL, tmp);
	struct run_result plain, r;
	json_t *report, *d;
	size_t i, n = 0;

	plain_run(argv, &plain);
	report = steps_run(argv, checker_hooks, NULL, &r);
	cr_expect_str_eq(r.out, plain.out);
	cr_expect_eq(expect_all_whole(report), 16);
	json_array_foreach(json_object_get(report, "declarations"), i, d)
	{
		const char *name = json_string_value(json_object_get(d, "name"));

		if (!harness_int(d, "evaluations"))
			continue;
		n++;
		expect_eq(report, name, "observed", callgrind_inclusive(cg, name));
	}
	cr_expect_eq(n, 16, "%zu predicates evaluated", n);
	/* most states need the expensive case; its least is the cheap one */
	cr_expect_lt(harness_decl_int(report, "commit_justified", "per_eval") * 10,
		     harness_decl_int(report, "commit_justified", "p99"));
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
	free(cg);
	harness_rmdir(tmp);
}

/* A smaller run stepped through every evaluation by the trap engine: the same figures. */
Test(translate, checker_per_eval_equals_the_trap_engine)
{
	const char *argv[] = {
		harness_path("CHECKER_PLAIN_O2"), "-n", "4", "-m", "300", "-w", "1", NULL};
	struct run_result r, rt;
	json_t *xl = steps_run(argv, checker_hooks, "translate", &r);
	json_t *trap = steps_run(argv, checker_hooks, "trap", &rt);

	cr_expect_str_eq(r.out, rt.out);
	cr_expect_gt(expect_all_whole(xl), 10);
	expect_same_report(xl, trap);
	json_decref(xl);
	json_decref(trap);
	harness_free(&r);
	harness_free(&rt);
}

/* @caller's per_eval and observed, hooked alone and with each of @callees hooked too. */
static void expect_caller_alone(const char *const argv[], const char *caller,
				const char *const callees[], size_t ncallees)
{
	struct run_result r;
	json_t *alone = steps_run(argv, caller, NULL, &r);
	char *name = strdup(strchr(caller, ':') + 1);
	long long pe;

	/* "function:NAME@OBJECT" */
	*strchrnul(name, '@') = '\0';
	pe = harness_decl_int(alone, name, "per_eval");
	cr_expect_gt(pe, 0, "%s: per_eval %lld", name, pe);
	expect_all_whole(alone);
	harness_free(&r);
	for (size_t i = 0; i < ncallees; i++) {
		char *hooks;
		json_t *both;

		cr_assert(asprintf(&hooks, "%s,%s", caller, callees[i]) > 0);
		both = steps_run(argv, hooks, NULL, &r);
		expect_all_whole(both);
		cr_expect_eq(harness_decl_int(both, name, "per_eval"), pe,
			     "%s: per_eval %lld alone, %lld with %s", name, pe,
			     harness_decl_int(both, name, "per_eval"), callees[i]);
		cr_expect_eq(harness_decl_int(both, name, "observed"),
			     harness_decl_int(alone, name, "observed"), "%s: observed with %s",
			     name, callees[i]);
		json_decref(both);
		harness_free(&r);
		free(hooks);
	}
	json_decref(alone);
	free(name);
}

Test(translate, a_caller_reads_the_same_with_its_callee_hooked)
{
	const char *c_argv[] = {harness_path("STEPS_TARGET"), "-n", "20", "c", NULL};
	const char *lua_argv[] = {harness_path("LUACALLS_TARGET"), "-n", "20", NULL};
	const char *sql_argv[] = {harness_path("SQLCALLS_TARGET"), "-n", "3", NULL};
	const char *c_callees[] = {"function:st_c_mix"};
	const char *lua_callees[] = {"function:luaV_execute@liblua5.4.so.0"};
	const char *sql_callees[] = {"function:sq_twice",
				     "function:sqlite3VdbeExec@libsqlite3.so.0"};

	expect_caller_alone(c_argv, "function:st_c_sum", c_callees, NELEM(c_callees));
	expect_caller_alone(lua_argv, "function:lua_pcallk@liblua5.4.so.0", lua_callees,
			    NELEM(lua_callees));
	expect_caller_alone(sql_argv, "function:sqlite3_step@libsqlite3.so.0", sql_callees,
			    NELEM(sql_callees));
}

/* A SIGSEGV handler sees the program's own pc and fault address; the count is exact. */
Test(translate, a_sigsegv_handler_sees_native_addresses)
{
	const char *argv[] = {harness_path("XLATE_TARGET"), "-n", "3", "segv", NULL};
	struct run_result plain, r;
	json_t *report;

	plain_run(argv, &plain);
	cr_expect(strstr(plain.out, "SIGSEGV at page+12, pc xt_touch+10"), "%s", plain.out);
	report = steps_run(argv, "function:xt_*", NULL, &r);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, plain.out);
	expect_all_whole(report);
	/* endbr64, mov, mov, mov (faults, then runs again), add, ret */
	expect_eq(report, "xt_touch", "per_eval", 6);
	expect_eq(report, "xt_touch", "observed", 18);
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
}

/* exec from a counted function (in a fork child): output and status as without the shim. */
Test(translate, exec_from_a_counted_function)
{
	const char *argv[] = {harness_path("XLATE_TARGET"), "exec", NULL};
	struct run_result plain, r;
	json_t *report;

	plain_run(argv, &plain);
	report = steps_run(argv, "function:xt_exec", NULL, &r);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, plain.out);
	expect_eq(report, "xt_exec", "evaluations", 1);
	expect_eq(report, "xt_exec", "not_whole", 0);
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
}

/*
 * C++ exceptions caught inside a counted function and leaving one: output as
 * without the shim, and the trap engine's figures, evaluation for evaluation.
 */
Test(translate, cxx_exceptions_as_the_trap_engine)
{
	const char *argv[] = {harness_path("XLATE_THROW_TARGET"), "6", NULL};
	struct run_result plain, r, rt;
	json_t *xl, *trap;

	/* the unwinder's work depends on where things are: the same layout in both */
	personality(ADDR_NO_RANDOMIZE);
	plain_run(argv, &plain);
	xl = steps_run(argv, "function:xt_*", "translate", &r);
	trap = steps_run(argv, "function:xt_*", "trap", &rt);
	cr_expect_str_eq(r.out, plain.out);
	cr_expect_str_eq(rt.out, plain.out);
	expect_all_whole(xl);
	expect_eq(xl, "xt_escape", "abandoned", 3);
	expect_eq(xl, "xt_thrower", "abandoned", 6);
	expect_same_report(xl, trap);
	json_decref(xl);
	json_decref(trap);
	harness_free(&plain);
	harness_free(&r);
	harness_free(&rt);
}

/* Lines of numbers for grep to read, in a file. */
static char *numbers_file(const char *dir)
{
	char *path;
	FILE *f;

	cr_assert(asprintf(&path, "%s/numbers", dir) > 0);
	f = fopen(path, "w");
	cr_assert(f);
	for (int i = 1; i <= 3000; i++)
		fprintf(f, "%d\n", i);
	fclose(f);
	return path;
}

/* pcre2's JIT (anonymous executable memory) runs natively: grep's output unchanged, marked. */
Test(translate, grep_pcre2_jit_is_marked)
{
	char *tmp = harness_tmpdir("grep"), *file = numbers_file(tmp);
	const char *argv[] = {"grep", "-P", "^(1|2)\\d*7$", file, NULL};
	struct run_result plain, r;
	long long evals, not_whole;
	json_t *report;

	plain_run(argv, &plain);
	report = steps_run(argv, "function:pcre2_match_8@libpcre2-8.so.0", NULL, &r);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, plain.out);
	evals = harness_decl_int(report, "pcre2_match_8", "evaluations");
	not_whole = harness_decl_int(report, "pcre2_match_8", "not_whole");
	cr_expect_gt(evals, 3000);
	cr_expect_eq(not_whole, evals, "%lld of %lld evaluations not whole", not_whole, evals);
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
	free(file);
	harness_rmdir(tmp);
}

/* Code the program rewrites is not translated again: output unchanged, the rest marked. */
Test(translate, self_modifying_code_is_marked)
{
	const char *argv[] = {harness_path("XLATE_TARGET"), "-n", "3", "selfmod", NULL};
	struct run_result plain, r;
	json_t *report;

	plain_run(argv, &plain);
	report = steps_run(argv, "function:xt_selfmod,function:xt_patched", NULL, &r);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, plain.out);
	expect_eq(report, "xt_selfmod", "evaluations", 3);
	expect_eq(report, "xt_selfmod", "not_whole", 3);
	/* its first call, before the program wrote it: endbr64, 5 nops, mov, ret */
	expect_eq(report, "xt_patched", "per_eval", 8);
	cr_expect_gt(harness_decl_int(report, "xt_patched", "not_whole"), 0);
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
}

/* swapcontext switches stacks: natively, the evaluation marked. */
Test(translate, a_stack_switch_is_marked)
{
	const char *argv[] = {harness_path("XLATE_TARGET"), "-n", "3", "swap", NULL};
	struct run_result plain, r;
	json_t *report;

	plain_run(argv, &plain);
	report = steps_run(argv, "function:xt_swap", NULL, &r);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, plain.out);
	expect_eq(report, "xt_swap", "evaluations", 3);
	expect_eq(report, "xt_swap", "not_whole", 3);
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
}

/* extprof run --step-engine: the engine chosen, and a wrong one refused in one line. */
Test(translate, run_step_engine_option)
{
	char *dir = harness_tmpdir("engine");
	const char *argv[] = {harness_path("EXTPROF_BIN"),
			      "run",
			      "-o",
			      dir,
			      "--counter",
			      "steps",
			      "--step-engine",
			      "trap",
			      "--format",
			      "json",
			      "-H",
			      "function:st_loop",
			      "--",
			      harness_path("STEPS_TARGET"),
			      "-n",
			      "3",
			      "loop",
			      NULL};
	const char *bad[] = {
		harness_path("EXTPROF_BIN"), "run", "--step-engine", "fast", "--", "true", NULL};
	struct run_result r;
	json_t *report, *c;

	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	report = harness_report(dir, NULL);
	c = json_object_get(report, "counter");
	cr_expect_str_eq(json_string_value(json_object_get(c, "engine")), "trap");
	json_decref(report);
	harness_free(&r);
	harness_run(bad, NULL, &r);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "--step-engine 'fast': expected translate or trap"), "%s", r.err);
	harness_free(&r);
	harness_rmdir(dir);
}
