// SPDX-License-Identifier: MIT
/*
 * Beyond one machine: the dumps of several hosts, processes and MPI ranks
 * as users of a fleet read them.
 *
 *   hosts   four runs of tests/targets/work, each in a UTS namespace of its
 *           own with its own host name (we are root), the last one's leaf()
 *           twice as dear (-k 200, not 100): report --by host shows each
 *           host's per-eval; the merged report flags leaf imbalance and
 *           names the slow host; JSON, CSV and text say the same; pprof's
 *           labels slice it as --by host does, read back by go tool pprof
 *   mpi     tests/targets/mpi_work under Debian's Open MPI (mpirun -np 4
 *           --oversubscribe), rank 2 making three times the calls: --by
 *           rank shows it; the job's one file reports exactly as the ranks'
 *           own files; a rank killed before MPI_Finalize leaves the others'
 *           counts, with mpirun's abort and with --enable-recovery, where
 *           the others give the job's merge up at EXTPROF_MPI_TIMEOUT
 *
 * Every figure is exact: the counter is var: (the programs' own units of
 * work), and each count is checked against the program's own
 * ("checker-truth:" and "mpi-truth:" lines).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define CALLS 1000
#define HOSTS 4

static const char *const hosts[HOSTS] = {"alpha", "beta", "gamma", "delta"};
static const long per_eval_of[HOSTS] = {100, 100, 100, 200}; /* delta: twice as slow */

/* The four hosts' runs of work into @dir; each one's evaluations of leaf (its own count) into
 * @truth. */
static void hosts_run(const char *dir, long long truth[HOSTS])
{
	char *preload, *dirv;

	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	cr_assert(asprintf(&dirv, "EXTPROF_DIR=%s", dir) > 0);
	for (int h = 0; h < HOSTS; h++) {
		char n[16], k[16];
		const char *argv[] = {harness_path("WORK_TARGET"), "-n", n, "-k", k, "basic", NULL};
		const char *env[] = {preload, dirv, "EXTPROF_HOOKS=function:leaf",
				     "EXTPROF_COUNTER=var:work_global", NULL};
		struct run_opts o = {.hostname = hosts[h], .timeout_s = 120};
		struct run_result r;

		snprintf(n, sizeof(n), "%d", CALLS);
		snprintf(k, sizeof(k), "%ld", per_eval_of[h]);
		harness_run_with(argv, env, &o, &r);
		cr_assert_eq(r.status, 0, "work on %s: %s", hosts[h], r.err);
		truth[h] = harness_truth(r.err, "leaf");
		cr_assert_eq(truth[h], CALLS, "work on %s: %s", hosts[h], r.err);
		harness_free(&r);
	}
	free(preload);
	free(dirv);
}

/* Whether declaration @d of a report is flagged @flag. */
static bool has_flag(json_t *d, const char *flag)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(d, "flags"), i,
			   f) if (!strcmp(json_string_value(f), flag)) return true;
	return false;
}

/* The row of @name in group @group of @report, or NULL. */
static json_t *group_decl(json_t *report, const char *name, const char *group)
{
	json_t *decls = json_object_get(report, "declarations"), *d;
	size_t i;

	json_array_foreach(decls, i, d)
	{
		const char *g = json_string_value(json_object_get(d, "group"));

		if (!strcmp(json_string_value(json_object_get(d, "name")), name) && g &&
		    !strcmp(g, group))
			return d;
	}
	return NULL;
}

/* Split a text row at runs of two or more blanks: up to @max cells. */
static int text_cells(char *line, char **cell, int max)
{
	int n = 0;
	char *p = line;

	while (*p && n < max) {
		char *gap = strstr(p, "  ");

		cell[n++] = p;
		if (!gap)
			break;
		*gap = '\0';
		for (p = gap + 2; *p == ' '; p++)
			;
	}
	return n;
}

/* `extprof report ARGS...`: its stdout, asserted to succeed. */
static char *report_out(const char *const *args)
{
	const char *argv[16] = {harness_path("EXTPROF_BIN"), "report"};
	struct run_result r;
	int n = 2;
	char *out;

	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "extprof report: %s", r.err);
	out = r.out;
	r.out = NULL;
	harness_free(&r);
	return out;
}

