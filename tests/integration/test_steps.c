// SPDX-License-Identifier: MIT
/*
 * The steps counter through the real shim, with both of its engines: the
 * code cache (translate, the default: every evaluation) and single-stepping
 * (trap: a sample, the reference): functions of exactly known instruction
 * counts (tests/targets/steps.c, in assembly) read exactly those counts, in
 * one thread and in four, with an interval timer's handler interrupting
 * them; both engines give the same figures on the same evaluations; a C
 * function reads what callgrind counts for it; the figures are the same run
 * after run, beside two busy processes too; what a counted function does
 * (threads, fork, raise, longjmp, int3 to the program's own SIGTRAP handler,
 * sigprocmask) is as without the shim; a tracer makes the trap engine
 * refuse, not the code cache; the example checker's every predicate reads a
 * deterministic, non-zero per-eval, and the doubling test classes its
 * invariants.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Per call: tests/targets/steps.c's table. p99 < 0: the same as per_eval. */
struct known {
	const char *name;
	long long per_eval;
	long long p99;
};

static const struct known known[] = {
	{"st_straight", 7, -1}, {"st_loop", 33, -1}, /* st_loop(10) */
	{"st_outer", 38, -1},			     /* st_outer(3): 10 x 3 + 8 */
	{"st_branchy", 4, 5},	{"st_callfirst", 7, -1}, {"st_leaf", 3, -1},
	{"st_rep", 6, -1}, /* rep movsb of 1000 bytes: one instruction */
	{"st_sys", 4, -1},	{"st_flags", 9, -1},	 {"st_tick", 3, -1},
};

static const char *target(void)
{
	return harness_path("STEPS_TARGET");
}

static char *setting(const char *name, const char *value)
{
	char *s;

	cr_assert(asprintf(&s, "%s=%s", name, value ? value : "") > 0);
	return s;
}

#define TRANSLATE "translate"
#define TRAP	  "trap"

/*
 * The environment of a run under the shim with steps, by @engine;
 * NULL-terminated, free with env_free().  @bind_now: every symbol bound at
 * start (LD_BIND_NOW), else as the program was built.
 */
static char **steps_env(const char *dir, const char *hooks, const char *engine, const char *first,
			const char *every, bool bind_now)
{
	char **env = calloc(12, sizeof(*env));

	cr_assert(env);
	env[0] = setting("LD_PRELOAD", harness_path("EXTPROF_SHIM"));
	env[1] = setting("EXTPROF_DIR", dir);
	env[2] = setting("EXTPROF_HOOKS", hooks);
	env[3] = setting("EXTPROF_COUNTER", "steps");
	env[4] = setting("EXTPROF_STEP_FIRST", first);
	env[5] = setting("EXTPROF_STEP_EVERY", every);
	env[6] = setting("EXTPROF_SPEC", NULL);
	env[7] = setting("EXTPROF_CALLERS", NULL);
	env[8] = setting("EXTPROF_WINDOW", NULL);
	env[9] = setting("EXTPROF_STEP_ENGINE", engine);
	env[10] = setting("LD_BIND_NOW", bind_now ? "1" : NULL);
	return env;
}

