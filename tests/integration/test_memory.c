// SPDX-License-Identifier: MIT
/*
 * The address space the shim takes follows what is used: the declarations
 * registered, the workers made, the rows taken; and a limit on it (ulimit
 * -v, RLIMIT_AS) stops nothing a program does natively.  Each run under the
 * shim is compared with the same run without it: status, stdout, and exact
 * counts (the program's own, "checker-truth:"); VmPeak of /proc/PID/status,
 * with and without the shim, says what it added.  Where a limit leaves no
 * room to count, the shim says so in one line and the loss is in the
 * report.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

/* What the shim needs beside @hooks, as harness_run's environment (static strings). */
static const char *const *shim_env(const char *dir, const char *hooks)
{
	static char *env[8];

	for (int i = 0; env[i]; i++)
		free(env[i]);
	memset(env, 0, sizeof(env));
	env[0] = harness_str("LD_PRELOAD=%s", harness_path("EXTPROF_SHIM"));
	env[1] = harness_str("EXTPROF_DIR=%s", dir);
	env[2] = harness_str("EXTPROF_HOOKS=%s", hooks);
	env[3] = harness_str("EXTPROF_COUNTER=tsc");
	env[4] = harness_str("EXTPROF_LOG=stderr");
	env[5] = harness_str("EXTPROF_SPEC=");
	return (const char *const *)env;
}

/* Lines of @s that hold @needle. */
static int lines_with(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* "checker-vmpeak: kB KB" of a run of tests/targets/memory.c, or -1. */
static long long vmpeak_of(const struct run_result *r)
{
	return harness_tagged(r->err, "vmpeak", "kB");
}

/*
 * Under each limit, `memory big 8 300` (8 threads through 2 hooked
 * functions, then a 300 MiB malloc touched whole) does what it does
 * natively, and counts every call.  Each hook cost some 180 MB of address
 * space before: at 488 MiB (ulimit -v 500000) the malloc failed.
 */
Test(memory, a_big_malloc_after_8_threads_under_limits, .timeout = 240)
{
	static const unsigned limits[] = {400, 488, 640, 1024};
	const char *argv[] = {harness_path("MEMORY_TARGET"), "big", "8", "300", NULL};

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct run_opts o = {.as_mb = limits[i], .timeout_s = 60};
		char *dir = harness_tmpdir("big");
		struct run_result plain, hooked;
		json_t *report;

		harness_run_with(argv, NULL, &o, &plain);
		cr_assert_eq(plain.status, 0, "natively at %u MiB: %s%s", limits[i], plain.out,
			     plain.err);
		harness_run_with(argv, shim_env(dir, "function:xm_work,function:xm_other"), &o,
				 &hooked);
		cr_expect_eq(hooked.status, plain.status, "at %u MiB: status %d: %s%s", limits[i],
			     hooked.status, hooked.out, hooked.err);
		cr_expect_str_eq(hooked.out, plain.out, "at %u MiB", limits[i]);
		report = harness_report(dir, NULL);
		cr_expect_eq(harness_decl_int(report, "xm_work", "evaluations"),
			     harness_truth(hooked.err, "xm_work"), "at %u MiB", limits[i]);
		cr_expect_eq(harness_decl_int(report, "xm_other", "evaluations"),
			     harness_truth(hooked.err, "xm_other"), "at %u MiB", limits[i]);
		cr_expect_eq(harness_int(report, "lost"), 0, "at %u MiB", limits[i]);
		fprintf(stderr,
			"memory: big 8 300 at %u MiB: VmPeak %lld kB natively, %lld kB "
			"under the shim\n",
			limits[i], vmpeak_of(&plain), vmpeak_of(&hooked));
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
	}
}

/*
 * /bin/true with every function of libc hooked, from 64 MiB to 3 GiB of
 * address space: it ends as natively, and the shim counts (a complete
 * dump), where it segfaulted or said it could not calibrate before.
 */
Test(memory, true_with_libc_hooked_under_limits, .timeout = 240)
{
	static const unsigned limits[] = {64, 128, 256, 400, 1024, 3072};
	const char *argv[] = {"/bin/true", NULL};

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct run_opts o = {.as_mb = limits[i], .timeout_s = 60};
		char *dir = harness_tmpdir("true");
		struct run_result plain, hooked;
		json_t *report;

		harness_run_with(argv, NULL, &o, &plain);
		cr_assert_eq(plain.status, 0, "natively at %u MiB", limits[i]);
		harness_run_with(argv, shim_env(dir, "function:*@libc.so.6"), &o, &hooked);
		cr_expect_eq(hooked.status, 0, "at %u MiB: status %d, signal %d: %s", limits[i],
			     hooked.status, hooked.signal, hooked.err);
		cr_expect_str_eq(hooked.out, plain.out, "at %u MiB", limits[i]);
		cr_expect(strstr(hooked.err, "extprof: hooked "), "at %u MiB: %s", limits[i],
			  hooked.err);
		cr_expect(!strstr(hooked.err, "cannot calibrate") &&
				  !strstr(hooked.err, "no memory for"),
			  "at %u MiB: %s", limits[i], hooked.err);
		cr_expect_eq(harness_count_files(dir, ".xpd"), 1, "at %u MiB: %s", limits[i],
			     hooked.err);
		report = harness_count_files(dir, ".xpd") == 1 ? harness_report(dir, NULL) : NULL;
		cr_expect(report && json_is_true(json_object_get(report, "complete")), "at %u MiB",
			  limits[i]);
		cr_expect(report && harness_int(report, "lost") == 0, "at %u MiB", limits[i]);
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
	}
}

