// SPDX-License-Identifier: MIT
/*
 * Unit tests of what a fleet's dumps go through: --by's groups, the spread
 * of a declaration over its processes and the imbalance flag, the merge a
 * process at a time (a bounded window of open processes, a process whose
 * dumps are far apart refused), quoted globs, and the file of an MPI job
 * (read a dump at a time; each defect one line).  Dumps are made with the
 * shim's own writer (helpers.c); job files are laid out here, as
 * preload/store/mpi_job.c lays them out, from real dumps.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "model/load.h"
#include "read/job.h"
#include "report/report.h"

TestSuite(fleet, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 60);

static const struct dump_decl_info decl = {"function", "f", "checker", 0x10};

/* A process's dump @name: on @host, pid @pid, rank @rank of @size (0: none), @n calls of @delta. */
static void proc_dump(const char *name, const char *host, uint64_t pid, uint32_t rank,
		      uint32_t size, uint64_t delta, uint64_t n, uint32_t worker)
{
	char *path = xt_path(xt_dir, name);
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, 0, pid, pid * 1000);
	strcpy(meta.hostname, host);
	meta.rank = rank;
	meta.job_size = size;
	xt_create(&m, path, &meta, &decl, 1, worker);
	xt_record(&m, 0, delta, n);
	xt_finish(&m, true);
	free(path);
}

/* extprof with @argv: its exit status (it must not die). */
static int run(const char *const *argv, char **out, char **err)
{
	int status = xt_run(argv, NULL, out, err);

	cr_assert(WIFEXITED(status), "extprof died: status %d", status);
	return WEXITSTATUS(status);
}

/* The load's sink: each process into the report @arg. */
static int report_sink(void *arg, const struct xp_proc *p, struct xp_err *e)
{
	return xp_report_add(arg, p, e);
}

static void report_of(struct xp_report *r, const struct xp_report_opts *o, const char *const *args)
{
	struct xp_report_opts d;
	struct xp_load l;
	struct xp_err e = {""};

	if (!o) {
		xp_report_opts_init(&d);
		o = &d;
	}
	xp_load_init(&l, false);
	xp_report_begin(r, o);
	xp_load_stream(&l, report_sink, r);
	for (int i = 0; args[i]; i++)
		cr_assert_eq(xp_load_arg(&l, args[i], &e), 0, "%s", e.msg);
	cr_assert_eq(xp_load_finish(&l, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_report_end(r, l.skipped, &e), 0, "%s", e.msg);
	xp_load_free(&l);
}

static const struct xp_row *row_of(const struct xp_report *r, const char *group)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!group || (r->rows[i].group && !strcmp(r->rows[i].group, group)))
			return &r->rows[i];
	return NULL;
}

Test(fleet, by_host_rows_and_the_spread_over_processes)
{
	struct xp_report_opts o;
	struct xp_report r;
	const struct xp_row *f;

	proc_dump("a.xpd", "alpha", 1, 0, 0, 100, 10, 0);
	proc_dump("b.xpd", "beta", 2, 0, 0, 100, 20, 0);
	proc_dump("c.xpd", "gamma", 3, 0, 0, 130, 30, 0);
	proc_dump("d.xpd", "gamma", 4, 0, 0, 250, 40, 0);
	xp_report_opts_init(&o);
	o.by = XP_BY_HOST;
	report_of(&r, &o, (const char *[]){xt_dir, NULL});
	cr_assert_eq(r.nrows, 3);
	cr_assert_eq(r.ngroups, 3);
	cr_expect_str_eq(r.groups[2], "gamma");
	f = row_of(&r, "gamma");
	cr_assert_not_null(f);
	/* gamma: two processes, the least floor, their evaluations added */
	cr_expect_eq(f->per_eval, 130);
	cr_expect_eq(f->fin.evaluations, 70);
	cr_expect_eq(f->spread.processes, 2);
	cr_expect_eq(f->spread.per_eval_hi.value, 250);
	cr_expect_eq(f->spread.per_eval_hi.who.pid, 4);
	cr_expect(f->flags & (1u << XP_FLAG_IMBALANCE), "250 against 130, deterministic");
	cr_expect_eq(r.group_totals[2], 2 * (130 * 30 + 250 * 40), "xt_record: 2 x delta a call");
	f = row_of(&r, "alpha");
	cr_expect_eq(f->spread.processes, 1);
	cr_expect_not(f->flags & (1u << XP_FLAG_IMBALANCE));
	xp_report_free(&r);

	/* merged: least 100, median 100 (the lower middle of four), greatest 250 */
	report_of(&r, NULL, (const char *[]){xt_dir, NULL});
	cr_assert_eq(r.nrows, 1);
	f = &r.rows[0];
	cr_expect_eq(f->spread.processes, 4);
	cr_expect_eq(f->spread.per_eval_lo.value, 100);
	cr_expect_str_eq(f->spread.per_eval_lo.who.host, "alpha");
	cr_expect_eq(xp_spread_median(&f->spread.per_eval), 100);
	cr_expect_eq(f->spread.per_eval_hi.value, 250);
	cr_expect_str_eq(f->spread.per_eval_hi.who.host, "gamma");
	cr_expect_eq(f->spread.evaluations_lo.value, 10);
	cr_expect_eq(xp_spread_median(&f->spread.evaluations), 20);
	cr_expect_eq(f->spread.evaluations_hi.value, 40);
	cr_expect(f->flags & (1u << XP_FLAG_IMBALANCE));
	cr_expect_not(f->spread.ranks);
	xp_report_free(&r);

	/* a greatest under (1 + --flag-ratio) x the least is no imbalance */
	xp_report_opts_init(&o);
	o.flag_ratio = 2.0;
	report_of(&r, &o, (const char *[]){xt_dir, NULL});
	cr_expect_not(r.rows[0].flags & (1u << XP_FLAG_IMBALANCE));
	xp_report_free(&r);
}