static void env_free(char **env)
{
	for (int i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

/* Run @argv under steps, by @engine (@bind_now: steps_env); its report (and output, in @r). */
static json_t *steps_run_bound(const char *const argv[], const char *hooks, const char *engine,
			       const char *first, const char *every, bool bind_now,
			       struct run_result *r)
{
	char *dir = harness_tmpdir("steps");
	char **env = steps_env(dir, hooks, engine, first, every, bind_now);
	json_t *report;

	harness_run(argv, (const char *const *)env, r);
	cr_assert_eq(r->status, 0, "%s: status %d: %s", argv[0], r->status, r->err);
	cr_assert(strstr(r->err, "extprof: hooked"), "%s", r->err);
	report = harness_report(dir, NULL);
	env_free(env);
	harness_rmdir(dir);
	return report;
}

/* Run @argv under steps, by @engine, bound as it was built; its report (its output in @r). */
static json_t *steps_run(const char *const argv[], const char *hooks, const char *engine,
			 const char *first, const char *every, struct run_result *r)
{
	return steps_run_bound(argv, hooks, engine, first, every, false, r);
}

/* One integer of a declaration's row (-1 without the row), checked for equality. */
static void expect_eq(json_t *report, const char *name, const char *key, long long want)
{
	long long got = harness_decl_int(report, name, key);

	cr_expect_eq(got, want, "%s: %s is %lld, expected %lld", name, key, got, want);
}

/*
 * The head of a steps report: deterministic, nothing of the hook; the trap
 * engine's sampled (no run total), the code cache's every evaluation (a run
 * total).
 */
static void expect_steps_head(json_t *report, const char *engine)
{
	json_t *c = json_object_get(report, "counter");
	bool trap = !strcmp(engine, TRAP);

	cr_expect_str_eq(json_string_value(json_object_get(c, "name")), "steps");
	cr_expect_str_eq(json_string_value(json_object_get(c, "unit")), "instructions");
	cr_expect_str_eq(json_string_value(json_object_get(c, "engine")), engine);
	cr_expect(json_is_true(json_object_get(c, "deterministic")));
	cr_expect_eq(json_is_true(json_object_get(c, "sampled")), trap);
	cr_expect_eq(json_integer_value(json_object_get(report, "calibration")), 0);
	if (trap)
		cr_expect_eq(json_integer_value(json_object_get(report, "run_total")), 0);
	else
		cr_expect_gt(json_integer_value(json_object_get(report, "run_total")), 0);
}

/*
 * Every function of the known table: its exact count, and every evaluation
 * counted; by the code cache, every one of them whole.
 */
static void expect_known(json_t *report, const char *err, const char *engine)
{
	bool trap = !strcmp(engine, TRAP);

	expect_steps_head(report, engine);
	for (size_t i = 0; i < NELEM(known); i++) {
		const struct known *k = &known[i];
		long long evals = harness_truth(err, k->name), stepped;

		cr_assert(evals > 0, "%s: no calls: %s", k->name, err);
		expect_eq(report, k->name, "evaluations", evals);
		if (trap) {
			stepped = harness_decl_int(report, k->name, "stepped");
			/* a tick's handler is stepped only if the function it interrupts is not */
			if (!strcmp(k->name, "st_tick") && !stepped)
				continue;
			cr_expect(stepped > 0 && stepped <= evals, "%s: %lld stepped of %lld",
				  k->name, stepped, evals);
		} else if (strcmp(k->name, "st_tick")) {
			/* but a tick that interrupts the dispatcher, not translated: not
			 * whole, and observed (the whole ones' mean times all) 3 a tick */
			expect_eq(report, k->name, "not_whole", 0);
		}
		expect_eq(report, k->name, "per_eval", k->per_eval);
		expect_eq(report, k->name, "p99", k->p99 < 0 ? k->per_eval : k->p99);
		if (k->p99 < 0)
			expect_eq(report, k->name, "observed", k->per_eval * evals);
	}
}

static json_t *known_run(const char *threads, const char *engine, struct run_result *r)
{
	/* the code cache runs more rounds: more ticks land in translated code */
	const char *argv[] = {target(), "-n",	 strcmp(engine, TRAP) ? "4000" : "40",
			      "-t",	threads, "-i",
			      "200",	"known", NULL};
	json_t *report = steps_run(argv, "function:st_*", engine, "4", "7", r);

	/* the program never sees the trap flag in the flags it pushes */
	cr_expect(strstr(r->out, "the trap flag seen 0 times"), "%s", r->out);
	/* the timer did interrupt: its handler's function was called */
	cr_expect(harness_truth(r->err, "st_tick") > 0, "no tick: %s", r->err);
	return report;
}

TestSuite(steps, .timeout = 240);

Test(steps, known_counts_one_thread_under_a_timer)
{
	const char *engines[] = {TRANSLATE, TRAP};

	for (size_t e = 0; e < NELEM(engines); e++) {
		struct run_result r;
		json_t *report = known_run("0", engines[e], &r);

		expect_known(report, r.err, engines[e]);
		json_decref(report);
		harness_free(&r);
	}
}

Test(steps, known_counts_four_threads_under_a_timer)
{
	const char *engines[] = {TRANSLATE, TRAP};

	for (size_t e = 0; e < NELEM(engines); e++) {
		struct run_result r;
		json_t *report = known_run("4", engines[e], &r);

		expect_known(report, r.err, engines[e]);
		cr_expect_eq(harness_int(report, "workers"), 4);
		json_decref(report);
		harness_free(&r);
	}
}

/* per_eval, p50, p99 and observed of @name in @a and @b: the same. */
static void expect_same_figures(json_t *a, json_t *b, const char *name)
{
	static const char *const keys[] = {"evaluations", "per_eval", "p50", "p99", "observed"};

	for (size_t i = 0; i < NELEM(keys); i++) {
		long long x = harness_decl_int(a, name, keys[i]),
			  y = harness_decl_int(b, name, keys[i]);

		cr_expect_eq(x, y, "%s: %s %lld by the code cache, %lld by the trap engine", name,
			     keys[i], x, y);
	}
}

/*
 * Stepping every evaluation, down to the last: the counts do not change, and
 * they are the code cache's, figure by figure.
 */
Test(steps, every_evaluation_stepped)
{
	const char *argv[] = {target(), "-n", "5", "-i", "200", "known", NULL};
	struct run_result r, rx;
	json_t *report = steps_run(argv, "function:st_*", TRAP, "0", "1", &r);
	json_t *xl = steps_run(argv, "function:st_*", TRANSLATE, NULL, NULL, &rx);

	expect_known(report, r.err, TRAP);
	expect_known(xl, rx.err, TRANSLATE);
	for (size_t i = 0; i < NELEM(known); i++) {
		if (!strcmp(known[i].name, "st_tick"))
			continue;
		expect_eq(report, known[i].name, "stepped", harness_truth(r.err, known[i].name));
		expect_same_figures(xl, report, known[i].name);
	}
	json_decref(report);
	json_decref(xl);
	harness_free(&r);
	harness_free(&rx);
}

/*
 * callgrind's instructions in @fn, its callees included (--toggle-collect),
 * over the run of @prog (at most 6 words, NULL-terminated), its symbols
 * bound as it was built.
 */
static long long callgrind_inclusive(const char *fn, const char *const prog[])
{
	char *tmp = harness_tmpdir("callgrind"), *out, *opt, *toggle, line[256];
	const char *argv[12] = {"valgrind", "--tool=callgrind"};
	const char *env[] = {"LD_BIND_NOW=", "LD_PRELOAD=", NULL};
	struct run_result r;
	long long summary = -1;
	size_t n = 4;
	FILE *f;

	cr_assert(asprintf(&out, "%s/callgrind.out", tmp) > 0);
	cr_assert(asprintf(&opt, "--callgrind-out-file=%s", out) > 0);
	cr_assert(asprintf(&toggle, "--toggle-collect=%s", fn) > 0);
	argv[2] = opt;
	argv[3] = toggle;
	for (size_t i = 0; prog[i] && n + 1 < NELEM(argv); i++)
		argv[n++] = prog[i];
	harness_run(argv, env, &r);
	cr_assert_eq(r.status, 0, "valgrind: %d: %s", r.status, r.err);
	f = fopen(out, "r");
	cr_assert(f, "no %s", out);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "summary: %lld", &summary) == 1)
			break;
	fclose(f);
	cr_assert(summary > 0, "no summary in %s", out);
	harness_free(&r);
	free(toggle);
	free(opt);
	free(out);
	harness_rmdir(tmp);
	return summary;
}