/* The CSV field of column @name in the line of @csv that starts with @start, or "". */
static void csv_field(const char *csv, const char *start, const char *name, char *out, size_t size)
{
	const char *line = strstr(csv, start), *head = csv;
	int col = 0, at = 0;

	out[0] = '\0';
	cr_assert_not_null(line, "no line %s in %s", start, csv);
	/* the column's index in the heading (no quoted names there) */
	for (const char *p = head; *p && *p != '\r'; p++) {
		if (!strncmp(p, name, strlen(name)) && (p == head || p[-1] == ',') &&
		    (p[strlen(name)] == ',' || p[strlen(name)] == '\r'))
			break;
		col += *p == ',';
	}
	for (const char *p = line; *p && *p != '\r'; p++) {
		if (*p == ',') {
			at++;
			continue;
		}
		if (at == col && strlen(out) + 1 < size)
			strncat(out, p, 1);
	}
}

Test(fleet, hosts_by_host_and_the_slow_host_named, .timeout = 300)
{
	char *dir = harness_tmpdir("fleet-hosts"), *text, *csv, cell[128], want[160];
	long long truth[HOSTS];
	json_t *by, *all, *leaf, *sp, *pe, *at;

	hosts_run(dir, truth);

	/* each host's row: its per-eval, its evaluations (the program's own) */
	by = harness_report(dir, (const char *[]){"--by", "host", NULL});
	cr_expect_str_eq(json_string_value(json_object_get(by, "by")), "host");
	cr_expect_eq(json_array_size(json_object_get(by, "groups")), HOSTS);
	for (int h = 0; h < HOSTS; h++) {
		json_t *d = group_decl(by, "leaf", hosts[h]);

		cr_assert_not_null(d, "no leaf row of host %s", hosts[h]);
		cr_expect_eq(harness_int(d, "per_eval"), per_eval_of[h], "%s", hosts[h]);
		cr_expect_eq(harness_int(d, "evaluations"), truth[h], "%s", hosts[h]);
		cr_expect_eq(harness_int(d, "cost"), per_eval_of[h] * truth[h], "%s", hosts[h]);
		cr_expect_eq(json_array_size(json_object_get(d, "flags")), 0, "%s", hosts[h]);
	}
	text = report_out((const char *[]){"--by", "host", dir, NULL});
	cr_expect_not_null(strstr(text, "by host      4 hosts: "), "%s", text);
	for (int h = 0; h < HOSTS; h++) {
		char line[256], *c[8];
		int n;

		snprintf(want, sizeof(want), "\nfunction  %-5s  leaf@work ", hosts[h]);
		cr_assert_not_null(strstr(text, want), "no \"%s\" in\n%s", want, text);
		snprintf(line, sizeof(line), "%s", strstr(text, want) + 1);
		*strchrnul(line, '\n') = '\0';
		/* kind, host, declaration, evaluations, per-eval ... */
		n = text_cells(line, c, 8);
		cr_assert_geq(n, 5, "%s", line);
		cr_expect_str_eq(c[3], "1,000", "%s", line);
		cr_expect_eq(atol(c[4]), per_eval_of[h], "%s", line);
	}

	/* merged: leaf flagged, the spread naming delta */
	all = harness_report(dir, NULL);
	leaf = harness_decl(all, "leaf");
	cr_assert_not_null(leaf);
	cr_expect_eq(harness_int(leaf, "evaluations"), 4 * CALLS);
	cr_expect_eq(harness_int(leaf, "per_eval"), 100, "the merged per-eval is the least");
	cr_expect(has_flag(leaf, "imbalance"), "leaf not flagged imbalance");
	sp = json_object_get(leaf, "spread");
	pe = json_object_get(sp, "per_eval");
	at = json_object_get(pe, "greatest_at");
	cr_expect_eq(harness_int(sp, "processes"), HOSTS);
	cr_expect_eq(harness_int(pe, "least"), 100);
	cr_expect_eq(harness_int(pe, "median"), 100);
	cr_expect_eq(harness_int(pe, "greatest"), 200);
	cr_expect_str_eq(json_string_value(json_object_get(at, "host")), "delta");
	cr_expect_eq(harness_int(sp, "per_eval_margin"), 0, "var: is deterministic");
	free(text);
	text = report_out((const char *[]){dir, NULL});
	snprintf(want, sizeof(want),
		 "    4 processes  per-eval least 100  median 100  greatest 200 (host delta, pid "
		 "%lld), margin 0",
		 harness_int(at, "pid"));
	cr_expect_not_null(strstr(text, want), "no \"%s\" in\n%s", want, text);

	/* CSV: the same, merged and by host */
	csv = report_out((const char *[]){"--format", "csv", dir, NULL});
	csv_field(csv, "function,leaf,work,", "flags", cell, sizeof(cell));
	cr_expect_not_null(strstr(cell, "imbalance"), "%s", csv);
	csv_field(csv, "function,leaf,work,", "per_eval_greatest", cell, sizeof(cell));
	cr_expect_str_eq(cell, "200");
	csv_field(csv, "function,leaf,work,", "per_eval_greatest_host", cell, sizeof(cell));
	cr_expect_str_eq(cell, "delta");
	csv_field(csv, "function,leaf,work,", "per_eval_median", cell, sizeof(cell));
	cr_expect_str_eq(cell, "100");
	free(csv);
	csv = report_out((const char *[]){"--format", "csv", "--by", "host", dir, NULL});
	for (int h = 0; h < HOSTS; h++) {
		snprintf(want, sizeof(want), "function,leaf,work,%d,%ld,", CALLS, per_eval_of[h]);
		cr_expect_not_null(strstr(csv, want), "no %s in %s", want, csv);
		/* the group: after the flags and observed_share, before the spread */
		snprintf(want, sizeof(want), ",%s,1,1,%ld,%s,", hosts[h], per_eval_of[h], hosts[h]);
		cr_expect_not_null(strstr(csv, want), "no %s in %s", want, csv);
	}
	cr_expect_not_null(strstr(csv, ",group,processes,"), "%s", csv);
	free(csv);
	free(text);
	json_decref(by);
	json_decref(all);
	harness_rmdir(dir);
}

