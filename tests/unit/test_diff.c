// SPDX-License-Identifier: MIT
/*
 * extprof diff: each side merged and finalized as report does, the change
 * per declaration in per-eval, evaluations and cost, the declarations that
 * appeared or vanished, warnings when the two sides are not alike,
 * --fail-above with each --metric, and the real shim on the test target
 * against its variant with check() made twice as slow.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "xt_json.h"

static char *base, *next;

static void setup(void)
{
	xt_dir_init();
	base = xt_path(xt_dir, "base");
	next = xt_path(xt_dir, "new");
	cr_assert_eq(mkdir(base, 0700), 0);
	cr_assert_eq(mkdir(next, 0700), 0);
}

static void teardown(void)
{
	xt_dir_fini();
	free(base);
	free(next);
}

TestSuite(diff, .init = setup, .fini = teardown, .timeout = 60);

struct decl_run {
	const char *symbol;
	uint64_t delta; /* calibration 10 is subtracted */
	uint64_t times;
};

/*
 * One process's dump @file in @d: each declaration evaluated @times at
 * @delta, and with @step as often again @step above it (0: not).
 */
static void side_dump(const char *d, const char *file, uint64_t pid, const struct decl_run *x,
		      int n, const char *cpu, const char *counter, uint64_t step)
{
	struct dump_decl_info decls[8];
	char *path = xt_path(d, file);
	struct dump_meta meta;
	struct dump_map m;

	for (int i = 0; i < n; i++)
		decls[i] = (struct dump_decl_info){"function", x[i].symbol, "checker", 0x100u + i};
	unlink(path);
	xt_meta(&meta, counter, 10, pid, pid);
	if (cpu)
		strcpy(meta.cpu_model, cpu);
	xt_create(&m, path, &meta, decls, (uint32_t)n, 0);
	for (int i = 0; i < n; i++) {
		xt_record(&m, (uint32_t)i, x[i].delta, x[i].times);
		if (step && x[i].times > 1)
			xt_record(&m, (uint32_t)i, x[i].delta + step, x[i].times);
	}
	xt_finish(&m, true);
	free(path);
}

/* One process's dump in @d: each declaration evaluated @times at @delta. */
static void side(const char *d, uint64_t pid, const struct decl_run *x, int n, const char *cpu,
		 const char *counter)
{
	side_dump(d, "p.xpd", pid, x, n, cpu, counter, 0);
}

/*
 * f: per-eval 100 -> 150 (+50 %), evaluations 10 -> 10, cost +50 %;
 * g: the same; h: only in the base; k: only in the new one;
 * z: never called in the base (cost 0), called in the new one.
 */
static void sides(void)
{
	const struct decl_run b[] = {{"f", 110, 10}, {"g", 30, 4}, {"h", 60, 1}, {"z", 0, 0}};
	const struct decl_run n[] = {{"f", 160, 10}, {"g", 30, 4}, {"k", 20, 5}, {"z", 60, 2}};

	side(base, 1, b, 4, NULL, NULL);
	side(next, 2, n, 4, NULL, NULL);
}

static int run(const char *const *argv, char **out, char **err)
{
	int status = xt_run(argv, NULL, out, err);

	cr_assert(WIFEXITED(status), "extprof died: status %d", status);
	return WEXITSTATUS(status);
}

static json_t *row(json_t *root, const char *name)
{
	return xt_json_decl(root, name);
}

static double change(json_t *d, const char *key)
{
	json_t *v = json_object_get(json_object_get(d, "change"), key);

	cr_assert(json_is_number(v), "change.%s is not a number", key);
	return json_number_value(v);
}