/* Inclusive instructions per call of st_c_sum by callgrind, over @calls calls. */
static long long callgrind_per_call(const char *calls)
{
	const char *prog[] = {target(), "-n", calls, "c", NULL};

	return callgrind_inclusive("st_c_sum", prog) / atoll(calls);
}

Test(steps, c_function_equals_callgrind)
{
	const char *argv[] = {target(), "-n", "20", "c", NULL};
	const char *engines[] = {TRANSLATE, TRAP};
	long long want = callgrind_per_call("20");

	cr_expect(want > 1000, "callgrind: %lld instructions a call", want);
	for (size_t e = 0; e < NELEM(engines); e++) {
		struct run_result r;
		json_t *report = steps_run(argv, "function:st_c_sum", engines[e], "3", "4", &r);

		expect_eq(report, "st_c_sum", "evaluations", 20);
		expect_eq(report, "st_c_sum", "per_eval", want);
		expect_eq(report, "st_c_sum", "p99", want);
		expect_eq(report, "st_c_sum", "observed", want * 20);
		json_decref(report);
		harness_free(&r);
	}
}

/* callgrind's instructions in @fn, its callees included, over `zcalls FN BYTES CALLS`. */
static long long callgrind_zcalls(const char *fn, const char *bytes, const char *calls)
{
	const char *prog[] = {harness_path("ZCALLS_TARGET"), fn, bytes, calls, NULL};

	return callgrind_inclusive(fn, prog);
}

