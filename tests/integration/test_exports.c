// SPDX-License-Identifier: MIT
/*
 * Where users look: the example checker's dumps exported to callgrind's
 * format and to pprof's, read back by callgrind_annotate and go tool pprof,
 * every declaration there with the evaluations the checker counted itself;
 * and extprof top --once on the checker while it runs, and after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

/* Run the ground-truth checker -n 5 -w 2 under the shim, var:checker_work, @callers deep. */
static char *checker_dumps(const char *callers, struct run_result *r)
{
	const char *argv[] = {harness_path("CHECKER_TRUTH_O2"), "-n", "5", "-w", "2", NULL};
	char *dir = harness_tmpdir("exports"), *preload, *dumps, *spec, *callv;

	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	cr_assert(asprintf(&dumps, "EXTPROF_DIR=%s", dir) > 0);
	cr_assert(asprintf(&spec, "EXTPROF_SPEC=%s/examples/checker/checker.hooks",
			   harness_path("EXTPROF_SOURCE_ROOT")) > 0);
	cr_assert(asprintf(&callv, "EXTPROF_CALLERS=%s", callers) > 0);
	const char *env[] = {preload, dumps, spec, callv, "EXTPROF_COUNTER=var:checker_work", NULL};

	harness_run(argv, env, r);
	cr_assert_eq(r->status, 0, "checker: %s", r->err);
	free(preload);
	free(dumps);
	free(spec);
	free(callv);
	return dir;
}

/* extprof report --format @format -o @file @dir */
static char *export(const char *dir, const char *format, const char *name)
{
	char *file;
	struct run_result r;

	cr_assert(asprintf(&file, "%s/%s", dir, name) > 0);
	const char *argv[] = {
		harness_path("EXTPROF_BIN"), "report", "--format", format, "-o", file, dir, NULL};
	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "report --format %s: %s", format, r.err);
	cr_expect_str_eq(r.out, "", "-o FILE: nothing on stdout");
	harness_free(&r);
	return file;
}

/* "1,234" or "1234" at @p: the number. */
static long long number_at(const char *p)
{
	long long v = 0;

	p += strspn(p, " ");
	for (; (*p >= '0' && *p <= '9') || *p == ','; p++)
		if (*p != ',')
			v = v * 10 + (*p - '0');
	return v;
}

/* The line of @text that holds @needle, or NULL. */
static const char *line_with(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);

	if (!at)
		return NULL;
	while (at > text && at[-1] != '\n')
		at--;
	return at;
}

/* Every truth line of @err: @check(@text, symbol, count); returns how many. */
/* How a tool's output names a function on the line that gives its count. */
struct listing {
	const char *tool;	    /* in the messages */
	const char *before, *after; /* around the symbol on its line */
	const char *text;	    /* the tool's output */
};

/* The line of @l that names @symbol gives @count. */
static void expect_listed(const struct listing *l, const char *symbol, long long count)
{
	char needle[160];
	const char *line;

	snprintf(needle, sizeof(needle), "%s%s%s", l->before, symbol, l->after);
	line = line_with(l->text, needle);
	cr_assert(line, "%s does not list %s:\n%s", l->tool, symbol, l->text);
	cr_expect_eq(number_at(line), count,
		     "%s: %lld evaluations in %s, %lld by the checker's count", symbol,
		     number_at(line), l->tool, count);
}

/* expect_listed() for every "checker-truth: SYMBOL COUNT" line of @err; how many. */
static int each_truth(const char *err, const struct listing *l)
{
	int n = 0;

	for (const char *p = err; (p = strstr(p, "checker-truth: ")); n++) {
		char symbol[128];
		long long count;

		p += strlen("checker-truth: ");
		cr_assert_eq(sscanf(p, "%127s %lld", symbol, &count), 2);
		expect_listed(l, symbol, count);
	}
	return n;
}

