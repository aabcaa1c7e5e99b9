// SPDX-License-Identifier: MIT
/*
 * Hostile dumps: every defect is refused with one message naming the file,
 * what is wrong and the offset, and no input crashes the reader.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "read/dump_read.h"
#include "helpers.h"
#include "model/proc.h"
#include "cmd/cmd.h"
#include "report/report.h"

static unsigned char *good;
static size_t good_size;

/* One caller chain of quorum_agrees, its frame named by a string of the table. */
static void chains(struct dump_map *m)
{
	m->callers[0].depth = 1;
	m->callers[0].symbol[0] = m->decls[1].symbol;
}

/* A compact dump of 2 declarations with callers, kept in memory (and in good.xpd) to be damaged. */
static void setup(void)
{
	char *path;

	xt_dir_init();
	path = xt_path(xt_dir, "good.xpd");
	good = xt_hostile_good(path, 1, 100, chains, &good_size);
	free(path);
}

static void teardown(void)
{
	xt_dir_fini();
	free(good);
}

TestSuite(validate, .init = setup, .fini = teardown, .timeout = 30);

static struct extprof_dump_section *sec(unsigned char *b, unsigned i)
{
	return (struct extprof_dump_section *)(b + sizeof(struct extprof_dump_header)) + i;
}

static unsigned char *copy(void)
{
	return xt_memdup(good, good_size);
}

/* Parse @size bytes of @b (consumed); expect failure with @want in the message. */
static void expect_bad(unsigned char *b, size_t size, const char *want)
{
	struct xp_err e = {""};
	struct xp_dump d;
	int err = xp_dump_parse(&d, b, size, "hostile.xpd", &e);

	cr_assert_neq(err, 0, "accepted a dump that should fail with \"%s\"", want);
	cr_assert(strncmp(e.msg, "hostile.xpd: ", 13) == 0, "message does not name the file: %s",
		  e.msg);
	cr_assert_not_null(strstr(e.msg, want), "message \"%s\" lacks \"%s\"", e.msg, want);
	cr_assert_null(strchr(e.msg, '\n'), "message is not one line: %s", e.msg);
}

Test(validate, good_dump_is_accepted)
{
	struct xp_err e = {""};
	struct xp_dump d;

	cr_assert_eq(xp_dump_parse(&d, copy(), good_size, "good.xpd", &e), 0, "%s", e.msg);
	xp_dump_free(&d);
}

Test(validate, empty_file)
{
	expect_bad(malloc(1), 0, "empty: a dump being created");
}

/* The shim reserves the file (zeros) and writes the magic last: a dump being created. */
Test(validate, no_magic_yet_is_being_created)
{
	unsigned char *b = copy();

	memset(b, 0, EXTPROF_DUMP_MAGIC_LEN);
	expect_bad(b, good_size, "no header yet: a dump being created");
	b = copy();
	memset(b, 0, good_size);
	expect_bad(b, good_size, "no header yet: a dump being created");
	/* too short for a header: not what the shim leaves */
	b = copy();
	memset(b, 0, 16);
	expect_bad(b, 16, "bad magic");
}

Test(validate, truncated_at_every_offset)
{
	for (size_t n = 1; n < good_size; n++) {
		unsigned char *b = copy();

		expect_bad(b, n, "truncated");
	}
}

Test(validate, truncated_message_names_the_offset)
{
	char want[64];

	snprintf(want, sizeof(want), "truncated: %zu bytes of the %zu written (offset %zu)",
		 good_size - 8, good_size, good_size - 8);
	expect_bad(copy(), good_size - 8, want);
}

Test(validate, trailing_bytes)
{
	unsigned char *b = realloc(copy(), good_size + 8);

	memset(b + good_size, 0, 8);
	expect_bad(b, good_size + 8, "but the header says the dump ends at");
}

Test(validate, wrong_magic)
{
	unsigned char *b = copy();

	b[0] = 'Y';
	expect_bad(b, good_size, "not an extprof dump (bad magic) (offset 0)");
}

Test(validate, wrong_version)
{
	unsigned char *b = copy();

	xt_hdr(b)->version = 4;
	expect_bad(b, good_size,
		   "unsupported format version 4 (this extprof reads versions 1 to 3) (offset 8)");
	b = copy();
	xt_hdr(b)->version = 0;
	expect_bad(b, good_size,
		   "unsupported format version 0 (this extprof reads versions 1 to 3) (offset 8)");
}