/*
 * Debian's libz bound lazily (tests/targets/zcalls.c, LD_BIND_NOW unset):
 * the first call of crc32 binds crc32_z through libz's PLT, some 600
 * instructions of the dynamic loader's, once in the run; adler32
 * adler32_z.  That call is not the sample: per-eval is callgrind's count
 * per call once bound (the difference between 200 calls and 100, over
 * 100), over 1, 2 and 4 KB; a function called once keeps its one sample.
 * The code cache counts every call: observed is callgrind's whole count,
 * the binding in it, where the trap engine's is per-eval times the calls.
 * The loader's binding entry (_dl_runtime_resolve_xsave, _xsavec) follows
 * the CPU, which valgrind's differs from: pinned in both runs.
 */
Test(steps, the_call_that_binds_lazily_is_not_the_sample)
{
	static const char *const fns[] = {"crc32", "adler32"};
	static const char *const sizes[] = {"1024", "2048", "4096"};
	static const char *const engines[] = {TRANSLATE, TRAP};

	cr_assert_eq(setenv("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-XSAVEC", 1), 0);
	for (size_t i = 0; i < NELEM(fns); i++) {
		char *hooks;

		cr_assert(asprintf(&hooks, "function:%s@libz.so.1", fns[i]) > 0);
		for (size_t k = 0; k < NELEM(sizes); k++) {
			const char *argv[] = {harness_path("ZCALLS_TARGET"), fns[i], sizes[k],
					      "100", NULL};
			const char *once[] = {harness_path("ZCALLS_TARGET"), fns[i], sizes[k], "1",
					      NULL};
			long long c100 = callgrind_zcalls(fns[i], sizes[k], "100"),
				  c200 = callgrind_zcalls(fns[i], sizes[k], "200"), want;

			cr_assert_eq((c200 - c100) % 100, 0, "%s %s: not the same count every call",
				     fns[i], sizes[k]);
			want = (c200 - c100) / 100;
			cr_expect(c100 > want * 100, "%s %s: no binding seen by callgrind", fns[i],
				  sizes[k]);
			for (size_t e = 0; e < NELEM(engines); e++) {
				struct run_result r;
				json_t *report = steps_run(argv, hooks, engines[e], NULL, NULL, &r);

				expect_eq(report, fns[i], "evaluations", 100);
				expect_eq(report, fns[i], "per_eval", want);
				expect_eq(report, fns[i], "observed", e ? want * 100 : c100);
				if (e)
					expect_eq(report, fns[i], "p99", want);
				else
					expect_eq(report, fns[i], "not_whole", 0);
				json_decref(report);
				harness_free(&r);
				/* called once: that call, binding and all, is all there is */
				report = steps_run(once, hooks, engines[e], NULL, NULL, &r);
				expect_eq(report, fns[i], "evaluations", 1);
				cr_expect_gt(harness_decl_int(report, fns[i], "per_eval"), want,
					     "%s %s %s", engines[e], fns[i], sizes[k]);
				json_decref(report);
				harness_free(&r);
			}
		}
		free(hooks);
	}
	unsetenv("GLIBC_TUNABLES");
}