/* go tool pprof with a HOME and a build cache of its own, in @home: its result. */
static void go_pprof(const char *home, const char *const *args, struct run_result *r)
{
	const char *argv[16] = {"go", "tool", "pprof"};
	char *homev, *cache;
	int n = 3;

	cr_assert(asprintf(&homev, "HOME=%s", home) > 0);
	cr_assert(asprintf(&cache, "GOCACHE=%s/cache", home) > 0);
	const char *env[] = {homev, cache, "GOFLAGS=", "GOTOOLCHAIN=local", NULL};

	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	harness_run(argv, env, r);
	cr_assert_eq(r->status, 0, "go tool pprof: %s", r->err);
	free(homev);
	free(cache);
}

/* The flat value of function @fn in go tool pprof -top's @out ("200000units 13.33% ... leaf"). */
static long long top_flat(const char *out, const char *fn)
{
	const char *line = out;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line), k = strlen(fn);

		if (n > k && !strncmp(line + n - k, fn, k) && line[n - k - 1] == ' ')
			return atoll(line);
		line = end ? end + 1 : NULL;
	}
	return -1;
}

Test(fleet, pprof_labels_slice_the_fleet_as_by_host, .timeout = 300)
{
	char *dir = harness_tmpdir("fleet-pprof"), *home = harness_tmpdir("fleet-gohome");
	char *pb, *pb_host;
	long long truth[HOSTS];
	struct run_result r;
	json_t *by;

	hosts_run(dir, truth);
	by = harness_report(dir, (const char *[]){"--by", "host", NULL});
	cr_assert(asprintf(&pb, "%s/by-process.pb.gz", home) > 0);
	cr_assert(asprintf(&pb_host, "%s/by-host.pb.gz", home) > 0);
	free(report_out(
		(const char *[]){"--format", "pprof", "--by", "process", "-o", pb, dir, NULL}));
	free(report_out(
		(const char *[]){"--format", "pprof", "--by", "host", "-o", pb_host, dir, NULL}));

	/* every label, every host */
	go_pprof(home, (const char *[]){"-tags", pb, NULL}, &r);
	for (size_t i = 0; i < 4; i++) {
		static const char *const keys[] = {" host:", " pid:", " executable:", " build_id:"};

		cr_expect_not_null(strstr(r.out, keys[i]), "no %s label in\n%s", keys[i], r.out);
	}
	for (int h = 0; h < HOSTS; h++)
		cr_expect_not_null(strstr(r.out, hosts[h]), "no host %s in\n%s", hosts[h], r.out);
	harness_free(&r);

	/* -tagfocus host=H: that host's figures, as report --by host has them */
	for (int h = 0; h < HOSTS; h++) {
		json_t *d = group_decl(by, "leaf", hosts[h]);
		char focus[64];

		snprintf(focus, sizeof(focus), "host=%s", hosts[h]);
		for (int f = 0; f < 2; f++) {
			const char *file = f ? pb_host : pb;

			go_pprof(home,
				 (const char *[]){"-top", "-sample_index=cost", "-tagfocus", focus,
						  file, NULL},
				 &r);
			cr_expect_eq(top_flat(r.out, "leaf"), harness_int(d, "cost"), "%s %s:\n%s",
				     file, focus, r.out);
			harness_free(&r);
			go_pprof(home,
				 (const char *[]){"-top", "-sample_index=evaluations", "-tagfocus",
						  focus, file, NULL},
				 &r);
			cr_expect_eq(top_flat(r.out, "leaf"), harness_int(d, "evaluations"),
				     "%s %s:\n%s", file, focus, r.out);
			harness_free(&r);
		}
	}
	json_decref(by);
	free(pb);
	free(pb_host);
	harness_rmdir(home);
	harness_rmdir(dir);
}

