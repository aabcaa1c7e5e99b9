// SPDX-License-Identifier: MIT
/*
 * Round trips: dumps written by the shim's writer (preload/store/dump.c), live and
 * compact, read back by the analyzer with every field intact.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/collect.h"
#include "read/dump_read.h"
#include "helpers.h"

static const struct dump_decl_info decls3[] = {
	{"invariant", "quorum_agrees", "checker", 0x1130},
	{"guard", "can_vote", "checker", 0x1200},
	{"function", "hash_state", "libstate.so", 0x40},
};

TestSuite(dump_read, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 20);

/* Three declarations with known deltas, including one far above 128. */
static void fill(struct dump_map *m)
{
	xt_record(m, 0, 2400, 5);
	xt_record(m, 0, 2401, 2);
	xt_record(m, 0, 9000, 1);
	xt_record(m, 1, 7, 100);
	m->decls[1].recursive = 4;
	m->decls[1].abandoned = 1;
	m->decls[1].outside = 9;
	/* decls[2] is never evaluated */
	m->hdr->lost = 3;
	/* version 3: 60 of can_vote's evaluations ran inside quorum_agrees */
	m->decls[1].parent = 1;
	m->decls[1].nested = 60;
	m->decls[1].nested_sum = 60 * 7;
	m->decls[0].inner = 60;
	m->decls[0].inner_sum = 60 * 7;
}

static void read_ok(struct xp_dump *d, const char *path)
{
	struct xp_err e = {""};
	int err = xp_dump_read(d, AT_FDCWD, path, path, true, &e);

	cr_assert_eq(err, 0, "read %s: %s", path, e.msg);
}

static void check_header(const struct xp_dump *d, bool compact)
{
	const struct extprof_dump_header *h = d->hdr;

	cr_expect_eq(h->pid, 4242);
	cr_expect_eq(h->process_id, 0xabcdef);
	cr_expect_eq(h->worker, 3);
	cr_expect_str_eq(h->counter_name, "var:steps");
	cr_expect_str_eq(h->counter_unit, "steps");
	cr_expect_eq(h->counter, EXTPROF_COUNTER_VAR);
	cr_expect_eq(h->calibration, 17);
	cr_expect_str_eq(h->hostname, "testhost");
	cr_expect_str_eq(h->cpu_model, "Test CPU");
	cr_expect_str_eq(h->exe_path, "/usr/bin/checker");
	cr_expect_eq(h->build_id_size, 4);
	cr_expect_eq(memcmp(h->build_id, "\xde\xad\xbe\xef", 4), 0);
	cr_expect_eq(h->lost, 3);
	cr_expect_eq(!!(h->flags & EXTPROF_DUMP_F_COMPLETE), compact);
	cr_expect_eq(!!(h->flags & EXTPROF_DUMP_F_COMPACT), compact);
	cr_expect_eq(d->rows != NULL, !compact);
	cr_expect_eq(d->sparse != NULL, compact);
}

/* The declarations fill() wrote; their nesting, unless @version is older than 3. */
static void check_decls(const struct xp_dump *d, unsigned version)
{
	struct xp_acc acc[3];

	cr_assert_eq(d->ndecls, 3);
	for (int i = 0; i < 3; i++) {
		cr_expect_str_eq(xp_dump_str(d, d->decls[i].kind), decls3[i].kind);
		cr_expect_str_eq(xp_dump_str(d, d->decls[i].symbol), decls3[i].symbol);
		cr_expect_str_eq(xp_dump_str(d, d->decls[i].object), decls3[i].object);
		cr_expect_eq(d->decls[i].address, decls3[i].address);
	}
	cr_assert_eq(xp_collect(d, acc), 0);
	cr_expect_eq(acc[0].evaluations, 8);
	cr_expect_eq(acc[0].floor, 2400);
	cr_expect_eq(acc[0].hits, 7);
	cr_expect_eq(acc[0].sum, 2400 * 5 + 2401 * 2 + 9000);
	cr_expect_eq(acc[0].max, 9000);
	/* 2400 and 2401 share a bucket (32 wide at 2048..4095); 9000 has its own */
	cr_assert_eq(acc[0].hist.n, 2);
	cr_expect_eq(acc[0].hist.bins[0].bucket, extprof_hist_bucket(2400));
	cr_expect_eq(acc[0].hist.bins[0].count, 7);
	cr_expect_eq(acc[0].hist.bins[1].bucket, extprof_hist_bucket(9000));
	cr_expect_eq(acc[0].hist.bins[1].count, 1);
	cr_expect_eq(acc[1].evaluations, 100);
	cr_expect_eq(acc[1].recursive, 4);
	cr_expect_eq(acc[1].abandoned, 1);
	cr_expect_eq(acc[1].outside, 9);
	cr_assert_eq(acc[1].hist.n, 1);
	cr_expect_eq(acc[1].hist.bins[0].bucket, 7);
	cr_expect_eq(acc[2].evaluations, 0);
	cr_expect_eq(acc[2].floor, EXTPROF_FLOOR_NONE);
	cr_expect_eq(acc[2].hist.n, 0);
	if (version >= 3) {
		static const char parent[] = "invariant\x1fquorum_agrees\x1f"
					     "checker";

		cr_assert_eq(HASH_COUNT(acc[1].parents), 1);
		cr_expect_eq(acc[1].parents->keylen, strlen(parent));
		cr_expect_eq(memcmp(acc[1].parents->key, parent, strlen(parent)), 0);
		cr_expect_eq(acc[1].parents->evaluations, 60);
		cr_expect_eq(acc[1].parents->sum, 420);
		cr_expect_eq(acc[0].inner, 60);
		cr_expect_eq(acc[0].inner_sum, 420);
	} else {
		cr_expect_null(acc[1].parents, "no nesting before version 3");
		cr_expect_eq(acc[0].inner, 0);
	}
	cr_expect_null(acc[0].parents);
	for (int i = 0; i < 3; i++)
		xp_acc_free(&acc[i]);
}

