// SPDX-License-Identifier: MIT
/*
 * Start-up linear in the functions named and in the symbols looked in:
 * tests/targets/many.c's 2,049 functions hooked one name at a time cost no
 * more than one glob hooking them all.  What start-up executes is counted
 * by callgrind (valgrind's own count of the instructions, the same on every
 * run), inside the shim's two looks at the entries (hooks_any,
 * hooks_install); the page protections it changes by strace.  Times are
 * scripts/bench-startup.sh's, over libLLVM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define MANY_FNS 2049 /* many_0000 ... many_3777, many_vary */

/* DIR/NAME.spec holding "function:many_NNNN" for the first @n of many.c's functions. */
static char *spec_of_names(const char *dir, unsigned n)
{
	char *path = harness_str("%s/names%u.spec", dir, n);
	FILE *f = fopen(path, "w");

	cr_assert(f);
	for (unsigned i = 0; i < n && i < MANY_FNS - 1; i++)
		fprintf(f, "function:many_%04o\n", i);
	if (n == MANY_FNS)
		fputs("function:many_vary\n", f);
	fclose(f);
	return path;
}

/* DIR/glob.spec: one glob for them all. */
static char *spec_of_glob(const char *dir)
{
	char *path = harness_str("%s/glob.spec", dir);
	FILE *f = fopen(path, "w");

	cr_assert(f);
	fputs("function:many_*\n", f);
	fclose(f);
	return path;
}

/*
 * The instructions the shim's looks at the entries of @spec execute when it
 * starts in `many 1` (callgrind), and its hooked line into @line.
 */
static long long startup_instructions(const char *dir, const char *spec, char *line, size_t len)
{
	char *out = harness_str("--callgrind-out-file=%s/callgrind.%%p", dir), *env_dir, *env_spec,
	     *env_shim;
	const char *argv[] = {"valgrind",
			      "--trace-children=yes",
			      "--tool=callgrind",
			      out,
			      "--toggle-collect=hooks_any",
			      "--toggle-collect=hooks_install",
			      "env",
			      NULL,
			      NULL,
			      NULL,
			      "EXTPROF_COUNTER=tsc",
			      "EXTPROF_LOG=stderr",
			      harness_path("MANY_TARGET"),
			      "1",
			      NULL};
	struct run_opts o = {.timeout_s = 280};
	long long ir = -1;
	struct run_result r;
	const char *p;

	env_dir = harness_str("EXTPROF_DIR=%s/d", dir);
	env_spec = harness_str("EXTPROF_SPEC=%s", spec);
	env_shim = harness_str("LD_PRELOAD=%s", harness_path("EXTPROF_SHIM"));
	argv[7] = env_dir;
	argv[8] = env_spec;
	argv[9] = env_shim;
	harness_run_with(argv, NULL, &o, &r);
	cr_assert_eq(r.status, 0, "valgrind: %s", r.err);
	/* the last process's count: many's (env, before it, executes nothing of ours) */
	for (p = r.err; (p = strstr(p, "Collected : ")); p++)
		ir = strtoll(p + strlen("Collected : "), NULL, 10);
	snprintf(line, len, "%s", harness_hook_line(r.err));
	harness_free(&r);
	free(out);
	free(env_dir);
	free(env_spec);
	free(env_shim);
	return ir;
}

/*
 * 1,000 functions named one by one cost at most 1.5 times one glob hooking
 * all 2,049: each name is looked up, not matched against every symbol of
 * the program (before, each cost a pass over them all: 15 times the glob).
 */
Test(startup, names_cost_no_more_than_a_glob, .timeout = 600)
{
	char *dir = harness_tmpdir("startup"), *names10 = spec_of_names(dir, 10),
	     *names1000 = spec_of_names(dir, 1000), *glob = spec_of_glob(dir);
	char line10[256], line1000[256], lineg[256];
	long long ir10 = startup_instructions(dir, names10, line10, sizeof(line10));
	long long ir1000 = startup_instructions(dir, names1000, line1000, sizeof(line1000));
	long long irg = startup_instructions(dir, glob, lineg, sizeof(lineg));

	fprintf(stderr,
		"startup: instructions looking at the entries: 10 names %lld, 1,000 names %lld, "
		"one glob (2,049) %lld; 1,000 names / glob %.2f\n",
		ir10, ir1000, irg, (double)ir1000 / (double)irg);
	cr_expect(strstr(line10, "hooked 10/10"), "%s", line10);
	cr_expect(strstr(line1000, "hooked 1,000/1,000"), "%s", line1000);
	cr_expect(strstr(lineg, "hooked 2,049/2,049"), "%s", lineg);
	cr_assert_gt(ir10, 0);
	cr_expect_leq(ir1000 * 2, irg * 3, "1,000 names: %lld instructions, one glob: %lld", ir1000,
		      irg);
	free(names10);
	free(names1000);
	free(glob);
	harness_rmdir(dir);
}

/* The mprotect calls of `many 1` under the shim with @spec, by strace, and its stderr. */
static int startup_mprotects(const char *dir, const char *spec, struct run_result *r)
{
	char *trace = harness_str("%s/trace", dir), *env_dir = harness_str("EXTPROF_DIR=%s/d", dir),
	     *env_spec = harness_str("EXTPROF_SPEC=%s", spec),
	     *env_shim = harness_str("LD_PRELOAD=%s", harness_path("EXTPROF_SHIM"));
	const char *argv[] = {"strace",
			      "-f",
			      "-e",
			      "trace=mprotect",
			      "-o",
			      trace,
			      "env",
			      env_dir,
			      env_spec,
			      env_shim,
			      "EXTPROF_COUNTER=tsc",
			      harness_path("MANY_TARGET"),
			      "1",
			      NULL};
	char buf[512];
	FILE *f;
	int n = 0;

	harness_run(argv, NULL, r);
	f = fopen(trace, "r");
	cr_assert(f, "no %s: %s", trace, r->err);
	while (fgets(buf, sizeof(buf), f))
		n += strstr(buf, "mprotect(") != NULL;
	fclose(f);
	free(trace);
	free(env_dir);
	free(env_spec);
	free(env_shim);
	return n;
}

/*
 * Hooking all 2,049 functions, named one by one (a list of that many is
 * taken whole), changes the program's page protections a few times, not
 * twice a function (before: more than 4,098 mprotect calls).
 */
Test(startup, protections_change_per_segment_not_per_function, .timeout = 300)
{
	char *dir = harness_tmpdir("mprotect"), *names = spec_of_names(dir, MANY_FNS);
	struct run_result r;
	int n = startup_mprotects(dir, names, &r);

	fprintf(stderr, "startup: %d mprotect calls for 2,049 functions hooked\n", n);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "hooked 2,049/2,049"), "%s", r.err);
	cr_expect(!strstr(r.err, "entries; the rest are ignored"), "%s", r.err);
	cr_expect_lt(n, 200, "%d mprotect calls", n);
	harness_free(&r);
	free(names);
	harness_rmdir(dir);
}