/* ---- MPI ---------------------------------------------------------------- */

#define RANKS	   4
#define MPI_N	   "1000"
#define SLOW	   2
#define SLOW_TIMES 3

/* Whether this machine runs the MPI cases: Open MPI's mpirun, and mpi_work built. */
static bool mpi_here(void)
{
	const char *t = getenv("MPI_WORK_TARGET");

	return t && *t && !access(t, X_OK) && !access("/usr/bin/mpirun", X_OK);
}

/* "mpi-truth: RANK step CALLS" lines of @err into @calls[RANK]; how many. */
static int mpi_truth(const char *err, long long calls[RANKS])
{
	const char *p = err;
	int n = 0;

	for (int i = 0; i < RANKS; i++)
		calls[i] = -1;
	while ((p = strstr(p, "mpi-truth: "))) {
		int rank;
		long long c;

		p += strlen("mpi-truth: ");
		if (sscanf(p, "%d step %lld", &rank, &c) == 2 && rank >= 0 && rank < RANKS) {
			calls[rank] = c;
			n++;
		}
	}
	return n;
}

/*
 * mpi_work under mpirun -np 4 (and @mpirun_extra), the shim in its ranks
 * only (-x), with EXTPROF_MPI=@mode and the ranks' args @tail.  Its
 * elapsed seconds into *@secs.
 */