/* Two processes spinning on the CPUs until killed. */
static void busy_start(pid_t pids[2])
{
	for (int i = 0; i < 2; i++) {
		pids[i] = fork();
		cr_assert(pids[i] >= 0);
		if (!pids[i]) {
			for (volatile unsigned long x = 0;; x++)
				;
		}
	}
}

static void busy_stop(pid_t pids[2])
{
	for (int i = 0; i < 2; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/* An integer of @d, -1 when it has none (stepped and not_whole are one engine's each). */
static long long int_or_none(json_t *d, const char *key)
{
	json_t *v = json_object_get(d, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* per_eval, p50, p99, observed, stepped and not_whole of every declaration, as one string. */
static char *figures(json_t *report)
{
	json_t *decls = json_object_get(report, "declarations"), *d;
	char *s = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&s, &len);

	cr_assert(f);
	json_array_foreach(decls, i, d)
	{
		/* how many ticks there were, and which were stepped, is the clock's */
		if (!strcmp(json_string_value(json_object_get(d, "name")), "st_tick"))
			continue;
		fprintf(f, "%s %lld %lld %lld %lld %lld %lld %lld\n",
			json_string_value(json_object_get(d, "name")),
			harness_int(d, "evaluations"), harness_int(d, "per_eval"),
			harness_int(d, "p50"), harness_int(d, "p99"), harness_int(d, "observed"),
			int_or_none(d, "stepped"), int_or_none(d, "not_whole"));
	}
	fclose(f);
	return s;
}

/* The figures of both engines' runs, as one string. */
static char *both_engines(const char *const argv[], const char *const cargv[])
{
	const char *engines[] = {TRANSLATE, TRAP};
	char *all = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&all, &len);

	cr_assert(f);
	for (size_t e = 0; e < NELEM(engines); e++) {
		struct run_result r, rc;
		json_t *a = steps_run(argv, "function:st_*", engines[e], "3", "5", &r);
		json_t *b = steps_run(cargv, "function:st_c_sum", engines[e], "3", "5", &rc);
		char *fa = figures(a), *fb = figures(b);

		fprintf(f, "%s\n%s%s", engines[e], fa, fb);
		free(fa);
		free(fb);
		json_decref(a);
		json_decref(b);
		harness_free(&r);
		harness_free(&rc);
	}
	fclose(f);
	return all;
}

Test(steps, same_figures_three_runs_one_beside_busy_loops)
{
	const char *argv[] = {target(), "-n", "30", "-i", "300", "known", NULL};
	const char *cargv[] = {target(), "-n", "10", "c", NULL};
	char *first = NULL;

	for (int run = 0; run < 3; run++) {
		pid_t busy[2];
		char *all;

		if (run == 2)
			busy_start(busy);
		all = both_engines(argv, cargv);
		if (run == 2)
			busy_stop(busy);
		if (!first)
			first = all;
		else
			cr_expect_str_eq(all, first, "run %d differs", run + 1);
		if (all != first)
			free(all);
	}
	free(first);
}

/*
 * What a counted function does is as without the shim, with either engine,
 * and both count the same, but for pthread_create (its join waits as long
 * as the thread takes) and the vDSO's clock (below).
 */
Test(steps, edge_cases_as_without_the_shim)
{
	const char *argv[] = {target(), "-n", "3", "edge", NULL};
	static const char *const names[] = {"st_e_create", "st_e_fork", "st_e_raise", "st_e_int3",
					    "st_e_mask",   "st_e_rec",	"st_e_vdso"};
	const char *engines[] = {TRANSLATE, TRAP};
	struct run_result plain;
	json_t *reports[2];

	harness_run(argv, NULL, &plain);
	cr_assert_eq(plain.status, 0);
	for (size_t e = 0; e < NELEM(engines); e++) {
		struct run_result r;
		/* trap: every evaluation stepped, each of them meets the case, and is a
		 * sample (none binds a symbol lazily, the_call_that_binds_...) */
		json_t *report =
			steps_run_bound(argv, "function:st_e_*", engines[e], "0", "1", true, &r);

		cr_expect_str_eq(r.out, plain.out, "%s", engines[e]);
		cr_expect(strstr(r.out, "SIGTRAP blocked at the end: 0"), "%s", r.out);
		for (size_t i = 0; i < NELEM(names); i++) {
			expect_eq(report, names[i], "evaluations", 3);
			expect_eq(report, names[i], e ? "stepped" : "not_whole", e ? 3 : 0);
			cr_expect(harness_decl_int(report, names[i], "per_eval") > 0, "%s",
				  names[i]);
		}
		/* mov, int3, add, ret */
		expect_eq(report, "st_e_int3", "per_eval", 4);
		expect_eq(report, "st_e_rec", "recursive", 15);
		expect_eq(report, "st_e_jump", "evaluations", 0);
		expect_eq(report, "st_e_jump", "abandoned", 3);
		reports[e] = report;
		harness_free(&r);
	}
	/* the vDSO's sequence lock retries when the kernel writes its data meanwhile:
	 * more often while single-stepping, so its least count only */
	for (size_t i = 1; i < NELEM(names); i++)
		if (strcmp(names[i], "st_e_vdso"))
			expect_same_figures(reports[0], reports[1], names[i]);
	expect_eq(reports[0], "st_e_vdso", "per_eval",
		  harness_decl_int(reports[1], "st_e_vdso", "per_eval"));
	json_decref(reports[0]);
	json_decref(reports[1]);
	harness_free(&plain);
}

/* Run @argv under steps, by @engine, as the tracee of this process: its stderr. */
static char *traced_run(const char *const argv[], const char *dir, const char *engine)
{
	char **env = steps_env(dir, "function:st_*", engine, NULL, NULL, false);
	char *tmp = harness_tmpdir("traced"), *errpath, *err = NULL;
	size_t len = 0;
	int status, sig = 0;
	pid_t pid;
	FILE *f;

	cr_assert(asprintf(&errpath, "%s/stderr", tmp) > 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		if (!freopen(errpath, "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(126);
		for (int i = 0; env[i]; i++)
			putenv(env[i]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	/* a tracer that lets every signal through */
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
	f = fopen(errpath, "r");
	cr_assert(f);
	cr_assert(getdelim(&err, &len, '\0', f) >= 0);
	fclose(f);
	env_free(env);
	free(errpath);
	harness_rmdir(tmp);
	return err;
}

/* Single-stepping would trap into a tracer: the trap engine refuses, the code cache does not. */
Test(steps, a_tracer_makes_the_trap_engine_refuse)
{
	const char *argv[] = {target(), "-n", "3", "known", NULL};
	char *dir = harness_tmpdir("traced-dumps"), *err = traced_run(argv, dir, TRAP);
	char *dir2 = harness_tmpdir("traced-dumps"), *err2 = traced_run(argv, dir2, TRANSLATE);
	json_t *report, *c;

	cr_expect(strstr(err, "extprof: steps: a tracer (pid "), "%s", err);
	cr_expect(strstr(err, "extprof: counting tsc instead"), "%s", err);
	report = harness_report(dir, NULL);
	c = json_object_get(report, "counter");
	cr_expect_str_eq(json_string_value(json_object_get(c, "name")), "tsc");
	expect_eq(report, "st_loop", "evaluations", 3);
	json_decref(report);

	cr_expect(!strstr(err2, "a tracer"), "%s", err2);
	report = harness_report(dir2, NULL);
	expect_steps_head(report, TRANSLATE);
	expect_eq(report, "st_loop", "per_eval", 33);
	expect_eq(report, "st_loop", "evaluations", 3);
	json_decref(report);
	free(err);
	free(err2);
	harness_rmdir(dir);
	harness_rmdir(dir2);
}

/* The example checker as scripts/example.sh runs it. */
static json_t *checker_steps(struct run_result *r)
{
	char *hooks;
	const char *argv[] = {
		harness_path("CHECKER_PLAIN_O2"), "-n", "16", "-m", "100000", "-w", "4", NULL};
	json_t *report;

	cr_assert(asprintf(&hooks,
			   "invariant:type_ok,invariant:consistent,invariant:commit_justified,"
			   "terminal:is_terminal,action_property:decision_is_stable,guard:can_*,"
			   "transition:do_*") > 0);
	/* the defaults: the code cache, every evaluation */
	report = steps_run(argv, hooks, NULL, NULL, NULL, r);
	free(hooks);
	return report;
}

Test(steps, checker_every_predicate_deterministic_and_not_zero)
{
	struct run_result r1, r2;
	json_t *a = checker_steps(&r1), *b = checker_steps(&r2), *d;
	size_t i, n = 0;

	cr_expect_str_eq(r1.out, r2.out);
	expect_steps_head(a, TRANSLATE);
	json_array_foreach(json_object_get(a, "declarations"), i, d)
	{
		const char *name = json_string_value(json_object_get(d, "name"));
		long long evals = harness_int(d, "evaluations"), pe = harness_int(d, "per_eval");

		if (!evals)
			continue;
		n++;
		cr_expect(pe > 0, "%s: per_eval 0", name);
		cr_expect_eq(harness_decl_int(b, name, "per_eval"), pe,
			     "%s: per_eval %lld, then %lld", name, pe,
			     harness_decl_int(b, name, "per_eval"));
		cr_expect_eq(harness_decl_int(b, name, "evaluations"), evals);
	}
	cr_expect_eq(n, 16, "%zu predicates evaluated, expected 16", n);
	json_decref(a);
	json_decref(b);
	harness_free(&r1);
	harness_free(&r2);
}

/* Every step of per_eval of @name in class @cls (no steps: no row). */
static void expect_class(json_t *report, const char *name, const char *cls)
{
	json_t *steps = json_object_get(json_object_get(harness_decl(report, name), "per_eval"),
					"steps"),
	       *s;
	size_t i;

	cr_assert(json_array_size(steps) > 0, "%s: no steps", name);
	json_array_foreach(steps, i, s)
	{
		const char *c = json_string_value(json_object_get(s, "class"));

		cr_expect(c && !strcmp(c, cls), "%s step %zu: class %s, expected %s", name, i,
			  c ? c : "null", cls);
	}
}

Test(steps, doubling_classes_the_checker_invariants)
{
	char *tmp = harness_tmpdir("steps-doubling"), *base;
	const char *argv[] = {harness_path("EXTPROF_BIN"),
			      "doubling",
			      "--sizes",
			      "8,16,32,64",
			      "--counter",
			      "steps",
			      "-H",
			      "invariant:type_ok",
			      "-H",
			      "invariant:consistent",
			      "-d",
			      NULL,
			      "--format",
			      "json",
			      "--",
			      harness_path("CHECKER_PLAIN_O2"),
			      "-n",
			      "{N}",
			      "-m",
			      "2000",
			      "-w",
			      "1",
			      NULL};
	struct run_result r;
	json_t *report;

	cr_assert(asprintf(&base, "%s/runs", tmp) > 0);
	argv[11] = base;
	harness_run(argv, NULL, &r);
	report = harness_json(&r, 0, "extprof doubling");
	expect_class(report, "type_ok", "O(N)");
	expect_class(report, "consistent", "O(N^2)");
	json_decref(report);
	harness_free(&r);
	free(base);
	harness_rmdir(tmp);
}

/* The status of @name in a diff's JSON, and its per_eval change. */
static const char *diff_status(json_t *diff, const char *name, double *change)
{
	json_t *d;
	size_t i;

	json_array_foreach(json_object_get(diff, "declarations"), i, d)
	{
		if (strcmp(json_string_value(json_object_get(d, "name")), name))
			continue;
		*change = json_number_value(
			json_object_get(json_object_get(d, "change"), "per_eval"));
		return json_string_value(json_object_get(d, "status"));
	}
	return "missing";
}

/* A deterministic counter: any change is real, and no other is seen. */
Test(steps, diff_names_the_slower_build_exactly)
{
	char *base = harness_tmpdir("steps-base"), *slow = harness_tmpdir("steps-slow");
	const char *hooks = "invariant:type_ok,invariant:consistent,terminal:is_terminal";
	const char *argv[] = {harness_path("EXTPROF_BIN"),
			      "diff",
			      "--format",
			      "json",
			      "--fail-above",
			      "10",
			      base,
			      slow,
			      NULL};
	const char *exes[] = {"CHECKER_PLAIN_O2", "CHECKER_SLOW_O2"};
	char *dirs[] = {base, slow};
	struct run_result r;
	double change = -1;
	json_t *diff;

	for (int i = 0; i < 2; i++) {
		const char *cargv[] = {
			harness_path(exes[i]), "-n", "8", "-m", "5000", "-w", "1", NULL};
		char **env = steps_env(dirs[i], hooks, NULL, NULL, NULL, false);

		harness_run(cargv, (const char *const *)env, &r);
		cr_assert_eq(r.status, 0, "%s: %s", exes[i], r.err);
		harness_free(&r);
		env_free(env);
	}
	harness_run(argv, NULL, &r);
	cr_expect_eq(r.status, 1, "diff --fail-above 10: status %d: %s", r.status, r.err);
	diff = harness_json(&r, -1, "extprof diff");
	cr_expect_str_eq(diff_status(diff, "type_ok", &change), "changed");
	cr_expect(change > 10, "type_ok: per_eval %+.1f%%", change);
	cr_expect_str_eq(diff_status(diff, "consistent", &change), "same");
	cr_expect(change == 0, "consistent: per_eval %+.1f%%", change);
	cr_expect_str_eq(diff_status(diff, "is_terminal", &change), "same");
	json_decref(diff);
	harness_free(&r);
	harness_rmdir(base);
	harness_rmdir(slow);
}

/*
 * Hooking a callee changes nothing of what its caller reads: st_outer with
 * and without st_straight hooked (a 5-byte patch), st_c_copy with and
 * without libc's memcpy hooked (what its IFUNC picks is jumped into by
 * __mempcpy's: a short patch, a jmp rel8 to a jmp rel32 in its padding).
 */
Test(steps, hooking_a_callee_changes_nothing_of_its_caller)
{
	const char *known_argv[] = {target(), "-n", "4", "known", NULL};
	const char *c_argv[] = {target(), "-n", "4", "c", NULL};
	const char *engines[] = {TRANSLATE, TRAP};

	for (size_t e = 0; e < NELEM(engines); e++) {
		struct run_result r;
		long long alone[2], hooked[2];
		json_t *report;

		report = steps_run(known_argv, "function:st_outer", engines[e], "0", "1", &r);
		alone[0] = harness_decl_int(report, "st_outer", "per_eval");
		json_decref(report);
		harness_free(&r);
		report = steps_run(known_argv, "function:st_outer,function:st_straight", engines[e],
				   "0", "1", &r);
		hooked[0] = harness_decl_int(report, "st_outer", "per_eval");
		json_decref(report);
		harness_free(&r);
		cr_expect(alone[0] == 38 && hooked[0] == 38,
			  "%s: st_outer: %lld alone, %lld with its callee", engines[e], alone[0],
			  hooked[0]);

		report = steps_run(c_argv, "function:st_c_copy", engines[e], "0", "1", &r);
		alone[1] = harness_decl_int(report, "st_c_copy", "observed");
		json_decref(report);
		harness_free(&r);
		report = steps_run(c_argv, "function:st_c_copy,function:memcpy@libc.so.6",
				   engines[e], "0", "1", &r);
		hooked[1] = harness_decl_int(report, "st_c_copy", "observed");
		cr_expect_eq(harness_decl_int(report, "memcpy", "evaluations"), 4, "%s", r.err);
		json_decref(report);
		harness_free(&r);
		cr_expect(alone[1] > 0 && hooked[1] == alone[1],
			  "%s: st_c_copy: observed %lld alone, %lld with memcpy hooked", engines[e],
			  alone[1], hooked[1]);
	}
}
