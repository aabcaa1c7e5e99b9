// SPDX-License-Identifier: MIT
/*
 * Histogram rows (dump format 2): the shim's writer (preload/store/dump.c) gives
 * a declaration its row at its first evaluation and grows the file under
 * the rows; the file holds space for the rows taken, not for every
 * declaration.  Where the file cannot grow (RLIMIT_FSIZE, the file removed
 * or another in its place), the rows go on in memory, without a signal,
 * and the compact dump holds them all; the live file says which it lacks,
 * and the report says so.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/collect.h"
#include "read/dump_read.h"
#include "helpers.h"
#include "xt_json.h"

TestSuite(rows, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 60);

#define NDECLS 5000

/* @n declarations "f0" ... of kind function, in memory the test keeps. */
static struct dump_decl_info *many(uint32_t n)
{
	struct dump_decl_info *d = calloc(n, sizeof(*d));
	char *names = calloc(n, 16);

	cr_assert(d && names);
	for (uint32_t i = 0; i < n; i++) {
		snprintf(names + 16 * i, 16, "f%u", i);
		d[i] = (struct dump_decl_info){"function", names + 16 * i, "prog", 0x1000 + 16 * i};
	}
	return d;
}

static void free_many(struct dump_decl_info *d)
{
	free((char *)d[0].symbol);
	free(d);
}

static uint64_t allocated(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	return (uint64_t)st.st_blocks * 512;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	return (uint64_t)st.st_size;
}

/* The bytes before row 0: what the dump needs whatever is called. */
static uint64_t tables(const struct dump_map *m)
{
	return m->rows_off;
}

static void read_ok(struct xp_dump *d, const char *path)
{
	struct xp_err e = {""};

	cr_assert_eq(xp_dump_read(d, AT_FDCWD, path, path, true, &e), 0, "%s", e.msg);
}

Test(rows, a_dump_holds_rows_only_for_what_is_evaluated)
{
	struct dump_decl_info *decls = many(NDECLS);
	char *path = xt_path(xt_dir, "w.xpd");
	struct dump_meta meta;
	struct dump_map m;
	struct xp_dump d;
	struct xp_acc *acc = calloc(NDECLS, sizeof(*acc));
	uint64_t live, dense = (uint64_t)NDECLS * EXTPROF_HIST_ROW_BYTES;

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, decls, NDECLS, 0);
	cr_expect_eq(m.nrows, 1, "row 0 only, at first");
	cr_expect_leq(allocated(path), tables(&m) + EXTPROF_HIST_ROW_BYTES + 8192);
	/* three of five thousand, in an order of their own */
	xt_record(&m, 4321, 100, 3);
	xt_record(&m, 7, 5, 1);
	xt_record(&m, 4321, 101, 1);
	xt_record(&m, 2500, 7000, 2);
	cr_expect_eq(m.decls[4321].row, 1);
	cr_expect_eq(m.decls[7].row, 2);
	cr_expect_eq(m.decls[2500].row, 3);
	cr_expect_eq(m.decls[8].row, 0);
	cr_expect_eq(m.nrows, 4);
	live = allocated(path);
	/* the tables, row 0 and 3 rows, and a chunk of room (as many rows again) */
	cr_expect_leq(live, tables(&m) + 8 * (uint64_t)EXTPROF_HIST_ROW_BYTES,
		      "%llu bytes on disk for 3 rows of %u declarations", (unsigned long long)live,
		      NDECLS);
	cr_expect_lt(live * 50, dense, "%llu bytes, against %llu for a row each",
		     (unsigned long long)live, (unsigned long long)dense);
	cr_expect_eq(m.hdr->file_size, file_size(path));
	xt_finish(&m, false);

	read_ok(&d, path);
	cr_expect_eq(d.nrows, 4);
	cr_assert_eq(xp_collect(&d, acc), 0);
	cr_expect_eq(acc[4321].evaluations, 4);
	cr_assert_eq(acc[4321].hist.n, 2);
	cr_expect_eq(acc[4321].hist.bins[0].bucket, 100);
	cr_expect_eq(acc[4321].hist.bins[0].count, 3);
	cr_expect_eq(acc[7].hist.n, 1);
	cr_expect_eq(acc[2500].hist.bins[0].count, 2);
	cr_expect_eq(acc[8].hist.n, 0);
	for (uint32_t i = 0; i < NDECLS; i++)
		xp_acc_free(&acc[i]);
	xp_dump_free(&d);
	free(acc);
	free_many(decls);
	free(path);
}