static void mpi_run(const char *dir, const char *mode, const char *timeout,
		    const char *const *mpirun_extra, const char *const *tail, struct run_result *r,
		    double *secs)
{
	const char *argv[48] = {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4"};
	char *x[6];
	struct run_opts o = {.timeout_s = 240};
	struct timespec a, b;
	int n = 5, k = 0;

	cr_assert(asprintf(&x[k++], "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	cr_assert(asprintf(&x[k++], "EXTPROF_DIR=%s", dir) > 0);
	cr_assert(asprintf(&x[k++], "EXTPROF_MPI=%s", mode) > 0);
	cr_assert(asprintf(&x[k++], "EXTPROF_MPI_TIMEOUT=%s", timeout) > 0);
	x[k++] = strdup("EXTPROF_HOOKS=function:step");
	x[k++] = strdup("EXTPROF_COUNTER=var:mpi_units");
	for (int i = 0; mpirun_extra && mpirun_extra[i]; i++)
		argv[n++] = mpirun_extra[i];
	for (int i = 0; i < k; i++) {
		argv[n++] = "-x";
		argv[n++] = x[i];
	}
	argv[n++] = harness_path("MPI_WORK_TARGET");
	argv[n++] = MPI_N;
	argv[n++] = "10";
	for (int i = 0; tail[i]; i++)
		argv[n++] = tail[i];
	argv[n] = NULL;
	clock_gettime(CLOCK_MONOTONIC, &a);
	harness_run_with(argv, NULL, &o, r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	cr_assert(!r->timed_out, "mpirun hung: %s", r->err);
	for (int i = 0; i < k; i++)
		free(x[i]);
}

/* The rows of step in a report --by rank: each rank's evaluations, against the ranks' own. */
static void expect_ranks(json_t *by, const long long calls[RANKS], const char *what)
{
	for (int i = 0; i < RANKS; i++) {
		char g[8];
		json_t *d;

		snprintf(g, sizeof(g), "%d", i);
		d = group_decl(by, "step", g);
		cr_assert_not_null(d, "%s: no row of rank %d", what, i);
		cr_expect_eq(harness_int(d, "evaluations"), calls[i], "%s: rank %d", what, i);
		cr_expect_eq(harness_int(d, "per_eval"), 10, "%s: rank %d", what, i);
	}
}

struct names {
	char *v[16];
	int n;
};

static void name_add(const char *dir, const char *name, void *arg)
{
	struct names *l = arg;

	if (l->n < 16)
		cr_assert(asprintf(&l->v[l->n++], "%s/%s", dir, name) > 0);
}

/* `extprof report --format json ARGS...`, its "declarations", serialized. */
static char *decls_of(const char *const *args, char **err)
{
	const char *argv[24] = {harness_path("EXTPROF_BIN"), "report", "--format", "json"};
	struct run_result r;
	json_t *root;
	char *s;
	int n = 4;

	for (int i = 0; args[i] && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	harness_run(argv, NULL, &r);
	root = harness_json(&r, 0, "extprof report");
	s = json_dumps(json_object_get(root, "declarations"), JSON_SORT_KEYS | JSON_COMPACT);
	cr_expect_eq(harness_int(root, "processes"), RANKS);
	if (err) {
		*err = r.err;
		r.err = NULL;
	}
	json_decref(root);
	harness_free(&r);
	return s;
}

Test(fleet, mpi_job_file_is_the_ranks_files_exactly, .timeout = 300)
{
	char *dir = harness_tmpdir("fleet-mpi"), *from_job, *from_ranks, *from_both, *err;
	struct names jobs = {{0}, 0}, ranks = {{0}, 0};
	const char *args[24];
	long long calls[RANKS];
	struct run_result r;
	json_t *by, *all, *ev;
	double secs;
	int n = 0;

	if (!mpi_here())
		cr_skip_test("no Open MPI here (mpirun, tests/targets/mpi_work)");
	mpi_run(dir, "keep", "60", NULL, (const char *[]){"2", "3", NULL}, &r, &secs);
	cr_assert_eq(r.status, 0, "mpirun: %s", r.err);
	cr_assert_eq(mpi_truth(r.err, calls), RANKS, "%s", r.err);
	cr_expect_eq(calls[SLOW], SLOW_TIMES * calls[0]);
	cr_expect_not_null(strstr(r.err, "extprof: MPI_Finalize: the dumps of 4 ranks are in "),
			   "%s", r.err);
	harness_free(&r);
	cr_assert_eq(harness_each_file(dir, ".job.xpd", name_add, &jobs), 1, "one job file");
	cr_assert_eq(harness_each_file(dir, ".w000.xpd", name_add, &ranks), RANKS,
		     "the ranks' files, kept");

	/* --by rank of the job's file: rank 2's three times the calls */
	by = harness_report(jobs.v[0], (const char *[]){"--by", "rank", NULL});
	expect_ranks(by, calls, "the job's file");
	/* merged: step flagged, rank 2 named for its evaluations */
	all = harness_report(jobs.v[0], NULL);
	ev = json_object_get(json_object_get(harness_decl(all, "step"), "spread"), "evaluations");
	cr_expect(has_flag(harness_decl(all, "step"), "imbalance"), "step not flagged imbalance");
	cr_expect_eq(harness_int(ev, "greatest"), calls[SLOW]);
	cr_expect_eq(harness_int(json_object_get(ev, "greatest_at"), "rank"), SLOW);

	/* the job's file reports exactly as the ranks' own files */
	for (int b = 0; b < 2; b++) {
		const char *by_args[] = {"--by", "rank"};

		n = 0;
		if (b) {
			args[n++] = by_args[0];
			args[n++] = by_args[1];
		}
		args[n] = jobs.v[0];
		args[n + 1] = NULL;
		from_job = decls_of(args, NULL);
		for (int i = 0; i < ranks.n; i++)
			args[n + i] = ranks.v[i];
		args[n + ranks.n] = NULL;
		from_ranks = decls_of(args, NULL);
		cr_expect_str_eq(from_job, from_ranks);
		/* both in one directory: each rank read once, said on stderr */
		args[n] = dir;
		args[n + 1] = NULL;
		from_both = decls_of(args, &err);
		cr_expect_str_eq(from_both, from_ranks);
		cr_expect_not_null(strstr(err, "4 of its 4 dumps were read already"), "%s", err);
		free(err);
		free(from_job);
		free(from_ranks);
		free(from_both);
	}
	for (int i = 0; i < jobs.n; i++)
		free(jobs.v[i]);
	for (int i = 0; i < ranks.n; i++)
		free(ranks.v[i]);
	json_decref(by);
	json_decref(all);
	harness_rmdir(dir);
}

Test(fleet, mpi_job_leaves_one_file, .timeout = 300)
{
	char *dir = harness_tmpdir("fleet-mpi1");
	long long calls[RANKS];
	struct run_result r;
	json_t *by;
	double secs;

	if (!mpi_here())
		cr_skip_test("no Open MPI here (mpirun, tests/targets/mpi_work)");
	mpi_run(dir, "1", "60", NULL, (const char *[]){"2", "3", NULL}, &r, &secs);
	cr_assert_eq(r.status, 0, "mpirun: %s", r.err);
	cr_assert_eq(mpi_truth(r.err, calls), RANKS, "%s", r.err);
	harness_free(&r);
	cr_expect_eq(harness_count_files(dir, ".xpd"), 1, "one file for the job");
	cr_expect_eq(harness_count_files(dir, ".job.xpd"), 1);
	by = harness_report(dir, (const char *[]){"--by", "rank", NULL});
	expect_ranks(by, calls, "the job's one file");
	cr_expect(json_is_true(json_object_get(by, "complete")));
	json_decref(by);
	harness_rmdir(dir);
}

/*
 * After a run where rank 1 was killed: no job file, each rank's own file,
 * every rank's counts (the program's own), rank 1's from its live dump.
 */
static void expect_killed_rank_counted(const char *dir, const long long calls[RANKS])
{
	json_t *by;

	cr_expect_eq(harness_count_files(dir, ".job.xpd"), 0, "no job file");
	cr_expect_eq(harness_count_files(dir, ".xpd"), RANKS, "the ranks' own files");
	by = harness_report(dir, (const char *[]){"--by", "rank", NULL});
	expect_ranks(by, calls, "a rank killed");
	cr_expect_eq(json_array_size(json_object_get(by, "incomplete_pids")), 1,
		     "the killed rank's dump, live");
	json_decref(by);
}

/*
 * Rank 1 dies (SIGKILL) before MPI_Finalize, 2 s after its work, when the
 * others are in MPI_Finalize already, their dumps finished: mpirun ends the
 * job (Open MPI's default), and every rank's counts are there, rank 1's
 * from its live dump.
 */
Test(fleet, mpi_killed_rank_job_aborted_keeps_every_count, .timeout = 300)
{
	char *dir = harness_tmpdir("fleet-mpikill");
	long long calls[RANKS];
	struct run_result r;
	double secs;

	if (!mpi_here())
		cr_skip_test("no Open MPI here (mpirun, tests/targets/mpi_work)");
	mpi_run(dir, "1", "60", NULL, (const char *[]){"2", "3", "1", "2000", NULL}, &r, &secs);
	cr_expect_neq(r.status, 0, "mpirun ends a job whose rank was killed");
	cr_assert_eq(mpi_truth(r.err, calls), RANKS, "%s", r.err);
	harness_free(&r);
	expect_killed_rank_counted(dir, calls);
	harness_rmdir(dir);
}

/*
 * The same with --enable-recovery, where Open MPI lets the others go on:
 * they wait for rank 1 in the job's merge no longer than
 * EXTPROF_MPI_TIMEOUT (3 s), keep their own files, and end.
 */
Test(fleet, mpi_killed_rank_with_recovery_gives_up_at_the_timeout, .timeout = 300)
{
	char *dir = harness_tmpdir("fleet-mpirec");
	long long calls[RANKS];
	struct run_result r;
	const char *p;
	double secs;
	int gave_up = 0;

	if (!mpi_here())
		cr_skip_test("no Open MPI here (mpirun, tests/targets/mpi_work)");
	mpi_run(dir, "1", "3", (const char *[]){"--enable-recovery", NULL},
		(const char *[]){"2", "3", "1", "100", NULL}, &r, &secs);
	cr_assert_eq(mpi_truth(r.err, calls), RANKS, "%s", r.err);
	for (p = r.err; (p = strstr(p, "within EXTPROF_MPI_TIMEOUT; it keeps its own dumps")); p++)
		gave_up++;
	cr_expect_eq(gave_up, RANKS - 1, "each rank left gives the merge up: %s", r.err);
	/* the work, the timeout and mpirun's own start and end: far below a hang */
	cr_expect_lt(secs, 3 + 60, "mpirun took %.1f s", secs);
	harness_free(&r);
	expect_killed_rank_counted(dir, calls);
	harness_rmdir(dir);
}