/* For the ranks of a job, evaluations that differ are an imbalance too; --by rank. */
Test(fleet, ranks_evaluations_and_by_rank)
{
	struct xp_report_opts o;
	struct xp_report r;
	const struct xp_row *f;

	for (uint32_t k = 0; k < 4; k++) {
		char name[16];

		snprintf(name, sizeof(name), "r%u.xpd", k);
		proc_dump(name, "node", 10 + k, k, 4, 50, k == 2 ? 300 : 100, 0);
	}
	proc_dump("plain.xpd", "node", 99, 0, 0, 50, 100, 0);
	xp_report_opts_init(&o);
	o.by = XP_BY_RANK;
	report_of(&r, &o, (const char *[]){xt_dir, NULL});
	cr_assert_eq(r.nrows, 5);
	cr_expect_eq(row_of(&r, "2")->fin.evaluations, 300);
	cr_expect_eq(row_of(&r, "0")->fin.evaluations, 100);
	cr_expect_eq(row_of(&r, "-")->fin.evaluations, 100, "the process of no job");
	xp_report_free(&r);

	/* the ranks alone: rank 2's calls flag it */
	xt_dir_fini();
	xt_dir_init();
	for (uint32_t k = 0; k < 4; k++) {
		char name[16];

		snprintf(name, sizeof(name), "r%u.xpd", k);
		proc_dump(name, "node", 10 + k, k, 4, 50, k == 2 ? 300 : 100, 0);
	}
	report_of(&r, NULL, (const char *[]){xt_dir, NULL});
	f = &r.rows[0];
	cr_expect(f->spread.ranks);
	cr_expect_eq(f->spread.evaluations_hi.who.rank, 2);
	cr_expect(f->flags & (1u << XP_FLAG_IMBALANCE));
	xp_report_free(&r);
}

/* Spreads merge as if every process had gone into one; past the limit, to buckets. */
Test(fleet, spreads_merge_and_keep_to_buckets)
{
	struct xp_spread a = {0}, b = {0}, all = {0};
	struct xp_who w = {"h", 1, -1};

	for (uint64_t i = 1; i <= 3 * XP_SPREAD_EXACT; i++) {
		struct xp_spread *half = i % 2 ? &a : &b;

		w.pid = i;
		cr_assert_eq(xp_spread_add_process(half, true, 1000 + i, 0, i, &w), 0);
		cr_assert_eq(xp_spread_add_process(&all, true, 1000 + i, 0, i, &w), 0);
	}
	cr_assert_eq(xp_spread_add(&a, &b), 0);
	cr_expect(all.coarse && a.coarse);
	cr_expect_eq(a.processes, all.processes);
	cr_expect_eq(a.per_eval_lo.value, 1001);
	cr_expect_eq(a.per_eval_hi.value, 1000 + 3 * XP_SPREAD_EXACT);
	cr_expect_eq(a.per_eval_hi.who.pid, 3 * XP_SPREAD_EXACT);
	cr_expect_eq(xp_spread_median(&a.per_eval), xp_spread_median(&all.per_eval));
	/* the true median, 1000 + 6144, within 1 % */
	cr_expect_leq(xp_spread_median(&a.per_eval), 1000 + 3 * XP_SPREAD_EXACT / 2);
	cr_expect_geq(xp_spread_median(&a.per_eval) * 101, (1000 + 3 * XP_SPREAD_EXACT / 2) * 100);
	cr_expect_leq(a.per_eval.n, EXTPROF_HIST_BUCKETS);
	xp_spread_free(&a);
	xp_spread_free(&b);
	xp_spread_free(&all);
}