/* Rows taken in chunks: the file grows by as many rows as it has, up to 32. */
Test(rows, the_file_grows_in_chunks)
{
	struct dump_decl_info *decls = many(400);
	char *path = xt_path(xt_dir, "w.xpd");
	struct dump_meta meta;
	struct dump_map m;
	uint64_t size = 0;
	int grew = 0;

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, decls, 400, 0);
	for (uint32_t i = 0; i < 300; i++) {
		xt_record(&m, i, i, 1);
		if (file_size(path) != size)
			grew++;
		size = file_size(path);
		cr_assert_geq(size, tables(&m) + (uint64_t)(i + 2) * EXTPROF_HIST_ROW_BYTES);
		cr_assert_leq(size,
			      tables(&m) + (uint64_t)(2 * (i + 2) + 1) * EXTPROF_HIST_ROW_BYTES);
	}
	/* 1, 2, 4, ... 32 rows, then 32 at a time: 6 + 9 */
	cr_expect_leq(grew, 20, "%d growths for 300 rows", grew);
	cr_expect_eq(m.grow_err, 0);
	xt_finish(&m, true);
	free_many(decls);
	free(path);
}

/*
 * What the compact dump and the live one say of @n declarations recorded
 * at @path, of which those from @first on had their rows in memory.
 */
static void expect_memory_rows(const char *path, uint32_t n, uint32_t first, bool compact)
{
	struct xp_acc *acc = calloc(n, sizeof(*acc));
	struct xp_dump d;

	read_ok(&d, path);
	cr_assert_eq(!!(d.hdr->flags & EXTPROF_DUMP_F_COMPACT), compact);
	cr_assert_eq(xp_collect(&d, acc), 0);
	for (uint32_t i = 0; i < n; i++) {
		bool kept = compact || i < first;

		cr_expect_eq(acc[i].evaluations, 2, "decl %u", i);
		cr_expect_eq(acc[i].hist.n, kept ? 1 : 0, "decl %u: %zu buckets", i, acc[i].hist.n);
		cr_expect_eq(!!(d.decls[i].flags & EXTPROF_DECL_F_HIST_MEMORY), !kept, "decl %u",
			     i);
		cr_expect_eq(acc[i].hist_lost, kept ? 0 : 2, "decl %u", i);
		xp_acc_free(&acc[i]);
	}
	xp_dump_free(&d);
	free(acc);
}

/* Record 2 evaluations of each of @n declarations; the first whose row is memory. */
static uint32_t record_all(struct dump_map *m, uint32_t n)
{
	uint32_t first = n;

	for (uint32_t i = 0; i < n; i++) {
		xt_record(m, i, 10 + i, 2);
		if (first == n && (m->decls[i].flags & EXTPROF_DECL_F_HIST_MEMORY))
			first = i;
	}
	return first;
}

Test(rows, past_rlimit_fsize_rows_go_to_memory_without_a_signal)
{
	struct dump_decl_info *decls = many(60);
	char *path = xt_path(xt_dir, "w.xpd"), *copy = xt_path(xt_dir, "live-copy.xpd");
	struct dump_meta meta;
	struct dump_map m;
	struct rlimit rl, was;
	uint32_t first;
	void *live;
	size_t n;

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, decls, 60, 0);
	/* room for the file as it is and 4 rows more: SIGXFSZ kills, unless the shim stops */
	signal(SIGXFSZ, SIG_DFL);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
	rl = was;
	rl.rlim_cur = file_size(path) + 4 * EXTPROF_HIST_ROW_BYTES;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	first = record_all(&m, 60);
	cr_expect_eq(m.grow_err, -EFBIG, "grow_err %d", m.grow_err);
	cr_expect_geq(first, 1);
	cr_expect_leq(first, 5, "the first row in memory: %u", first);
	cr_expect_leq(file_size(path), rl.rlim_cur);
	/* the live file as a crash would leave it */
	live = xt_slurp(path, &n);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
	xt_spit(copy, live, n);
	free(live);
	expect_memory_rows(copy, 60, first, false);
	xt_finish(&m, true);
	expect_memory_rows(path, 60, first, true);
	free_many(decls);
	free(path);
	free(copy);
}

Test(rows, a_removed_file_is_not_grown_again)
{
	struct dump_decl_info *decls = many(40);
	char *path = xt_path(xt_dir, "w.xpd");
	struct dump_meta meta;
	struct dump_map m;
	uint32_t first;

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, decls, 40, 0);
	cr_assert_eq(unlink(path), 0);
	first = record_all(&m, 40);
	cr_expect_eq(m.grow_err, -ENOENT, "grow_err %d", m.grow_err);
	cr_expect_eq(access(path, F_OK), -1, "the shim made the file again");
	cr_expect_lt(first, 40);
	/* the compact dump is a new file: every histogram in it */
	xt_finish(&m, true);
	expect_memory_rows(path, 40, first, true);
	free_many(decls);
	free(path);
}