/* fill()'s dump at @path, live or compact. */
static void write_filled(const char *path, bool compact)
{
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, 17, 4242, 0xabcdef);
	xt_create(&m, path, &meta, decls3, 3, 3);
	fill(&m);
	xt_finish(&m, compact);
}

static void round_trip(bool compact)
{
	char *path = xt_path(xt_dir, "w.xpd");
	struct xp_dump d;

	write_filled(path, compact);
	read_ok(&d, path);
	check_header(&d, compact);
	check_decls(&d, EXTPROF_DUMP_VERSION);
	xp_dump_free(&d);
	free(path);
}

Test(dump_read, live_dump_round_trips)
{
	round_trip(false);
}

Test(dump_read, compact_dump_round_trips)
{
	round_trip(true);
}

Test(dump_read, compact_has_only_nonempty_buckets)
{
	char *path = xt_path(xt_dir, "w.xpd");
	struct dump_meta meta;
	struct dump_map m;
	struct xp_dump d;

	xt_meta(&meta, NULL, 17, 4242, 0xabcdef);
	xt_create(&m, path, &meta, decls3, 3, 3);
	fill(&m);
	xt_finish(&m, true);
	read_ok(&d, path);
	cr_expect_eq(d.nsparse, 3);
	for (uint64_t i = 0; i < d.nsparse; i++)
		cr_expect_neq(d.sparse[i].count, 0);
	xp_dump_free(&d);
	free(path);
}

Test(dump_read, no_declarations)
{
	char *path = xt_path(xt_dir, "w.xpd");
	struct dump_meta meta;
	struct dump_map m;
	struct xp_dump d;

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, NULL, 0, 0);
	xt_finish(&m, true);
	read_ok(&d, path);
	cr_expect_eq(d.ndecls, 0);
	xp_dump_free(&d);
	free(path);
}

Test(dump_read, callers_section)
{
	char *path = xt_path(xt_dir, "w.xpd");
	struct dump_meta meta;
	struct dump_map m;
	struct xp_dump d;

	xt_meta(&meta, NULL, 1, 1, 1);
	meta.caller_slots = 2;
	meta.callers_depth = 2;
	xt_create(&m, path, &meta, decls3, 3, 0);
	m.callers[1].depth = 1;
	m.callers[1].evaluations = 5;
	m.callers[1].symbol[0] = m.decls[0].symbol; /* any string of STRINGS */
	xt_finish(&m, true);
	read_ok(&d, path);
	cr_assert_eq(d.ncallers, 6);
	cr_expect_eq(d.callers[1].decl, 0);
	cr_expect_eq(d.callers[2].decl, 1);
	cr_expect_eq(d.callers[1].evaluations, 5);
	cr_expect_str_eq(xp_dump_str(&d, d.callers[1].symbol[0]), "quorum_agrees");
	xp_dump_free(&d);
	free(path);
}

Test(dump_read, huge_deltas_keep_their_bucket)
{
	char *path = xt_path(xt_dir, "w.xpd");
	struct dump_meta meta;
	struct dump_map m;
	struct xp_dump d;
	struct xp_acc acc[1];

	xt_meta(&meta, NULL, 1, 1, 1);
	xt_create(&m, path, &meta, decls3, 1, 0);
	xt_record(&m, 0, UINT64_MAX - 5, 1);
	xt_finish(&m, true);
	read_ok(&d, path);
	cr_assert_eq(xp_collect(&d, acc), 0);
	cr_assert_eq(acc[0].hist.n, 1);
	cr_expect_eq(acc[0].hist.bins[0].bucket, EXTPROF_HIST_BUCKETS - 1);
	xp_acc_free(&acc[0]);
	xp_dump_free(&d);
	free(path);
}