/* What the sink saw: the most processes the load held open at once. */
struct window {
	struct xp_load *l;
	struct xp_report *r;
	size_t most;
};

static int window_sink(void *arg, const struct xp_proc *p, struct xp_err *e)
{
	struct window *w = arg;

	if (w->l->set.n > w->most)
		w->most = w->l->set.n;
	return xp_report_add(w->r, p, e);
}

/* Forty processes of three workers: no more open at once than the window, and the same report. */
Test(fleet, streaming_holds_a_window_of_processes)
{
	struct xp_report_opts o;
	struct xp_report r, whole;
	struct xp_err e = {""};
	struct xp_load l;
	struct window w = {&l, &r, 0};

	for (uint64_t p = 0; p < 40; p++)
		for (uint32_t k = 0; k < 3; k++) {
			char name[32];

			snprintf(name, sizeof(name), "p%02llu.w%u.xpd", (unsigned long long)p, k);
			proc_dump(name, "node", 100 + p, 0, 0, 100 + p % 7 + k, 5 + k, k);
		}
	xp_report_opts_init(&o);
	xp_load_init(&l, false);
	xp_report_begin(&r, &o);
	xp_load_stream(&l, window_sink, &w);
	cr_assert_eq(xp_load_arg(&l, xt_dir, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_load_finish(&l, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_report_end(&r, 0, &e), 0, "%s", e.msg);
	xp_load_free(&l);
	cr_expect_leq(w.most, XP_LOAD_PENDING + 1);
	cr_expect_eq(r.processes, 40);
	cr_expect_eq(r.workers, 120);
	/* the same as every process kept, then reported */
	xp_load_init(&l, false);
	cr_assert_eq(xp_load_arg(&l, xt_dir, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_report_build(&whole, &l.set, &o, 0, &e), 0, "%s", e.msg);
	xp_load_free(&l);
	cr_assert_eq(whole.nrows, r.nrows);
	cr_expect_eq(whole.rows[0].per_eval, r.rows[0].per_eval);
	cr_expect_eq(whole.rows[0].fin.evaluations, r.rows[0].fin.evaluations);
	cr_expect_eq(whole.rows[0].fin.observed, r.rows[0].fin.observed);
	cr_expect_eq(whole.rows[0].p50, r.rows[0].p50);
	cr_expect_eq(whole.rows[0].p99, r.rows[0].p99);
	cr_expect_eq(whole.rows[0].fin.hits, r.rows[0].fin.hits);
	xp_report_free(&r);
	xp_report_free(&whole);
}

/* A process's dumps further apart than the window: refused, never merged twice. */
Test(fleet, dumps_of_a_process_far_apart_are_refused)
{
	const char *args[XP_LOAD_PENDING + 8];
	struct xp_report_opts o;
	struct xp_report r;
	struct xp_err e = {""};
	struct xp_load l;
	int n = 0, err = 0;

	proc_dump("first.w0.xpd", "node", 1, 0, 0, 100, 5, 0);
	proc_dump("first.w1.xpd", "node", 1, 0, 0, 100, 5, 1);
	args[n++] = xt_path(xt_dir, "first.w0.xpd");
	for (int p = 0; p < XP_LOAD_PENDING + 2; p++) {
		char name[32];

		snprintf(name, sizeof(name), "other%02d.xpd", p);
		proc_dump(name, "node", 100 + (uint64_t)p, 0, 0, 100, 5, 0);
		args[n++] = xt_path(xt_dir, name);
	}
	args[n++] = xt_path(xt_dir, "first.w1.xpd");
	xp_report_opts_init(&o);
	xp_load_init(&l, false);
	xp_report_begin(&r, &o);
	xp_load_stream(&l, report_sink, &r);
	for (int i = 0; i < n && !err; i++)
		err = xp_load_arg(&l, args[i], &e);
	cr_expect_neq(err, 0, "merged a process whose dumps were far apart");
	cr_expect_not_null(strstr(e.msg, "first.w1.xpd: a dump of process 1 on node, whose other "
					 "dumps were read more than 16 processes before"),
			   "%s", e.msg);
	xp_report_free(&r);
	xp_load_free(&l);
	for (int i = 0; i < n; i++)
		free((char *)args[i]);
}

/* A quoted glob is an operand: what it matches, in name order. */
Test(fleet, a_quoted_glob_reads_what_it_matches)
{
	char *pattern, *out, *err;

	proc_dump("a.xpd", "alpha", 1, 0, 0, 100, 10, 0);
	proc_dump("b.xpd", "beta", 2, 0, 0, 100, 20, 0);
	proc_dump("c.other", "gamma", 3, 0, 0, 100, 30, 0);
	cr_assert(asprintf(&pattern, "%s/*.xpd", xt_dir) > 0);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--by", "host", pattern, NULL}, &out, &err), 0,
		"%s", err);
	cr_expect_not_null(strstr(out, "by host      2 hosts: alpha, beta\n"), "%s", out);
	free(out);
	free(err);
	free(pattern);
	cr_assert(asprintf(&pattern, "%s/*.nothing", xt_dir) > 0);
	cr_expect_eq(run((const char *[]){"x", "report", pattern, NULL}, &out, &err), 2);
	cr_expect_not_null(strstr(err, "no such file or directory, and no file matches it"), "%s",
			   err);
	free(out);
	free(err);
	free(pattern);
}

/* ---- a job's file ---- */

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* A job's file of the dumps @names (in xt_dir), laid out as the shim lays it out: its size. */
static unsigned char *job_bytes(const char *const *names, int n, size_t *size)
{
	struct extprof_dump_rank ranks[8];
	unsigned char *dumps[8], *f;
	size_t sizes[8], at, bytes = 0;
	size_t ranks_off = ALIGN8(sizeof(struct extprof_dump_header) +
				  2 * sizeof(struct extprof_dump_section));
	size_t dumps_off = ALIGN8(ranks_off + (size_t)n * sizeof(struct extprof_dump_rank));
	struct extprof_dump_header *h;
	struct extprof_dump_section *sec;

	for (int i = 0; i < n; i++) {
		char *path = xt_path(xt_dir, names[i]);

		dumps[i] = xt_slurp(path, &sizes[i]);
		bytes += ALIGN8(sizes[i]);
		free(path);
	}
	*size = dumps_off + bytes;
	f = calloc(1, *size);
	cr_assert_not_null(f);
	at = dumps_off;
	for (int i = 0; i < n; i++) {
		const struct extprof_dump_header *d = (const void *)dumps[i];

		memset(&ranks[i], 0, sizeof(ranks[i]));
		ranks[i].rank = d->job_size ? d->rank : 0;
		ranks[i].worker = d->worker;
		ranks[i].pid = d->pid;
		ranks[i].process_id = d->process_id;
		ranks[i].offset = at;
		ranks[i].size = sizes[i];
		strcpy(ranks[i].hostname, d->hostname);
		memcpy(f + at, dumps[i], sizes[i]);
		at += ALIGN8(sizes[i]);
	}
	memcpy(f + ranks_off, ranks, (size_t)n * sizeof(ranks[0]));
	h = (struct extprof_dump_header *)f;
	memcpy(h, dumps[0], sizeof(*h));
	h->flags = EXTPROF_DUMP_F_JOB | EXTPROF_DUMP_F_COMPLETE;
	h->nsections = 2;
	h->file_size = *size;
	h->job_size = 4;
	sec = (struct extprof_dump_section *)(h + 1);
	sec[0] = (struct extprof_dump_section){
		EXTPROF_SECTION_RANKS, sizeof(struct extprof_dump_rank), ranks_off, (uint64_t)n};
	sec[1] = (struct extprof_dump_section){EXTPROF_SECTION_DUMPS, 1, dumps_off, bytes};
	for (int i = 0; i < n; i++)
		free(dumps[i]);
	return f;
}

static void job_ranks(void)
{
	for (uint32_t k = 0; k < 4; k++) {
		char name[16];

		snprintf(name, sizeof(name), "r%u.xpd", k);
		proc_dump(name, "node", 10 + k, k, 4, 50, k == 2 ? 300 : 100, 0);
	}
}

static const char *const job_names[] = {"r0.xpd", "r1.xpd", "r2.xpd", "r3.xpd"};

/* `extprof report --format json ARGS`: its stdout (status asserted 0). */
static char *report_json(const char *const *args)
{
	const char *argv[16] = {"x", "report", "--format", "json", "--by", "rank"};
	char *out, *err;
	int n = 6;

	for (int i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	cr_assert_eq(run(argv, &out, &err), 0, "%s", err);
	free(err);
	return out;
}

/* The "declarations" of a JSON report, as a string. */
static char *decls_part(char *json)
{
	char *p = strstr(json, "\"declarations\"");

	cr_assert_not_null(p, "%s", json);
	return p;
}

Test(fleet, a_job_file_reads_as_its_dumps)
{
	char *job = xt_path(xt_dir, "job.xpd"), *a, *b, *files[4], *out, *err;
	unsigned char *bytes;
	size_t size;
	struct xp_job j;
	struct xp_err e = {""};

	job_ranks();
	bytes = job_bytes(job_names, 4, &size);
	for (int i = 0; i < 4; i++)
		files[i] = xt_path(xt_dir, job_names[i]);
	a = report_json((const char *[]){files[0], files[1], files[2], files[3], NULL});
	for (int i = 0; i < 4; i++)
		unlink(files[i]);
	xt_spit(job, bytes, size);
	cr_assert_eq(xp_job_open(&j, AT_FDCWD, job, job, false, &e), 0, "%s", e.msg);
	cr_expect_eq(j.n, 4);
	xp_job_close(&j);
	b = report_json((const char *[]){job, NULL});
	cr_expect_str_eq(decls_part(b), decls_part(a));
	/* extprof dump: the job's header and its table */
	cr_assert_eq(run((const char *[]){"x", "dump", job, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(strstr(out, " job\n"), "%s", out);
	cr_expect_not_null(strstr(out, "ranks: 4 dumps\n"), "%s", out);
	free(out);
	free(err);
	free(a);
	free(b);
	free(bytes);
	for (int i = 0; i < 4; i++)
		free(files[i]);
	free(job);
}

/* A damaged job's file: one line naming it, exit status 2. */
struct job_damage {
	const char *why;
	void (*damage)(unsigned char *b, size_t size);
};

static struct extprof_dump_rank *rank_at(unsigned char *b, int i)
{
	struct extprof_dump_section *sec =
		(struct extprof_dump_section *)(b + sizeof(struct extprof_dump_header));

	return (struct extprof_dump_rank *)(b + sec[0].offset) + i;
}

static void d_unaligned(unsigned char *b, size_t size)
{
	(void)size;
	rank_at(b, 1)->offset += 4;
}

static void d_overlap(unsigned char *b, size_t size)
{
	(void)size;
	rank_at(b, 1)->offset = rank_at(b, 0)->offset;
}

static void d_past_end(unsigned char *b, size_t size)
{
	(void)size;
	rank_at(b, 3)->size += 4096;
}

static void d_host(unsigned char *b, size_t size)
{
	(void)size;
	memset(rank_at(b, 2)->hostname, 'x', sizeof(rank_at(b, 2)->hostname));
}

static void d_disagree(unsigned char *b, size_t size)
{
	(void)size;
	rank_at(b, 2)->pid = 9999;
}

static void d_sections(unsigned char *b, size_t size)
{
	(void)size;
	((struct extprof_dump_header *)b)->nsections = 3;
}

static void d_file_size(unsigned char *b, size_t size)
{
	((struct extprof_dump_header *)b)->file_size = size + 8;
}

static void d_inner(unsigned char *b, size_t size)
{
	(void)size;
	((struct extprof_dump_header *)(b + rank_at(b, 1)->offset))->magic[0] = 'Y';
}

static void d_rank(unsigned char *b, size_t size)
{
	(void)size;
	rank_at(b, 0)->rank = 7;
}

static const struct job_damage damages[] = {
	{"is not inside DUMPS", d_unaligned},
	{"is not inside DUMPS", d_overlap},
	{"is not inside DUMPS", d_past_end},
	{"ranks[2].hostname is not NUL-terminated", d_host},
	{"(pid 9999 on node) says it is worker 0 of pid 12", d_disagree},
	{"nsections 3, a job file has 2", d_sections},
	{"truncated", d_file_size},
	{"not an extprof dump (bad magic)", d_inner},
	{"ranks[0]: rank 7 of a job of 4", d_rank},
};

Test(fleet, a_damaged_job_file_is_one_line_and_exit_2)
{
	char *job = xt_path(xt_dir, "job.xpd");
	unsigned char *good;
	size_t size;

	job_ranks();
	good = job_bytes(job_names, 4, &size);
	for (int i = 0; i < 4; i++) {
		char *path = xt_path(xt_dir, job_names[i]);

		unlink(path);
		free(path);
	}
	for (size_t k = 0; k < sizeof(damages) / sizeof(damages[0]); k++) {
		unsigned char *b = xt_memdup(good, size);
		char *out, *err;

		damages[k].damage(b, size);
		xt_spit(job, b, size);
		cr_expect_eq(
			run((const char *[]){"x", "report", "--strict", job, NULL}, &out, &err), 2,
			"%s: accepted", damages[k].why);
		cr_expect_not_null(strstr(err, damages[k].why), "%s: %s", damages[k].why, err);
		cr_expect_not_null(strstr(err, job), "%s does not name the file", err);
		cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "not one line: %s", err);
		free(out);
		free(err);
		free(b);
	}
	free(good);
	free(job);
}

/* diff --by host: each host against itself, the one that got slower found. */
Test(fleet, diff_by_host_compares_host_by_host)
{
	char *base = xt_tmpdir(), *next = xt_tmpdir(), *out, *err, *saved = xt_dir;

	xt_dir = base;
	proc_dump("a.xpd", "alpha", 1, 0, 0, 100, 10, 0);
	proc_dump("b.xpd", "beta", 2, 0, 0, 100, 10, 0);
	xt_dir = next;
	proc_dump("a.xpd", "alpha", 3, 0, 0, 100, 10, 0);
	proc_dump("b.xpd", "beta", 4, 0, 0, 200, 10, 0);
	xt_dir = saved;
	cr_assert_eq(run((const char *[]){"x", "diff", "--by", "host", "--format", "csv",
					  "--fail-above", "50", base, next, NULL},
			 &out, &err),
		     1, "%s", err);
	cr_expect_not_null(strstr(out, ",cost_real,group\r\n"), "%s", out);
	cr_expect_not_null(strstr(out, "function,f,checker,changed,100,200,100.0000,"), "%s", out);
	cr_expect_not_null(strstr(out, ",true,false,true,beta\r\n"), "%s", out);
	cr_expect_not_null(strstr(out, "function,f,checker,same,100,100,0.0000,"), "%s", out);
	cr_expect_not_null(strstr(out, ",false,false,false,alpha\r\n"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "diff", base, next, NULL}, &out, &err), 0, "%s",
		     err);
	cr_expect_not_null(strstr(out, "kind      declaration"), "merged without --by: %s", out);
	free(out);
	free(err);
	xt_dir = base;
	xt_dir_fini();
	xt_dir = next;
	xt_dir_fini();
	xt_dir = saved;
}

/*
 * The other formats with --by: each group a frame under the root, with its
 * rows under it and its own (not hooked), adding up to its run total.
 */
Test(fleet, by_host_stacks_have_a_frame_per_host)
{
	char *out, *err;

	proc_dump("a.xpd", "alpha", 1, 0, 0, 100, 10, 0);
	proc_dump("b.xpd", "beta", 2, 0, 0, 250, 10, 0);
	cr_assert_eq(run((const char *[]){"x", "report", "--format", "folded", "--by", "host",
					  xt_dir, NULL},
			 &out, &err),
		     0, "%s", err);
	/* xt_record adds 2 x delta a call to the run total: half of it is not hooked */
	cr_expect_not_null(strstr(out, "alpha@host;f@checker 1000\n"), "%s", out);
	cr_expect_not_null(strstr(out, "alpha@host;(not hooked) 1000\n"), "%s", out);
	cr_expect_not_null(strstr(out, "beta@host;f@checker 2500\n"), "%s", out);
	cr_expect_not_null(strstr(out, "beta@host;(not hooked) 2500\n"), "%s", out);
	free(out);
	free(err);
}