/*
 * A limit that leaves a thread no room for its counts (the program set
 * RLIMIT_AS 1 MiB above what it uses, then started a thread): the program
 * runs on as natively; the shim says it in one line naming the limit, and
 * the report says the thread's 100 calls were lost; the main thread's are
 * counted, exactly.
 */
Test(memory, a_limit_that_leaves_no_room_is_said_and_lost, .timeout = 120)
{
	const char *argv[] = {harness_path("MEMORY_TARGET"), "tight", NULL};
	char *dir = harness_tmpdir("tight");
	struct run_result plain, hooked;
	json_t *report;

	harness_run(argv, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s%s", plain.out, plain.err);
	harness_run(argv, shim_env(dir, "function:xm_work,function:xm_other"), &hooked);
	cr_expect_eq(hooked.status, 0, "status %d, signal %d: %s", hooked.status, hooked.signal,
		     hooked.err);
	cr_expect_str_eq(hooked.out, plain.out);
	cr_expect_eq(lines_with(hooked.err, "extprof: no memory for"), 1, "%s", hooked.err);
	cr_expect_eq(lines_with(hooked.err, "RLIMIT_AS"), 1, "%s", hooked.err);
	report = harness_report(dir, NULL);
	cr_expect_eq(harness_decl_int(report, "xm_work", "evaluations"),
		     harness_truth(hooked.err, "xm_work"));
	cr_expect_eq(harness_decl_int(report, "xm_other", "evaluations"), 0);
	cr_expect_eq(harness_int(report, "lost"), harness_truth(hooked.err, "xm_other"));
	json_decref(report);
	harness_free(&plain);
	harness_free(&hooked);
	harness_rmdir(dir);
}

/* VmPeak of `many THREADS hold`, read while it holds: with @hooks under the shim, or native. */
static long long many_vmpeak(unsigned threads, const char *hooks)
{
	char *dir = harness_tmpdir("many"), *nthreads = harness_str("%u", threads), *line, *path;
	const char *argv[] = {harness_path("MANY_TARGET"), nthreads, "hold", NULL};
	const char *const plain_env[] = {"LD_PRELOAD=", NULL};
	long long kb = -1;
	struct run_result r;
	struct spawned sp;
	char buf[256];
	FILE *f;

	harness_spawn(argv, hooks ? shim_env(dir, hooks) : plain_env, &sp);
	while ((line = harness_read_line(&sp, 60000)) && strcmp(line, "ready"))
		free(line);
	cr_assert(line, "many %u never said it was ready", threads);
	free(line);
	path = harness_str("/proc/%d/status", sp.pid);
	f = fopen(path, "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "VmPeak:", 7))
			kb = strtoll(buf + 7, NULL, 10);
	}
	if (f)
		fclose(f);
	kill(sp.pid, SIGUSR1);
	cr_assert_eq(harness_reap(&sp, &r), 0, "%s", r.err);
	cr_assert_neq(kb, -1);
	harness_free(&r);
	free(path);
	free(nthreads);
	harness_rmdir(dir);
	return kb;
}

/*
 * What the shim adds to VmPeak grows with the functions hooked and the
 * workers made, at a few KiB a hook and a few MiB a worker (its shadow
 * stack, its dump's tables and first rows): 2,049 hooked functions of
 * tests/targets/many.c, 1 and 16 threads, against 1 hook.  Before, each
 * worker reserved a 30 KB row for every declaration and the process 160 MB
 * for the declarations: over a GB here.
 */
Test(memory, address_space_follows_hooks_and_workers, .timeout = 240)
{
	const long long per_hook = 8, per_worker = 4 << 10, fixed = 48 << 10; /* kB */
	struct {
		unsigned threads;
		const char *hooks;
		long long nhooks;
		long long added;
	} runs[] = {
		{1, "function:many_0000", 1, 0},
		{1, "function:many_*", 2049, 0},
		{16, "function:many_0000", 1, 0},
		{16, "function:many_*", 2049, 0},
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		long long plain = many_vmpeak(runs[i].threads, NULL);
		long long hooked = many_vmpeak(runs[i].threads, runs[i].hooks);
		long long bound =
			fixed + runs[i].nhooks * per_hook + (long long)runs[i].threads * per_worker;

		runs[i].added = hooked - plain;
		fprintf(stderr,
			"memory: many %u threads, %s: VmPeak %lld kB natively, %lld kB under the "
			"shim: %+lld kB (bound %lld kB)\n",
			runs[i].threads, runs[i].hooks, plain, hooked, runs[i].added, bound);
		cr_expect_leq(runs[i].added, bound, "%u threads, %s: the shim added %lld kB",
			      runs[i].threads, runs[i].hooks, runs[i].added);
	}
	/* what 2,048 hooks more add, and 15 workers more */
	cr_expect_leq(runs[1].added - runs[0].added, 2048 * per_hook, "%lld kB",
		      runs[1].added - runs[0].added);
	cr_expect_leq(runs[3].added - runs[1].added, 15 * per_worker, "%lld kB",
		      runs[3].added - runs[1].added);
}