Test(dump_read, histogram_buckets_are_exact_below_128_and_within_one_percent)
{
	for (uint64_t v = 0; v < 200000; v += v < 300 ? 1 : 97) {
		uint32_t b = extprof_hist_bucket(v);
		uint64_t lo = extprof_hist_lower(b), mid = xp_hist_mid(b);

		cr_assert(lo <= v && v < lo + extprof_hist_width(b), "v %lu bucket %u", v, b);
		if (v < 128)
			cr_assert_eq(mid, v);
		cr_assert_leq(mid > v ? mid - v : v - mid, v / 100 + 1, "v %lu mid %lu", v, mid);
	}
}

/* ---- versions 1 and 2: read as they were written before version 3 ---- */

static void put(unsigned char **p, size_t *n, const void *what, size_t len)
{
	*p = realloc(*p, *n + len + 8);
	cr_assert_not_null(*p);
	memcpy(*p + *n, what, len);
	*n += len;
	while (*n % 8)
		(*p)[(*n)++] = 0;
}

/*
 * The dump at @from as version @version wrote it, into @to: version 1's
 * 112-byte declarations and a live dump's histogram dense (a row for every
 * declaration); version 2's 136-byte declarations and its rows.
 */
static void write_old(const char *from, const char *to, unsigned version)
{
	uint32_t size = version == 1 ? XP_DUMP_V1_DECL_SIZE : XP_DUMP_V2_DECL_SIZE;
	struct extprof_dump_section sec[4];
	struct extprof_dump_header h;
	unsigned char *out = NULL;
	size_t n = 0;
	struct xp_dump d;

	read_ok(&d, from);
	h = *d.hdr;
	h.version = version;
	put(&out, &n, &h, sizeof(h));
	put(&out, &n, sec, sizeof(sec));
	sec[0] = (struct extprof_dump_section){EXTPROF_SECTION_DECLS, size, n, d.ndecls};
	for (uint64_t i = 0; i < d.ndecls; i++) {
		struct extprof_dump_decl x = d.decls[i];

		/* what was reserved before version 3 was 0 */
		memset((char *)&x + XP_DUMP_V2_DECL_SIZE - 20, 0, 20);
		put(&out, &n, &x, size);
	}
	sec[1] = (struct extprof_dump_section){EXTPROF_SECTION_STRINGS, 1, n, d.nstrings};
	put(&out, &n, d.strings, d.nstrings);
	if (d.rows && version == 1) {
		sec[2] = (struct extprof_dump_section){EXTPROF_SECTION_HIST_DENSE, 8, n,
						       d.ndecls * EXTPROF_HIST_BUCKETS};
		for (uint64_t i = 0; i < d.ndecls; i++) {
			static const uint64_t zero[EXTPROF_HIST_BUCKETS];
			const uint64_t *row = xp_dump_row(&d, i);

			put(&out, &n, row ? row : zero, EXTPROF_HIST_ROW_BYTES);
		}
	} else if (d.rows) {
		sec[2] = (struct extprof_dump_section){EXTPROF_SECTION_HIST_ROWS,
						       EXTPROF_HIST_ROW_BYTES, n, d.nrows};
		put(&out, &n, d.rows, d.nrows * EXTPROF_HIST_ROW_BYTES);
	} else {
		sec[2] = (struct extprof_dump_section){EXTPROF_SECTION_HIST_SPARSE,
						       sizeof(*d.sparse), n, d.nsparse};
		put(&out, &n, d.sparse, d.nsparse * sizeof(*d.sparse));
	}
	sec[3] = (struct extprof_dump_section){EXTPROF_SECTION_CALLERS, sizeof(*d.callers), n,
					       d.ncallers};
	put(&out, &n, d.callers, d.ncallers * sizeof(*d.callers));
	((struct extprof_dump_header *)out)->file_size = n;
	memcpy(out + sizeof(h), sec, sizeof(sec));
	xt_spit(to, out, n);
	free(out);
	xp_dump_free(&d);
}

static void version_old(bool compact, unsigned version)
{
	char *path = xt_path(xt_dir, "w.xpd"), *old = xt_path(xt_dir, "old.xpd");
	struct xp_dump d;

	write_filled(path, compact);
	write_old(path, old, version);
	read_ok(&d, old);
	cr_expect_eq(d.hdr->version, version);
	cr_expect_eq(d.decl_size, version == 1 ? XP_DUMP_V1_DECL_SIZE : XP_DUMP_V2_DECL_SIZE);
	cr_expect_eq(d.dense != NULL, !compact && version == 1);
	cr_expect_eq(d.rows != NULL, !compact && version == 2);
	check_decls(&d, version);
	xp_dump_free(&d);
	free(path);
	free(old);
}

Test(dump_read, version_1_live_dump_is_read)
{
	version_old(false, 1);
}

Test(dump_read, version_1_compact_dump_is_read)
{
	version_old(true, 1);
}

Test(dump_read, version_2_live_dump_is_read)
{
	version_old(false, 2);
}

Test(dump_read, version_2_compact_dump_is_read)
{
	version_old(true, 2);
}