/* A version 3 dump that says it is version 1 or 2: its declarations are not theirs. */
Test(validate, version_1_with_version_2_tables)
{
	unsigned char *b = copy();
	char want[64];

	xt_hdr(b)->version = 1;
	snprintf(want, sizeof(want), "(DECLS): entry_size %zu, expected %u",
		 sizeof(struct extprof_dump_decl), XP_DUMP_V1_DECL_SIZE);
	expect_bad(b, good_size, want);
	b = copy();
	xt_hdr(b)->version = 2;
	snprintf(want, sizeof(want), "(DECLS): entry_size %zu, expected %u",
		 sizeof(struct extprof_dump_decl), XP_DUMP_V2_DECL_SIZE);
	expect_bad(b, good_size, want);
}

Test(validate, other_byte_order)
{
	unsigned char *b = copy();

	xt_hdr(b)->byte_order = 0x04030201;
	expect_bad(b, good_size, "other byte order (big-endian)");
}

Test(validate, garbage_byte_order)
{
	unsigned char *b = copy();

	xt_hdr(b)->byte_order = 0x12345678;
	expect_bad(b, good_size, "bad byte order mark 0x12345678 (offset 16)");
}

Test(validate, wrong_header_size)
{
	unsigned char *b = copy();

	xt_hdr(b)->header_size = 64;
	expect_bad(b, good_size, "header_size 64, expected");
}

Test(validate, nsections_zero_and_too_many)
{
	unsigned char *b = copy();

	xt_hdr(b)->nsections = 0;
	expect_bad(b, good_size, "nsections 0 out of range (1..16)");
	b = copy();
	xt_hdr(b)->nsections = 17;
	expect_bad(b, good_size, "nsections 17 out of range");
}

Test(validate, unterminated_header_strings)
{
	unsigned char *b = copy();

	memset(xt_hdr(b)->hostname, 'a', sizeof(xt_hdr(b)->hostname));
	expect_bad(b, good_size, "header field hostname is not NUL-terminated");
	b = copy();
	memset(xt_hdr(b)->exe_path, 'x', sizeof(xt_hdr(b)->exe_path));
	expect_bad(b, good_size, "header field exe_path is not NUL-terminated");
	b = copy();
	memset(xt_hdr(b)->counter_name, 'v', sizeof(xt_hdr(b)->counter_name));
	expect_bad(b, good_size, "header field counter_name is not NUL-terminated (offset 88)");
}

Test(validate, unknown_counter_flags_and_sizes)
{
	unsigned char *b = copy();

	xt_hdr(b)->counter = 99;
	expect_bad(b, good_size, "unknown counter kind 99");
	b = copy();
	xt_hdr(b)->flags |= 1u << 20;
	expect_bad(b, good_size, "unknown flags 0x100000");
	b = copy();
	xt_hdr(b)->build_id_size = 33;
	expect_bad(b, good_size, "build_id_size 33 larger than 32");
	b = copy();
	xt_hdr(b)->callers_depth = 9;
	expect_bad(b, good_size, "callers_depth 9 larger than 8");
}

Test(validate, section_out_of_range)
{
	unsigned char *b = copy();

	xt_section(b, EXTPROF_SECTION_DECLS)->offset = good_size + 8;
	expect_bad(b, good_size, "run past the end of the file");
}

Test(validate, section_count_overflows)
{
	unsigned char *b = copy();

	/* count * entry_size wraps around to a small number */
	xt_section(b, EXTPROF_SECTION_DECLS)->count =
		(UINT64_MAX / sizeof(struct extprof_dump_decl)) + 2;
	expect_bad(b, good_size, "run past the end of the file");
	b = copy();
	xt_section(b, EXTPROF_SECTION_STRINGS)->offset = UINT64_MAX - 7;
	expect_bad(b, good_size, "run past the end of the file");
}

Test(validate, section_misaligned_or_in_header)
{
	unsigned char *b = copy();

	xt_section(b, EXTPROF_SECTION_STRINGS)->offset += 4;
	expect_bad(b, good_size, "not 8-byte aligned");
	b = copy();
	xt_section(b, EXTPROF_SECTION_STRINGS)->offset = 8;
	expect_bad(b, good_size, "is inside the header");
}