static void exports_read_back(const char *callers)
{
	struct run_result run, ann, top;
	char *dir = checker_dumps(callers, &run), *cg, *pb, *home, *gocache, *homev;
	int n;

	cg = export(dir, "callgrind", "checker.callgrind");
	const char *annotate[] = {"callgrind_annotate", "--threshold=100", "--show=Evaluations",
				  cg, NULL};
	harness_run(annotate, NULL, &ann);
	cr_assert_eq(ann.status, 0, "callgrind_annotate: %s", ann.err);
	/* "  1,568 ( 2.74%)  ...  ???:consistent [/path/checker-truth-O2]" */
	n = each_truth(run.err, &(struct listing){"callgrind_annotate", "???:", " [", ann.out});
	cr_expect_geq(n, 12, "too few truth lines: %s", run.err);
	if (strcmp(callers, "0"))
		cr_expect(strstr(ann.out, "???:search_worker_main ["),
			  "the callers are in the call graph:\n%s", ann.out);

	/* go tool pprof wants a HOME and a build cache, even only to read */
	pb = export(dir, "pprof", "checker.pb.gz");
	home = harness_tmpdir("gohome");
	cr_assert(asprintf(&homev, "HOME=%s", home) > 0);
	cr_assert(asprintf(&gocache, "GOCACHE=%s/cache", home) > 0);
	const char *env[] = {homev, gocache, "GOFLAGS=", "GOTOOLCHAIN=local", NULL};
	const char *pprof[] = {"go",
			       "tool",
			       "pprof",
			       "-top",
			       "-sample_index=evaluations",
			       "-nodecount=1000",
			       "-nodefraction=0",
			       pb,
			       NULL};
	harness_run(pprof, env, &top);
	cr_assert_eq(top.status, 0, "go tool pprof: %s", top.err);
	/* "      8257 14.41% 14.41%       8257 14.41%  decision_is_stable" (flat) */
	cr_expect_eq(
		each_truth(run.err, &(struct listing){"go tool pprof -top", "%  ", "\n", top.out}),
		n);
	cr_expect(strstr(top.out, "Type: evaluations"), "%s", top.out);
	if (strcmp(callers, "0"))
		cr_expect(strstr(top.out, "search_worker_main\n"), "the callers are there:\n%s",
			  top.out);
	harness_free(&run);
	harness_free(&ann);
	harness_free(&top);
	free(cg);
	free(pb);
	free(homev);
	free(gocache);
	harness_rmdir(home);
	harness_rmdir(dir);
}

Test(exports, callgrind_and_pprof_read_back, .timeout = 120)
{
	exports_read_back("0");
}

Test(exports, callgrind_and_pprof_with_callers, .timeout = 120)
{
	exports_read_back("2");
}

/* extprof top --once DIR: its stdout. */
static char *top_once(const char *dir)
{
	const char *argv[] = {harness_path("EXTPROF_BIN"), "top", "--once", dir, NULL};
	struct run_result r;
	char *out;

	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "top --once: %s", r.err);
	out = r.out;
	r.out = NULL;
	harness_free(&r);
	return out;
}

/* Every row of a frame: "kind  name@checker-O2  evaluations ..." with evaluations > 0. */
static int top_rows_counted(const char *frame)
{
	int n = 0;

	for (const char *p = strstr(frame, "@checker-O2 "); p; p = strstr(p + 1, "@checker-O2 "))
		n += number_at(p + strlen("@checker-O2 ")) > 0;
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/*
 * The checker -n SIZE -w 2 under the shim; top --once every 50 ms until a
 * frame shows it running with counted rows.  False when it ended first
 * (a machine fast enough for -n SIZE to be over at once).
 */
static bool top_sees_it_running(const char *size)
{
	const char *argv[] = {harness_path("CHECKER_PLAIN_O2"), "-n", size, "-w", "2", NULL};
	char *dir = harness_tmpdir("top"), *preload, *dumps, *spec, *frame = NULL;
	struct run_result r;
	struct spawned s;
	bool seen = false;

	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	cr_assert(asprintf(&dumps, "EXTPROF_DIR=%s", dir) > 0);
	cr_assert(asprintf(&spec, "EXTPROF_SPEC=%s/examples/checker/checker.hooks",
			   harness_path("EXTPROF_SOURCE_ROOT")) > 0);
	const char *env[] = {preload, dumps, spec, "EXTPROF_COUNTER=var:checker_work", NULL};

	harness_spawn(argv, env, &s);
	for (int i = 0; i < 1200 && !seen; i++) {
		char *line;

		free(frame);
		frame = top_once(dir);
		seen = strstr(frame, "running)") && top_rows_counted(frame) >= 12;
		/* the checker prints its one line when it is done */
		line = harness_read_line(&s, 0);
		if (line) {
			free(line);
			break;
		}
		if (!seen)
			sleep_ms(50);
	}
	harness_reap(&s, &r);
	cr_assert_eq(r.status, 0, "checker: %s", r.err);
	if (seen) {
		cr_expect(strstr(frame, "eval/s"), "%s", frame);
		cr_expect(strstr(frame, "consistent@checker-O2"), "%s", frame);
		/* after the end: every row there, counted, and said ended */
		free(frame);
		frame = top_once(dir);
		cr_expect(strstr(frame, "(all ended)"), "%s", frame);
		cr_expect_geq(top_rows_counted(frame), 16, "%s", frame);
		cr_expect(strstr(frame, "run total"), "%s", frame);
	}
	free(frame);
	harness_free(&r);
	free(preload);
	free(dumps);
	free(spec);
	harness_rmdir(dir);
	return seen;
}

Test(exports, top_once_while_the_checker_runs_and_after, .timeout = 200)
{
	/* -n 8 runs about 2 s under the shim on a 2-core VM; -n 9 about 8 s */
	bool seen = top_sees_it_running("8") || top_sees_it_running("9");

	cr_expect(seen, "top --once never saw the checker running");
}

/* top on a directory that has no dumps yet waits, and says so. */
Test(exports, top_once_waits_for_dumps)
{
	char *dir = harness_tmpdir("top-empty"), *frame = top_once(dir);

	cr_expect(strstr(frame, "waiting"), "%s", frame);
	free(frame);
	harness_rmdir(dir);
}