Test(rows, another_file_in_its_place_is_left_alone)
{
	struct dump_decl_info *decls = many(40);
	char *path = xt_path(xt_dir, "w.xpd"), *other = xt_path(xt_dir, "other");
	struct dump_meta meta;
	struct dump_map m;
	uint32_t first;

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, decls, 40, 0);
	xt_spit(other, "not a dump\n", 11);
	cr_assert_eq(rename(other, path), 0);
	first = record_all(&m, 40);
	cr_expect_eq(m.grow_err, -ESTALE, "grow_err %d", m.grow_err);
	cr_expect_eq(file_size(path), 11, "the other file was grown");
	cr_expect_lt(first, 40);
	dump_unmap(&m);
	free_many(decls);
	free(path);
	free(other);
}

/* The report says what a live dump lacks: flag and JSON "histogram_lost". */
Test(rows, the_report_says_histograms_lost)
{
	static const struct dump_decl_info two[] = {{"function", "kept", "prog", 0x10},
						    {"function", "lost", "prog", 0x20}};
	char *path = xt_path(xt_dir, "w.xpd"), *out, *err;
	struct dump_meta meta;
	struct dump_map m;
	json_t *r;
	int status;

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, two, 2, 0);
	xt_record(&m, 0, 10, 3);
	xt_record(&m, 1, 20, 5);
	/* as if row 2 had gone to memory: past HIST_ROWS, flagged */
	m.decls[1].flags |= EXTPROF_DECL_F_HIST_MEMORY;
	((struct extprof_dump_section *)(m.hdr + 1))[2].count = 2;
	m.hdr->flags |= EXTPROF_DUMP_F_COMPLETE;
	xt_finish(&m, false);
	status = xt_run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, NULL,
			&out, &err);
	cr_assert_eq(status, 0, "%s", err);
	r = xt_json_parse(out);
	cr_expect_eq(xt_json_int(xt_json_decl(r, "kept"), "histogram_lost"), 0);
	cr_expect_eq(xt_json_int(xt_json_decl(r, "lost"), "histogram_lost"), 5);
	cr_expect_eq(xt_json_int(xt_json_decl(r, "lost"), "evaluations"), 5);
	cr_expect_eq(xt_json_int(xt_json_decl(r, "lost"), "p50"), 19,
		     "the floor, less calibration");
	json_decref(r);
	free(out);
	free(err);
	status = xt_run((const char *[]){"x", "report", xt_dir, NULL}, NULL, &out, &err);
	cr_assert_eq(status, 0, "%s", err);
	cr_expect_not_null(strstr(out, "  histogram-lost\n"), "%s", out);
	cr_expect_not_null(strstr(out, "histogram-lost    some deltas are in no histogram"), "%s",
			   out);
	free(out);
	free(err);
	free(path);
}

/* No row to be had (the reservation used up, as when memory runs out): said, not hidden. */
Test(rows, no_row_at_all_is_said)
{
	static const struct dump_decl_info two[] = {{"function", "kept", "prog", 0x10},
						    {"function", "lost", "prog", 0x20}};
	char *path = xt_path(xt_dir, "w.xpd");
	struct dump_meta meta;
	struct dump_map m;
	struct xp_acc acc[2];
	struct xp_dump d;

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, two, 2, 0);
	xt_record(&m, 0, 10, 3);
	m.row_cap = m.nrows;
	cr_expect_eq(dump_take_row(&m, 1), -ENOSPC);
	cr_expect_eq(m.decls[1].row, 0);
	cr_expect(m.decls[1].flags & EXTPROF_DECL_F_HIST_LOST);
	/* what the shim does then: the counts, and the delta into row 0 */
	m.decls[1].evaluations = 4;
	m.decls[1].floor = 20;
	dump_row_at(&m, 0)[extprof_hist_bucket(20)] += 4;
	xt_finish(&m, true);
	read_ok(&d, path);
	cr_expect(d.decls[1].flags & EXTPROF_DECL_F_HIST_LOST, "the compact dump keeps the flag");
	cr_assert_eq(xp_collect(&d, acc), 0);
	cr_expect_eq(acc[0].hist_lost, 0);
	cr_expect_eq(acc[1].hist_lost, 4);
	cr_expect_eq(acc[1].hist.n, 0);
	xp_acc_free(&acc[0]);
	xp_acc_free(&acc[1]);
	xp_dump_free(&d);
	free(path);
}