Test(validate, section_type_and_entry_size)
{
	unsigned char *b = copy();

	sec(b, 0)->type = 42;
	expect_bad(b, good_size, "section 0: unknown type 42");
	b = copy();
	xt_section(b, EXTPROF_SECTION_DECLS)->entry_size = 8;
	expect_bad(b, good_size, "(DECLS): entry_size 8, expected 176");
	b = copy();
	sec(b, 1)->type = sec(b, 0)->type;
	sec(b, 1)->entry_size = sec(b, 0)->entry_size;
	sec(b, 1)->count = 0;
	expect_bad(b, good_size, "a second DECLS section");
}

Test(validate, sections_overlap)
{
	unsigned char *b = copy();

	xt_section(b, EXTPROF_SECTION_STRINGS)->offset =
		xt_section(b, EXTPROF_SECTION_DECLS)->offset + 8;
	expect_bad(b, good_size, "overlaps");
}

Test(validate, missing_sections)
{
	unsigned char *b = copy();

	xt_hdr(b)->nsections = 1; /* DECLS alone */
	expect_bad(b, good_size, "lacks the STRINGS section");
}

Test(validate, compact_flag_against_dense_histogram)
{
	unsigned char *b = copy();

	xt_hdr(b)->flags &= ~EXTPROF_DUMP_F_COMPACT;
	expect_bad(b, good_size, "flags say live but the histogram is sparse");
}

Test(validate, string_offsets_out_of_range)
{
	unsigned char *b = copy();
	struct extprof_dump_decl *d = (void *)(b + xt_section(b, EXTPROF_SECTION_DECLS)->offset);
	char want[96];

	d[1].symbol = 99999;
	snprintf(want, sizeof(want),
		 "decls[1].symbol: string offset 99999 outside STRINGS or unterminated (offset "
		 "%llu)",
		 (unsigned long long)(xt_section(b, EXTPROF_SECTION_DECLS)->offset + sizeof(*d) +
				      offsetof(struct extprof_dump_decl, symbol)));
	expect_bad(b, good_size, want);
}

Test(validate, unterminated_string)
{
	unsigned char *b = copy();
	struct extprof_dump_section *s = xt_section(b, EXTPROF_SECTION_STRINGS);

	/* Cut the last string's NUL off the section. */
	s->count -= 1;
	expect_bad(b, good_size, "outside STRINGS or unterminated");
}

Test(validate, bad_kind_and_empty_symbol)
{
	unsigned char *b = copy();
	struct extprof_dump_decl *d = (void *)(b + xt_section(b, EXTPROF_SECTION_DECLS)->offset);

	d[0].kind = 0; /* "" */
	expect_bad(b, good_size, "decls[0].kind is not a kind name");
	b = copy();
	d = (void *)(b + xt_section(b, EXTPROF_SECTION_DECLS)->offset);
	d[1].symbol = 0;
	expect_bad(b, good_size, "decls[1].symbol is empty");
}

Test(validate, repeated_declaration)
{
	unsigned char *b = copy();
	struct extprof_dump_decl *d = (void *)(b + xt_section(b, EXTPROF_SECTION_DECLS)->offset);

	d[1].kind = d[0].kind;
	d[1].symbol = d[0].symbol;
	d[1].object = d[0].object;
	expect_bad(b, good_size, "decls[1] repeats the declaration of decls[0]");
}

Test(validate, sparse_histogram_indices)
{
	unsigned char *b = copy();
	struct extprof_dump_hist_entry *h =
		(void *)(b + xt_section(b, EXTPROF_SECTION_HIST_SPARSE)->offset);

	h[0].decl = 2;
	expect_bad(b, good_size, "hist[0].decl 2 out of range (2 declarations)");
	b = copy();
	h = (void *)(b + xt_section(b, EXTPROF_SECTION_HIST_SPARSE)->offset);
	h[1].bucket = EXTPROF_HIST_BUCKETS;
	expect_bad(b, good_size, "hist[1].bucket 3776 out of range");
}

