// SPDX-License-Identifier: MIT
/*
 * extprof run --warmup W --repeat K: the warmup runs leave nothing, each
 * measured run has its own DIR/repeat-N (numbered after earlier ones), the
 * report aggregates them (per-eval by --stat over the runs, evaluations
 * their median) and says "K runs", the status is the last run's, and a run
 * killed by a signal ends the series.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "model/load.h"
#include "report/report.h"
#include "xt_json.h"

static char *out_dir, *tmp_dir, *shim_env, *tmp_env;

static void setup(void)
{
	xt_dir_init();
	out_dir = xt_path(xt_dir, "data");
	tmp_dir = xt_path(xt_dir, "tmp");
	cr_assert_eq(mkdir(tmp_dir, 0700), 0);
	shim_env = xt_fake_shim_env();
	cr_assert(asprintf(&tmp_env, "TMPDIR=%s", tmp_dir) > 0);
}

static void teardown(void)
{
	xt_dir_fini();
	free(out_dir);
	free(tmp_dir);
	free(shim_env);
	free(tmp_env);
}

TestSuite(repeat, .init = setup, .fini = teardown, .timeout = 60);

static int run_sh(const char *script, const char *const *extra, char **out, char **err)
{
	const char *env[] = {shim_env, tmp_env, "LD_PRELOAD=", NULL};

	return xt_run_sh(out_dir, script, extra, env, out, err);
}

static size_t entries(const char *d)
{
	DIR *x = opendir(d);
	struct dirent *de;
	size_t n = 0;

	cr_assert_not_null(x, "%s", d);
	while ((de = readdir(x)))
		n += de->d_name[0] != '.';
	closedir(x);
	return n;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

Test(repeat, warmup_then_runs_each_in_its_own_directory)
{
	char *out, *err, *sub;
	int status = run_sh(
		"echo ran; exit 3",
		(const char *[]){"-H", "function:work", "--warmup", "2", "--repeat", "3", NULL},
		&out, &err);

	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %d: %s", status, err);
	/* the program's output once, from the first measured run; the report on stderr */
	cr_expect_eq(count(out, "ran\n"), 1, "%s", out);
	cr_expect_not_null(strstr(err, "extprof report: 3 runs, 3 processes"), "%s", err);
	cr_expect_not_null(strstr(err, "runs         3 after 2 warmup runs: per-eval the least of "
				       "the runs' per-evals; evaluations, observed and run total "
				       "their median\n"),
			   "%s", err);
	/* the fake shim: 10 evaluations at 40, calibration 5, in every run */
	cr_expect_not_null(strstr(err, "function  work@prog             10        35   350"), "%s",
			   err);
	cr_expect_eq(entries(out_dir), 3);
	for (int i = 1; i <= 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "repeat-%d", i);
		sub = xt_path(out_dir, name);
		cr_expect_eq(entries(sub), 1, "%s", sub);
		free(sub);
	}
	/* the warmup's directory is gone */
	cr_expect_eq(entries(tmp_dir), 0);
	free(out);
	free(err);
}

/* --warmup alone: the warmup runs leave nothing, the one measured run is reported. */
Test(repeat, warmup_alone)
{
	char *out, *err;
	int status =
		run_sh("echo ran", (const char *[]){"-H", "function:work", "--warmup", "2", NULL},
		       &out, &err);

	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status, err);
	cr_expect_eq(count(out, "ran\n"), 1, "%s", out);
	cr_expect_not_null(strstr(err, "extprof report: 1 process"), "%s", err);
	cr_expect_eq(entries(out_dir), 1);
	cr_expect_eq(entries(tmp_dir), 0);
	free(out);
	free(err);
}

/* A second series goes after the first: nothing is overwritten or reported twice. */
Test(repeat, a_second_series_numbers_on)
{
	char *out, *err, *sub;
	json_t *root;
	int status;

	for (int i = 0; i < 2; i++) {
		status = run_sh("true",
				(const char *[]){"-H", "function:work", "--repeat", "2", "--format",
						 "json", NULL},
				&out, &err);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
		root = xt_json_parse(strstr(err, "{"));
		cr_expect_eq(xt_json_int(root, "runs"), 2);
		cr_expect_eq(xt_json_int(root, "processes"), 2);
		cr_expect_eq(xt_json_int(xt_json_decl(root, "work"), "evaluations"), 10);
		json_decref(root);
		free(out);
		free(err);
	}
	cr_expect_eq(entries(out_dir), 4);
	sub = xt_path(out_dir, "repeat-4");
	cr_expect_eq(entries(sub), 1);
	free(sub);
	/* a plain run may share the directory with the series */
	status = run_sh("true", (const char *[]){"-H", "function:work", NULL}, &out, &err);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
	free(out);
	free(err);
}