Test(diff, json_has_each_side_and_each_change)
{
	json_t *root, *f, *g, *h, *k, *z;
	char *out, *err;

	sides();
	cr_assert_eq(run((const char *[]){"x", "diff", "--format", "json", base, next, NULL}, &out,
			 &err),
		     0, "%s", err);
	root = xt_json_parse(out);
	f = row(root, "f");
	cr_expect_str_eq(json_string_value(json_object_get(f, "status")), "changed");
	cr_expect_eq(xt_json_int(json_object_get(f, "base"), "per_eval"), 100);
	cr_expect_eq(xt_json_int(json_object_get(f, "new"), "per_eval"), 150);
	cr_expect_eq(xt_json_int(json_object_get(f, "new"), "cost"), 1500);
	cr_expect_eq(change(f, "per_eval"), 50.0);
	cr_expect_eq(change(f, "evaluations"), 0.0);
	cr_expect_eq(change(f, "cost"), 50.0);
	g = row(root, "g");
	cr_expect_str_eq(json_string_value(json_object_get(g, "status")), "same");
	h = row(root, "h");
	cr_expect_str_eq(json_string_value(json_object_get(h, "status")), "vanished");
	cr_expect(json_is_null(json_object_get(h, "new")));
	cr_expect(json_is_null(json_object_get(json_object_get(h, "change"), "cost")));
	k = row(root, "k");
	cr_expect_str_eq(json_string_value(json_object_get(k, "status")), "appeared");
	cr_expect(json_is_null(json_object_get(k, "base")));
	z = row(root, "z");
	/* from 0: no percentage, but grown */
	cr_expect(json_is_null(json_object_get(json_object_get(z, "change"), "cost")));
	cr_expect_eq(xt_json_int(json_object_get(z, "base"), "evaluations"), 0);
	cr_expect_eq(xt_json_int(root, "over"), 0);
	cr_expect(json_is_null(json_object_get(root, "fail_above")));
	cr_expect_str_eq(json_string_value(json_object_get(root, "metric")), "cost");
	cr_expect_eq(xt_json_int(json_object_get(root, "base"), "processes"), 1);
	cr_expect_eq(json_array_size(json_object_get(root, "warnings")), 0);
	json_decref(root);
	free(out);
	free(err);
}

Test(diff, text_most_grown_first_then_appeared_and_vanished)
{
	char *out, *err;

	sides();
	cr_assert_eq(run((const char *[]){"x", "diff", base, next, NULL}, &out, &err), 0, "%s",
		     err);
	cr_expect_eq(strncmp(out, "extprof diff: 5 declarations, 0 over the threshold\n", 51), 0,
		     "%s", out);
	cr_expect_not_null(strstr(out, "kind      declaration  per-eval  new  change  evaluations  "
				       "new  change   cost    new  change\n"),
			   "%s", out);
	cr_expect_not_null(strstr(out,
				  "function  z@checker           -   50   +inf%            0    "
				  "2   +inf%      0    100   +inf%\n"
				  "function  f@checker         100  150  +50.0%           10   "
				  "10    0.0%  1,000  1,500  +50.0%\n"
				  "function  g@checker          20   20    0.0%            4    "
				  "4    0.0%     80     80    0.0%\n"
				  "function  k@checker           -   10       -            -    "
				  "5       -      -     50       -  appeared\n"
				  "function  h@checker          50    -       -            1    "
				  "-       -     50      -       -  vanished\n"),
			   "%s", out);
	free(out);
	free(err);
}

Test(diff, csv_columns)
{
	char *out, *err;

	sides();
	cr_assert_eq(
		run((const char *[]){"x", "diff", "--format", "csv", base, next, NULL}, &out, &err),
		0, "%s", err);
	cr_expect_eq(
		strstr(out,
		       "kind,name,object,status,base_per_eval,new_per_eval,"
		       "per_eval_change,base_evaluations,new_evaluations,evaluations_change,"
		       "base_cost,new_cost,cost_change,over,per_eval_margin,evaluations_margin,"
		       "cost_margin,per_eval_real,evaluations_real,cost_real\r\nfunction,z,"),
		out, "%s", out);
	cr_expect_not_null(strstr(out, "\r\nfunction,f,checker,changed,100,150,50.0000,10,10,"
				       "0.0000,1000,1500,50.0000,false,0,0,0,true,false,true\r\n"),
			   "%s", out);
	cr_expect_not_null(strstr(out,
				  "\r\nfunction,h,checker,vanished,50,,,1,,,50,,,false,,,,false,"
				  "false,false\r\n"),
			   "%s", out);
	free(out);
	free(err);
}