Test(validate, sparse_padding_is_legal)
{
	unsigned char *b = copy();
	struct extprof_dump_hist_entry *h =
		(void *)(b + xt_section(b, EXTPROF_SECTION_HIST_SPARSE)->offset);
	struct xp_err e = {""};
	struct xp_dump d;

	h[1] = (struct extprof_dump_hist_entry){0, 0, 0};
	cr_assert_eq(xp_dump_parse(&d, b, good_size, "padded.xpd", &e), 0, "%s", e.msg);
	xp_dump_free(&d);
}

Test(validate, callers_indices)
{
	unsigned char *b = copy();
	struct extprof_dump_caller *c =
		(void *)(b + xt_section(b, EXTPROF_SECTION_CALLERS)->offset);

	c[1].decl = 7;
	expect_bad(b, good_size, "callers[1].decl 7 out of range");
	b = copy();
	c = (void *)(b + xt_section(b, EXTPROF_SECTION_CALLERS)->offset);
	c[0].depth = 9;
	expect_bad(b, good_size, "callers[0].depth 9 larger than 8");
	b = copy();
	c = (void *)(b + xt_section(b, EXTPROF_SECTION_CALLERS)->offset);
	c[0].symbol[0] = 1u << 30;
	expect_bad(b, good_size, "callers[0].symbol[0]: string offset 1073741824 outside STRINGS");
}

/* A live dump of 3 declarations, 2 of them evaluated (rows 1 and 2), in @b, @n. */
static struct extprof_dump_decl *live_rows(unsigned char **b, size_t *n)
{
	static const struct dump_decl_info three[] = {
		{"function", "f", "o", 0}, {"function", "g", "o", 8}, {"function", "h", "o", 16}};
	char *path = xt_path(xt_dir, "live.xpd");
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, 1, 1, 1);
	unlink(path);
	xt_create(&m, path, &meta, three, 3, 0);
	xt_record(&m, 2, 7, 1);
	xt_record(&m, 0, 9, 1);
	xt_finish(&m, false);
	*b = xt_slurp(path, n);
	free(path);
	return (struct extprof_dump_decl *)(*b + xt_section(*b, EXTPROF_SECTION_DECLS)->offset);
}

Test(validate, live_rows)
{
	struct extprof_dump_decl *decls;
	struct xp_err e = {""};
	struct xp_dump d;
	unsigned char *b;
	size_t n;

	decls = live_rows(&b, &n);
	cr_assert_eq(decls[2].row, 1);
	cr_assert_eq(decls[0].row, 2);
	cr_assert_eq(xt_section(b, EXTPROF_SECTION_HIST_ROWS)->count, 3);
	/* a row past HIST_ROWS is not in the file (memory, or being given): no histogram */
	decls[1].row = 77;
	cr_assert_eq(xp_dump_parse(&d, b, n, "live.xpd", &e), 0, "%s", e.msg);
	cr_expect_null(xp_dump_row(&d, 1));
	cr_expect_not_null(xp_dump_row(&d, 0));
	xp_dump_free(&d);

	decls = live_rows(&b, &n);
	decls[1].row = decls[0].row;
	expect_bad(b, n, "decls[1].row 2 is another declaration's too");
	live_rows(&b, &n);
	xt_section(b, EXTPROF_SECTION_HIST_ROWS)->count = 0;
	expect_bad(b, n, "HIST_ROWS has no row 0");
	live_rows(&b, &n);
	xt_section(b, EXTPROF_SECTION_HIST_ROWS)->count = n;
	expect_bad(b, n, "(HIST_ROWS): ");
	live_rows(&b, &n);
	xt_section(b, EXTPROF_SECTION_HIST_ROWS)->type = EXTPROF_SECTION_HIST_DENSE;
	expect_bad(b, n, "type 3 (HIST_DENSE) is not one of version 3");
	/* a compact dump has no rows */
	b = copy();
	((struct extprof_dump_decl *)(b + xt_section(b, EXTPROF_SECTION_DECLS)->offset))[1].row = 1;
	expect_bad(b, good_size, "decls[1].row 1 in a dump without rows");
}