Test(repeat, a_run_killed_by_a_signal_ends_the_series)
{
	char *out, *err;
	int status =
		run_sh("echo ran; kill -TERM $$",
		       (const char *[]){"-H", "function:work", "--repeat", "4", NULL}, &out, &err);

	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %d: %s", status, err);
	cr_expect_eq(count(out, "ran\n"), 1, "%s", out);
	cr_expect_not_null(strstr(err, "extprof report: 1 process"), "%s", err);
	cr_expect_eq(entries(out_dir), 1);
	free(out);
	free(err);
}

Test(repeat, bad_counts_and_foreign_directories)
{
	const char *const bad[][2] = {
		{"--repeat", "0"}, {"--repeat", "x"}, {"--warmup", "-1"}, {"--repeat", "10001"}};
	char *out, *err, *junk;
	int status;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		status = run_sh("true",
				(const char *[]){"-H", "function:w", bad[i][0], bad[i][1], NULL},
				&out, &err);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s %s", bad[i][0],
			  bad[i][1]);
		cr_expect_eq(strncmp(err, "extprof: ", 9), 0, "%s", err);
		cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "%s", err);
		free(out);
		free(err);
	}
	/* a subdirectory that is not a repeat-N of ours */
	cr_assert_eq(mkdir(out_dir, 0700), 0);
	junk = xt_path(out_dir, "repeat-x");
	cr_assert_eq(mkdir(junk, 0700), 0);
	status = run_sh("true", (const char *[]){"-H", "function:w", "--repeat", "2", NULL}, &out,
			&err);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	cr_expect_not_null(strstr(err, "holds 'repeat-x', which is not an extprof dump"), "%s",
			   err);
	free(out);
	free(err);
	free(junk);
}

/* ---- the aggregation, with exact numbers ---- */

/* One run's report: f evaluated @n times at @delta (calibration 10). */
static void one_run(struct xp_report *r, const char *name, uint64_t pid, uint64_t delta, uint64_t n,
		    enum xp_stat stat)
{
	static const struct dump_decl_info f = {"function", "f", "checker", 0x10};
	char *sub = xt_path(xt_dir, name), *path;
	struct xp_report_opts o;
	struct xp_err e = {""};
	struct dump_meta meta;
	struct dump_map m;
	struct xp_load l;