/* Exit 1 only past the threshold, in the metric chosen. */
Test(diff, fail_above_each_metric)
{
	char *out, *err;

	sides();
	/* f's cost grew 50 %, z's from 0 */
	cr_expect_eq(run((const char *[]){"x", "diff", "--fail-above", "49", base, next, NULL},
			 &out, &err),
		     1, "%s", err);
	cr_expect_not_null(strstr(out, "fail above   cost grew by more than 49%, beyond the "
				       "margin: 2 declarations\n"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "+50.0%  over 49%\n"), "%s", out);
	free(out);
	free(err);
	/* evaluations: only z's grew (from 0) */
	cr_expect_eq(run((const char *[]){"x", "diff", "--metric", "evaluations", "--fail-above",
					  "0", "--format", "json", base, next, NULL},
			 &out, &err),
		     1, "%s", err);
	cr_expect_not_null(strstr(out, "\"over\": 1,"), "%s", out);
	free(out);
	free(err);
	/* without z in the way: per-eval of f grew 50 %, not more than 50 */
	side(next, 2, (const struct decl_run[]){{"f", 160, 10}, {"g", 30, 4}, {"z", 0, 0}}, 3, NULL,
	     NULL);
	cr_expect_eq(run((const char *[]){"x", "diff", "--metric", "per-eval", "--fail-above",
					  "50%", base, next, NULL},
			 &out, &err),
		     0, "%s", err);
	free(out);
	free(err);
}

Test(diff, warns_when_the_sides_differ)
{
	const struct decl_run x[] = {{"f", 110, 10}};
	char *out, *err;

	side(base, 1, x, 1, "CPU one", NULL);
	side(next, 2, x, 1, "CPU two", "var:other");
	cr_assert_eq(run((const char *[]){"x", "diff", base, next, NULL}, &out, &err), 0, "%s",
		     err);
	cr_expect_not_null(strstr(out, "warning: counters differ: base var:steps (steps), new "
				       "var:other (steps); the figures are not comparable\n"
				       "warning: CPU models differ: base \"CPU one\", new \"CPU "
				       "two\"\n"),
			   "%s", out);
	free(out);
	free(err);
}

/*
 * --base and --new take several paths each: each directory is a run of its
 * own, made into one as run --repeat makes them (per-eval the least,
 * evaluations the median); dump files named on a side are one run.
 */
Test(diff, several_paths_a_side)
{
	char *b2 = xt_path(xt_dir, "base2"), *out, *err, *f1, *f2;
	json_t *root, *f;

	sides();
	cr_assert_eq(mkdir(b2, 0700), 0);
	side(b2, 3, (const struct decl_run[]){{"f", 90, 5}}, 1, NULL, NULL);
	cr_assert_eq(run((const char *[]){"x", "diff", "--format", "json", "--base", base, "--base",
					  b2, "--new", next, NULL},
			 &out, &err),
		     0, "%s", err);
	root = xt_json_parse(out);
	f = row(root, "f");
	/* min(100, 80); the median of 10 and 5, rounded half up */
	cr_expect_eq(xt_json_int(json_object_get(f, "base"), "per_eval"), 80);
	cr_expect_eq(xt_json_int(json_object_get(f, "base"), "evaluations"), 8);
	cr_expect_eq(xt_json_int(json_object_get(f, "base"), "runs"), 2);
	cr_expect_eq(xt_json_int(json_object_get(f, "base"), "per_eval_spread"), 20);
	cr_expect_eq(xt_json_int(json_object_get(root, "base"), "processes"), 2);
	cr_expect_eq(xt_json_int(json_object_get(root, "base"), "runs"), 2);
	/* var: has no step in its margin, but the base's runs spread, and the new side's is taken
	 * alike */
	cr_expect_eq(xt_json_int(json_object_get(f, "margin"), "per_eval"), 20 + 20);
	cr_expect_eq(xt_json_int(json_object_get(f, "margin"), "evaluations"), 5 + 5);
	json_decref(root);
	free(out);
	free(err);
	/* the dump files together are one run: the processes merged as report merges them */
	f1 = xt_path(base, "p.xpd");
	f2 = xt_path(b2, "p.xpd");
	cr_assert_eq(run((const char *[]){"x", "diff", "--format", "json", "--base", f1, "--base",
					  f2, "--new", next, NULL},
			 &out, &err),
		     0, "%s", err);
	root = xt_json_parse(out);
	f = row(root, "f");
	cr_expect_eq(xt_json_int(json_object_get(f, "base"), "per_eval"), 80);
	cr_expect_eq(xt_json_int(json_object_get(f, "base"), "evaluations"), 15);
	cr_expect_eq(xt_json_int(json_object_get(root, "base"), "runs"), 1);
	json_decref(root);
	free(out);
	free(err);
	free(f1);
	free(f2);
	free(b2);
}

/*
 * A tsc side whose deltas move in steps of 26 (the shim saw a resolution
 * of 1): each declaration @times at @delta and as often one step above.
 */