/* The shim's live dump grows: the header says so once it has, the file may be longer. */
Test(validate, live_dump_longer_than_its_header_says)
{
	struct xp_err e = {""};
	struct xp_dump d;
	unsigned char *b;
	size_t n;

	live_rows(&b, &n);
	xt_hdr(b)->file_size -= 4096;
	cr_assert_eq(xp_dump_parse(&d, b, n, "live.xpd", &e), 0, "%s", e.msg);
	xp_dump_free(&d);
	b = copy();
	xt_hdr(b)->file_size -= 8;
	expect_bad(b, good_size, "but the header says the dump ends at");
}

/* Random damage: any outcome but a crash or a silent, unnamed failure. */
Test(validate, random_corruption_never_crashes)
{
	unsigned seed = 12345;

	for (int round = 0; round < 20000; round++) {
		unsigned char *b = copy();
		int flips = 1 + rand_r(&seed) % 4;
		struct xp_err e = {""};
		struct xp_dump d;

		for (int i = 0; i < flips; i++) {
			/* mostly the header and section table, where the pointers are */
			size_t at = rand_r(&seed) % (i ? good_size : 1400);

			b[at] ^= (unsigned char)(1u << (rand_r(&seed) % 8));
		}
		if (xp_dump_parse(&d, b, good_size, "fuzz.xpd", &e) == 0)
			xp_dump_free(&d);
		else
			cr_assert(!strncmp(e.msg, "fuzz.xpd: ", 10), "unnamed failure: %s", e.msg);
	}
}

Test(validate, symlink_inside_directory_is_refused)
{
	char *target = xt_path(xt_dir, "good.xpd"), *link = xt_path(xt_dir, "link.xpd");
	struct xp_err e = {""};
	struct xp_dump d;

	cr_assert_eq(symlink(target, link), 0);
	cr_assert_neq(xp_dump_read(&d, AT_FDCWD, link, link, true, &e), 0);
	cr_assert_not_null(strstr(e.msg, "is a symbolic link"), "%s", e.msg);
	free(target);
	free(link);
}

Test(validate, fifo_is_not_a_dump)
{
	char *fifo = xt_path(xt_dir, "pipe.xpd");
	struct xp_err e = {""};
	struct xp_dump d;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_neq(xp_dump_read(&d, AT_FDCWD, fifo, fifo, true, &e), 0);
	cr_assert_not_null(strstr(e.msg, "not a regular file"), "%s", e.msg);
	free(fifo);
}

/* The binary: one line, the file and the offset, exit status 2. */
Test(validate, dump_command_reports_one_line)
{
	char *path = xt_path(xt_dir, "bad.xpd"), *out, *err, want[512];
	unsigned char *b = copy();
	int status;

	xt_hdr(b)->version = 7;
	xt_spit(path, b, good_size);
	free(b);
	status = xt_run((const char *[]){"extprof", "dump", path, NULL}, NULL, &out, &err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
	snprintf(want, sizeof(want),
		 "extprof: %s: unsupported format version 7 (this extprof reads versions 1 to 3) "
		 "(offset 8)\n",
		 path);
	cr_assert_str_eq(err, want);
	cr_assert_str_empty(out);
	free(out);
	free(err);
	free(path);
}

static int run_report(const char *const *argv, char **out, char **err)
{
	int status = xt_run(argv, NULL, out, err);

	cr_assert(WIFEXITED(status), "died: %d", status);
	return WEXITSTATUS(status);
}

Test(validate, report_on_directory_with_only_a_symlink_fails)
{
	char *sub = xt_path(xt_dir, "data"), *target = xt_path(xt_dir, "good.xpd");
	char *link = xt_path(sub, "a.xpd"), *out, *err;

	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(run_report((const char *[]){"extprof", "report", sub, NULL}, &out, &err), 2);
	/* the only file, refused: its own line is the error, and the only one */
	cr_expect_eq(strncmp(err, "extprof: ", 9), 0, "%s", err);
	cr_assert_not_null(strstr(err, "/data/a.xpd: is a symbolic link; links inside a directory "
				       "are not followed\n"),
			   "%s", err);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "not one line: %s", err);
	free(out);
	free(err);
	free(sub);
	free(target);
	free(link);
}