	cr_assert_eq(mkdir(sub, 0700), 0);
	path = xt_path(sub, "p.xpd");
	xt_meta(&meta, NULL, 10, pid, pid);
	xt_create(&m, path, &meta, &f, 1, 0);
	xt_record(&m, 0, delta, n);
	m.hdr->run_total = 1000 * pid;
	xt_finish(&m, true);
	xp_report_opts_init(&o);
	o.stat = stat;
	xp_load_init(&l, false);
	cr_assert_eq(xp_load_arg(&l, sub, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_report_build(r, &l.set, &o, 0, &e), 0, "%s", e.msg);
	xp_load_free(&l);
	free(path);
	free(sub);
}

/*
 * Per-evals 100, 120, 90 and evaluations 10, 30, 20 (each run's own
 * --stat is its floor here): min 90, median 100, mean 103.3 -> 103;
 * evaluations always the median, 20; cost per-eval x 20.
 */
Test(repeat, aggregate_by_stat)
{
	static const struct {
		enum xp_stat stat;
		uint64_t per_eval;
	} want[] = {{XP_STAT_MIN, 90}, {XP_STAT_MEDIAN, 100}, {XP_STAT_MEAN, 103}};

	for (size_t w = 0; w < 3; w++) {
		struct xp_report runs[3], r;
		struct xp_err e = {""};
		char name[32];
		const uint64_t deltas[] = {110, 130, 100}, evals[] = {10, 30, 20};

		for (int i = 0; i < 3; i++) {
			snprintf(name, sizeof(name), "s%zu-%d", w, i);
			one_run(&runs[i], name, (uint64_t)i + 1, deltas[i], evals[i], want[w].stat);
		}
		cr_assert_eq(xp_report_repeat(&r, runs, 3, 1, &e), 0, "%s", e.msg);
		cr_expect_eq(r.runs, 3);
		cr_expect_eq(r.warmup, 1);
		cr_expect_eq(r.processes, 3);
		cr_expect_eq(r.run_total, 2000); /* median of 1000, 2000, 3000 */
		cr_assert_eq(r.nrows, 1);
		cr_expect_eq(r.rows[0].per_eval, want[w].per_eval, "stat %d: %lu", want[w].stat,
			     r.rows[0].per_eval);
		cr_expect_eq(r.rows[0].fin.evaluations, 20);
		cr_expect_eq(r.rows[0].cost, want[w].per_eval * 20);
		xp_report_free(&r);
		for (int i = 0; i < 3; i++)
			xp_report_free(&runs[i]);
	}
}

/* An even number of runs: the median is the mean of the middle two, rounded. */
Test(repeat, median_of_an_even_count)
{
	struct xp_report runs[2], r;
	struct xp_err e = {""};

	one_run(&runs[0], "a", 1, 110, 10, XP_STAT_MEDIAN);
	one_run(&runs[1], "b", 2, 121, 31, XP_STAT_MEDIAN);
	cr_assert_eq(xp_report_repeat(&r, runs, 2, 0, &e), 0, "%s", e.msg);
	cr_expect_eq(r.rows[0].fin.evaluations, 21);
	cr_expect_eq(r.rows[0].per_eval, 106); /* (100 + 111) / 2 = 105.5 */
	xp_report_free(&r);
	xp_report_free(&runs[0]);
	xp_report_free(&runs[1]);
}

/* The real shim: every run of the target counts the same, so do the aggregates. */
Test(repeat, real_shim_runs_agree)
{
	const char *shim = xt_real_shim();
	char *env, *out, *err;
	json_t *root, *pred, *ch;
	int status;

	if (!shim)
		cr_skip_test("sanitized build: the shim cannot be preloaded");
	cr_assert(asprintf(&env, "EXTPROF_SHIM=%s", shim) > 0);
	status = xt_run((const char *[]){"x",	      "run",	     "-d",	  out_dir,
					 "--warmup",  "1",	     "--repeat",  "3",
					 "--stat",    "median",	     "--callers", "1",
					 "--counter", "var:xt_work", "-H",	  "function:pred",
					 "--format",  "json",	     "--",	  xt_target(false),
					 "4",	      "5",	     NULL},
			(const char *[]){env, tmp_env, "EXTPROF_LOG=off", NULL}, &out, &err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 5, "status %d: %s", status, err);
	/* the target's output once, from the first measured run */
	cr_assert_eq(count(out, "target 4\n"), 1, "%s", out);
	root = xt_json_parse(strstr(err, "{"));
	cr_expect_eq(xt_json_int(root, "runs"), 3);
	cr_expect_eq(xt_json_int(root, "warmup"), 1);
	pred = xt_json_decl(root, "pred");
	cr_expect_eq(xt_json_int(pred, "evaluations"), 12);
	cr_expect_eq(xt_json_int(pred, "per_eval"), 30); /* median of 10 x 4 and 30 x 8 */
	ch = json_object_get(pred, "callers");
	cr_assert_eq(json_array_size(ch), 2, "%s", out);
	cr_expect_eq(xt_json_int(json_array_get(ch, 0), "evaluations"), 8);
	cr_expect_eq(xt_json_int(json_array_get(ch, 0), "per_eval"), 30);
	cr_expect_eq(xt_json_int(json_array_get(ch, 1), "evaluations"), 4);
	cr_expect_eq(xt_json_int(json_array_get(ch, 1), "per_eval"), 10);
	cr_expect_eq(entries(tmp_dir), 0);
	json_decref(root);
	free(out);
	free(err);
	free(env);
}

/* Every run of a series reads the same stdin, saved once: a pipe, here. */
Test(repeat, every_run_reads_the_same_stdin)
{
	const char *argv[32] = {
		"x",	    "run",
		"-d",	    out_dir,
		"-H",	    "function:work",
		"--warmup", "1",
		"--repeat", "3",
		"--",	    "/bin/sh",
		"-c",	    "n=$(wc -l); echo \"lines $n\" >> \"$LOG\"; echo \"lines $n\"",
		NULL};
	char *log = xt_path(xt_dir, "lines.log"), *logenv, *out, *err, *got;
	const char *env[] = {shim_env, tmp_env, "LD_PRELOAD=", NULL, NULL};
	int in[2], status;
	size_t n;
	pid_t feeder;

	cr_assert(asprintf(&logenv, "LOG=%s", log) > 0);
	env[3] = logenv;
	cr_assert_eq(pipe(in), 0);
	feeder = fork();
	cr_assert_geq(feeder, 0);
	if (feeder == 0) {
		close(in[0]);
		for (int i = 0; i < 3; i++)
			if (write(in[1], "a line\n", 7) != 7)
				_exit(1);
		_exit(0);
	}
	close(in[1]);
	status = xt_run_stdin(argv, env, in[0], &out, &err);
	close(in[0]);
	waitpid(feeder, NULL, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status, err);
	cr_expect_str_eq(out, "lines 3\n");
	got = xt_slurp(log, &n);
	got[n] = '\0';
	cr_expect_str_eq(got, "lines 3\nlines 3\nlines 3\nlines 3\n", "each run's stdin: %s", got);
	free(got);
	free(out);
	free(err);
	free(logenv);
	free(log);
}