static void side_tsc(const char *d, const char *file, uint64_t pid, const struct decl_run *x, int n)
{
	side_dump(d, file, pid, x, n, NULL, "tsc", 26);
}

/*
 * tsc: a change of one step (26 ticks) is within the margin of 2 steps, and
 * never fails --fail-above, however large in percent; nor does growth from
 * 0 to within it, nor the change of a floor a single evaluation set.  Three
 * steps is real.  The noise comes after the real change.
 */
Test(diff, tsc_margin_of_two_steps)
{
	char *out, *err;
	json_t *root, *f;

	side_tsc(base, "p.xpd", 1,
		 (const struct decl_run[]){
			 {"f", 110, 100}, {"g", 10, 100}, {"once", 87, 1}, {"real", 1010, 100}},
		 4);
	side_tsc(next, "p.xpd", 2,
		 (const struct decl_run[]){
			 {"f", 136, 100}, {"g", 36, 100}, {"once", 399, 1}, {"real", 1088, 100}},
		 4);
	cr_expect_eq(run((const char *[]){"x", "diff", "--fail-above", "5", base, next, NULL}, &out,
			 &err),
		     1, "%s", err);
	cr_expect_not_null(strstr(out,
				  "extprof diff: 4 declarations, 1 over the threshold, 3 within "
				  "the margin\n"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "margin       2 steps of 26 ticks per evaluation (the "
				       "counter's step); one run a side"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "real@checker     1,000  1,078    +7.8%     \xc2\xb1"
				       "52"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "  +26.0%  within margin\n"), "%s", out);
	cr_expect_not_null(strstr(out, "   +inf%  within margin\n"), "%s", out);
	cr_expect_not_null(strstr(out, "  +405.2%  unsettled\n"), "%s", out);
	cr_expect_lt(strstr(out, "real@"), strstr(out, "f@"), "%s", out);
	cr_expect_lt(strstr(out, "real@"), strstr(out, "once@"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "diff", "--format", "json", base, next, NULL}, &out,
			 &err),
		     0, "%s", err);
	root = xt_json_parse(out);
	cr_expect_eq(xt_json_int(root, "step"), 26);
	cr_expect_eq(xt_json_int(root, "within_margin"), 3);
	f = row(root, "f");
	cr_expect_eq(xt_json_int(json_object_get(f, "margin"), "per_eval"), 52);
	cr_expect_eq(xt_json_int(json_object_get(f, "margin"), "cost"), 52 * 200);
	cr_expect(json_is_false(json_object_get(json_object_get(f, "real"), "cost")));
	f = row(root, "once");
	cr_expect(json_is_null(json_object_get(json_object_get(f, "margin"), "per_eval")));
	cr_expect_eq(xt_json_int(json_object_get(f, "margin"), "evaluations"), 0);
	f = row(root, "real");
	cr_expect(json_is_true(json_object_get(json_object_get(f, "real"), "per_eval")));
	json_decref(root);
	free(out);
	free(err);
}

/*
 * tsc, several runs a side: their spread widens the margin.  f's base runs
 * read 26 and 78; a new one at 104 is within 2 steps and twice the spread;
 * the single floor of "once" is judged against its own spread too.
 */
Test(diff, tsc_margin_from_the_runs_spread)
{
	char *b2 = xt_path(xt_dir, "base2"), *out, *err;
	json_t *root, *f;

	cr_assert_eq(mkdir(b2, 0700), 0);
	side_tsc(base, "p.xpd", 1, (const struct decl_run[]){{"f", 36, 100}, {"once", 87, 1}}, 2);
	side_tsc(b2, "p.xpd", 3, (const struct decl_run[]){{"f", 88, 100}, {"once", 363, 1}}, 2);
	side_tsc(next, "p.xpd", 2, (const struct decl_run[]){{"f", 114, 100}, {"once", 399, 1}}, 2);
	cr_assert_eq(run((const char *[]){"x", "diff", "--format", "json", "--fail-above", "10",
					  "--base", base, "--base", b2, "--new", next, NULL},
			 &out, &err),
		     0, "%s", err);
	root = xt_json_parse(out);
	f = row(root, "f");
	/* 2 steps, 52 for the base's runs and as much for the new one's: 104 - 26 is within */
	cr_expect_eq(xt_json_int(json_object_get(f, "margin"), "per_eval"), 52 + 52 + 52, "%s",
		     out);
	cr_expect(json_is_false(json_object_get(f, "over")));
	f = row(root, "once");
	cr_expect_eq(xt_json_int(json_object_get(f, "margin"), "per_eval"), 52 + 276 + 276);
	cr_expect_eq(xt_json_int(root, "over"), 0);
	json_decref(root);
	free(out);
	free(err);
	free(b2);
}