Test(validate, report_skips_a_corrupt_file_unless_strict)
{
	char *sub = xt_path(xt_dir, "data"), *bad, *ok, *out, *err;
	unsigned char *b = copy();

	cr_assert_eq(mkdir(sub, 0700), 0);
	bad = xt_path(sub, "bad.xpd");
	ok = xt_path(sub, "ok.xpd");
	xt_sample_dump(ok, 10, 2);
	b[0] = 'Z';
	xt_spit(bad, b, good_size);
	free(b);
	cr_assert_eq(run_report((const char *[]){"extprof", "report", sub, NULL}, &out, &err), 0,
		     "%s", err);
	cr_assert_not_null(
		strstr(err, "bad.xpd: not an extprof dump (bad magic) (offset 0); file skipped"),
		"%s", err);
	cr_assert_not_null(strstr(out, "1 corrupt or unreadable dump file skipped"), "%s", out);
	cr_assert_not_null(strstr(out, "alpha@checker"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(run_report((const char *[]){"extprof", "report", "--strict", sub, NULL}, &out,
				&err),
		     2);
	cr_assert_not_null(strstr(err, "bad.xpd: not an extprof dump (bad magic) (offset 0)\n"),
			   "%s", err);
	cr_assert_str_empty(out);
	free(out);
	free(err);
	free(sub);
	free(bad);
	free(ok);
}

Test(validate, report_on_missing_path_or_empty_directory)
{
	char *sub = xt_path(xt_dir, "empty"), *missing = xt_path(xt_dir, "nope"), *out, *err;

	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_eq(run_report((const char *[]){"extprof", "report", sub, NULL}, &out, &err), 2);
	cr_assert_not_null(strstr(err, "no dump files (*.xpd) in this directory"), "%s", err);
	free(out);
	free(err);
	cr_assert_eq(run_report((const char *[]){"extprof", "report", missing, NULL}, &out, &err),
		     2);
	cr_assert_not_null(strstr(err, "nope: No such file or directory"), "%s", err);
	free(out);
	free(err);
	free(sub);
	free(missing);
}

/*
 * Structurally valid dumps with absurd numbers (floors above maxima, hits
 * above evaluations, sums near 2^64, huge bucket counts): the whole
 * pipeline, to the printed report, must cope without a crash.
 */
Test(validate, absurd_numbers_go_through_the_whole_report)
{
	unsigned seed = 99;
	FILE *sink = fopen("/dev/null", "w");

	for (int round = 0; round < 300; round++) {
		unsigned char *b = copy();
		struct extprof_dump_decl *d =
			(void *)(b + xt_section(b, EXTPROF_SECTION_DECLS)->offset);
		struct extprof_dump_hist_entry *h =
			(void *)(b + xt_section(b, EXTPROF_SECTION_HIST_SPARSE)->offset);
		uint64_t *fields = &d[round % 2].evaluations;
		struct xp_report_opts o;
		struct xp_procset s = {0};
		struct xp_err e = {""};
		struct xp_report r;
		struct xp_dump dump;

		for (int i = 0; i < 8; i++) /* evaluations .. outside */
			fields[i] =
				(rand_r(&seed) % 3)
					? ((uint64_t)rand_r(&seed) << 33) ^ (uint64_t)rand_r(&seed)
					: UINT64_MAX - (uint64_t)(rand_r(&seed) % 3);
		h[round % 2].count = UINT64_MAX - (uint64_t)round;
		xt_hdr(b)->run_total = round % 3 ? UINT64_MAX : 0;
		xt_hdr(b)->calibration = (uint64_t)rand_r(&seed) << (round % 40);
		cr_assert_eq(xp_dump_parse(&dump, b, good_size, "absurd.xpd", &e), 0, "%s", e.msg);
		cr_assert_eq(xp_procset_add(&s, &dump, &e), 0, "%s", e.msg);
		xp_report_opts_init(&o);
		o.stat = (enum xp_stat)(round % 3);
		o.format = (enum xp_format)(round % 3);
		cr_assert_eq(xp_report_build(&r, &s, &o, 0, &e), 0, "%s", e.msg);
		cr_assert_eq(xp_report_print(&r, sink), 0);
		for (size_t i = 0; i < r.nrows; i++)
			cr_assert_leq(r.rows[i].p50, r.rows[i].p99);
		xp_report_free(&r);
		xp_procset_free(&s);
		xp_dump_free(&dump);
	}
	fclose(sink);
}