Test(diff, bad_usage_is_one_line_and_exit_2)
{
	const char *const *cases[] = {
		(const char *[]){"x", "diff", NULL},
		(const char *[]){"x", "diff", "a", NULL},
		(const char *[]){"x", "diff", "a", "b", "c", NULL},
		(const char *[]){"x", "diff", "--base", "a", NULL},
		(const char *[]){"x", "diff", "--base", "a", "--new", "b", "c", "d", NULL},
		(const char *[]){"x", "diff", "--metric", "speed", "a", "b", NULL},
		(const char *[]){"x", "diff", "--fail-above", "-3", "a", "b", NULL},
		(const char *[]){"x", "diff", "--fail-above", "x%", "a", "b", NULL},
		(const char *[]){"x", "diff", "--frobnicate", "a", "b", NULL},
	};
	char *out, *err;

	sides();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(run(cases[i], &out, &err), 2, "case %zu: %s", i, err);
		cr_expect_eq(strncmp(err, "extprof: ", 9), 0, "case %zu: %s", i, err);
		cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "case %zu: %s", i, err);
		cr_expect_str_empty(out);
		free(out);
		free(err);
	}
	/* a side that is not there */
	cr_expect_eq(run((const char *[]){"x", "diff", base, "/nonexistent/xp", NULL}, &out, &err),
		     2);
	cr_expect_str_eq(err, "extprof: /nonexistent/xp: No such file or directory\n");
	free(out);
	free(err);
	cr_expect_eq(run((const char *[]){"x", "diff", "--help", NULL}, &out, &err), 0);
	cr_expect_eq(strncmp(out, "usage: extprof diff [options] BASE NEW\n", 39), 0, "%s", out);
	free(out);
	free(err);
}

/*
 * The real shim: the test target, then its variant whose check() does
 * twice the work.  The diff names check, +100 %, and --fail-above 10 fails;
 * pred, the same in both, is unchanged.
 */
Test(diff, real_runs_name_the_slower_function)
{
	const char *shim = xt_real_shim();
	const char *targets[2] = {xt_target(false), xt_target(true)};
	char *dirs[2] = {base, next}, *shim_env, *out, *err;
	json_t *root, *check, *pred;

	if (!shim)
		cr_skip_test("sanitized build: the shim cannot be preloaded");
	cr_assert(asprintf(&shim_env, "EXTPROF_SHIM=%s", shim) > 0);
	for (int i = 0; i < 2; i++) {
		int status =
			xt_run((const char *[]){"x", "run", "-d", dirs[i], "--counter",
						"var:xt_work", "-H", "function:pred", "-H",
						"function:check", "--", targets[i], "10", NULL},
			       (const char *[]){shim_env, "EXTPROF_LOG=off", NULL}, &out, &err);

		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
		free(out);
		free(err);
	}
	cr_expect_eq(run((const char *[]){"x", "diff", "--fail-above", "10", base, next, NULL},
			 &out, &err),
		     1, "%s", err);
	cr_expect_not_null(strstr(out, "function  check@target-slow         5   10  +100.0%"), "%s",
			   out);
	cr_expect_not_null(strstr(out, "  +100.0%  over 10%\n"), "%s", out);
	cr_expect_not_null(strstr(out, "warning: executables differ: base "), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "diff", "--format", "json", base, next, NULL}, &out,
			 &err),
		     0, "%s", err);
	root = xt_json_parse(out);
	check = xt_json_decl(root, "check");
	cr_expect_eq(change(check, "per_eval"), 100.0);
	cr_expect_eq(change(check, "evaluations"), 0.0);
	cr_expect_eq(xt_json_int(json_object_get(check, "base"), "per_eval"), 5);
	cr_expect_eq(xt_json_int(json_object_get(check, "new"), "per_eval"), 10);
	pred = xt_json_decl(root, "pred");
	cr_expect_str_eq(json_string_value(json_object_get(pred, "status")), "same");
	/* the slowed function comes first */
	cr_expect_str_eq(json_string_value(json_object_get(
				 json_array_get(json_object_get(root, "declarations"), 0), "name")),
			 "check");
	json_decref(root);
	free(out);
	free(err);
	free(shim_env);
}
