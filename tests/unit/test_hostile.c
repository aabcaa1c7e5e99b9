// SPDX-License-Identifier: MIT
/*
 * Hostile input, through the built binary: every kind of defect is one line
 * on stderr naming the file and the offset, exit status 2, nothing on
 * stdout; a directory of thousands of dumps works, and fast; symbolic
 * links are refused; a file rewritten while it is read never crashes the
 * reader (one line, or the right figures); dumps of different counters,
 * CPUs or executables are refused, naming both files, unless mixing is
 * allowed; and nothing the user had is ever changed.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "read/dump_read.h"
#include "helpers.h"
#include "model/load.h"
#include "cmd/cmd.h"
#include "report/report.h"

static unsigned char *good;
static size_t good_size;

/* One caller chain, of quorum_agrees: 4 evaluations from 0x1234. */
static void chains(struct dump_map *m)
{
	m->callers[0].depth = 1;
	m->callers[0].pc[0] = 0x1234;
	m->callers[0].evaluations = 4;
	m->callers[0].floor = 103;
	m->callers[0].floor_hits = 4;
	m->callers[0].sum = 412;
}

/* A compact dump of 2 declarations with a caller chain, kept to be damaged. */
static void setup(void)
{
	char *path;

	xt_dir_init();
	path = xt_path(xt_dir, "good.xpd");
	good = xt_hostile_good(path, 2, 103, chains, &good_size);
	unlink(path);
	free(path);
}

static void teardown(void)
{
	xt_dir_fini();
	free(good);
}

TestSuite(hostile, .init = setup, .fini = teardown, .timeout = 120);

static void *sec_data(unsigned char *b, uint32_t type)
{
	return b + xt_section(b, type)->offset;
}

struct hostile {
	const char *name;
	const char *want; /* in the message, after "PATH: " */
	size_t size;	  /* of the file; 0: good_size */
	void (*damage)(unsigned char *b);
};

static void d_empty(unsigned char *b)
{
	(void)b;
}
static void d_magic(unsigned char *b)
{
	memcpy(b, "ELF\x7f\0\0\0\0", 8);
}
static void d_version(unsigned char *b)
{
	xt_hdr(b)->version = 4;
}
static void d_offset_outside(unsigned char *b)
{
	xt_section(b, EXTPROF_SECTION_STRINGS)->offset = 1ull << 40;
}
static void d_length_outside(unsigned char *b)
{
	xt_section(b, EXTPROF_SECTION_HIST_SPARSE)->count += 1000;
}
static void d_count_overflow(unsigned char *b)
{
	/* 2^60 + 1 entries of 112 bytes wrap to a small size */
	xt_section(b, EXTPROF_SECTION_DECLS)->count = (1ull << 60) + 1;
}
static void d_string_outside(unsigned char *b)
{
	((struct extprof_dump_decl *)sec_data(b, EXTPROF_SECTION_DECLS))[0].kind = 0xfffffff0u;
}
static void d_index_outside(unsigned char *b)
{
	((struct extprof_dump_hist_entry *)sec_data(b, EXTPROF_SECTION_HIST_SPARSE))[0].decl = 9;
}
static void d_callers_depth(unsigned char *b)
{
	((struct extprof_dump_caller *)sec_data(b, EXTPROF_SECTION_CALLERS))[0].depth = 200;
}
static void d_nsections(unsigned char *b)
{
	xt_hdr(b)->nsections = 0xffffffffu;
}
static void d_unterminated(unsigned char *b)
{
	memset(xt_hdr(b)->cpu_model, 'C', sizeof(xt_hdr(b)->cpu_model));
}
static void d_file_size(unsigned char *b)
{
	xt_hdr(b)->file_size = UINT64_MAX;
}

static const struct hostile cases[] = {
	{"empty", "empty: a dump being created", 0, d_empty},
	{"short", "truncated: 5 bytes, shorter than the magic (offset 5)", 5, NULL},
	{"truncated", "truncated: 1300 bytes of the ", 1300, NULL},
	{"magic", "not an extprof dump (bad magic) (offset 0)", 0, d_magic},
	{"version", "unsupported format version 4 (this extprof reads versions 1 to 3) (offset 8)",
	 0, d_version},
	{"offset", "(STRINGS): ", 0, d_offset_outside},
	{"length", "(HIST_SPARSE): ", 0, d_length_outside},
	{"overflow", "(DECLS): 1152921504606846977 entries at offset", 0, d_count_overflow},
	{"string", "decls[0].kind: string offset 4294967280 outside STRINGS", 0, d_string_outside},
	{"index", "hist[0].decl 9 out of range (2 declarations)", 0, d_index_outside},
	{"callers", "callers[0].depth 200 larger than 8", 0, d_callers_depth},
	{"nsections", "nsections 4294967295 out of range (1..16) (offset 32)", 0, d_nsections},
	{"unterminated", "header field cpu_model is not NUL-terminated", 0, d_unterminated},
	{"file_size", "truncated: ", 0, d_file_size},
};

/* Write case @c at @path. */
static void write_case(const struct hostile *c, const char *path)
{
	size_t size = c->size ? c->size : c->damage == d_empty ? 0 : good_size;
	unsigned char *b = xt_memdup(good, good_size);

	if (c->damage)
		c->damage(b);
	xt_spit(path, b, size);
	free(b);
}

static int run(const char *const *argv, char **out, char **err)
{
	int status = xt_run(argv, NULL, out, err);

	cr_assert(WIFEXITED(status), "extprof died: status %d", status);
	return WEXITSTATUS(status);
}

/* Exit 2, nothing on stdout, one line "extprof: PATH: ... (offset N)" with @want. */
static void expect_one_line(const char *const *argv, const char *path, const char *want,
			    const char *name)
{
	char *out, *err, prefix[512];

	cr_expect_eq(run(argv, &out, &err), 2, "%s %s: %s", name, argv[1], err);
	snprintf(prefix, sizeof(prefix), "extprof: %s: ", path);
	cr_expect_eq(strncmp(err, prefix, strlen(prefix)), 0, "%s %s: %s", name, argv[1], err);
	cr_expect_not_null(strstr(err, want), "%s %s: %s lacks %s", name, argv[1], err, want);
	cr_expect_not_null(strstr(err, " (offset "), "%s %s: %s", name, argv[1], err);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "%s %s: not one line: %s", name,
		     argv[1], err);
	cr_expect_str_empty(out, "%s %s: %s", name, argv[1], out);
	free(out);
	free(err);
}

/* report FILE, dump FILE, diff FILE FILE, report --strict DIR: the same one line. */
Test(hostile, every_defect_is_one_line_and_exit_2)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hostile *c = &cases[i];
		char name[64], *path, *sub;

		snprintf(name, sizeof(name), "%s.xpd", c->name);
		path = xt_path(xt_dir, name);
		write_case(c, path);
		expect_one_line((const char *[]){"x", "report", path, NULL}, path, c->want,
				c->name);
		expect_one_line((const char *[]){"x", "dump", path, NULL}, path, c->want, c->name);
		expect_one_line((const char *[]){"x", "diff", path, path, NULL}, path, c->want,
				c->name);
		free(path);
		snprintf(name, sizeof(name), "d-%s", c->name);
		sub = xt_path(xt_dir, name);
		cr_assert_eq(mkdir(sub, 0700), 0);
		path = xt_path(sub, "p.w000.xpd");
		write_case(c, path);
		free(path);
		path = xt_path(sub, "q.w000.xpd");
		xt_sample_dump(path, 9, 2);
		free(path);
		path = xt_path(sub, "p.w000.xpd");
		expect_one_line((const char *[]){"x", "report", "--strict", sub, NULL}, path,
				c->want, c->name);
		free(path);
		free(sub);
	}
}

/* Without --strict a bad file among good ones is skipped, with its line. */
Test(hostile, a_bad_file_among_good_ones_is_skipped)
{
	char *sub = xt_path(xt_dir, "data"), *bad, *ok, *out, *err, want[512];

	cr_assert_eq(mkdir(sub, 0700), 0);
	bad = xt_path(sub, "a.xpd");
	ok = xt_path(sub, "b.xpd");
	write_case(&cases[3], bad);
	xt_sample_dump(ok, 9, 2);
	cr_assert_eq(run((const char *[]){"x", "report", sub, NULL}, &out, &err), 0, "%s", err);
	snprintf(want, sizeof(want),
		 "extprof: %s: not an extprof dump (bad magic) (offset 0); file skipped\n", bad);
	cr_expect_str_eq(err, want);
	cr_expect_not_null(strstr(out, "warning: 1 corrupt or unreadable dump file skipped"), "%s",
			   out);
	free(out);
	free(err);
	free(sub);
	free(bad);
	free(ok);
}

/*
 * 3000 small dumps: 300 processes of 10 workers; all read, in little time.
 * One dump is written by the shim's writer and copied with its process,
 * worker and figures changed (writing 3000 through mmap is the slow part).
 */
Test(hostile, thousands_of_dumps, .timeout = 120)
{
	static const struct dump_decl_info d[] = {{"function", "f", "checker", 0x10},
						  {"guard", "g", "checker", 0x20}};
	char *sub = xt_path(xt_dir, "many"), name[64], *out, *err,
	     *tpl = xt_path(xt_dir, "tpl.xpd");
	struct extprof_dump_hist_entry *h;
	struct extprof_dump_decl *x;
	struct dump_meta meta;
	struct timespec t0, t1;
	struct dump_map m;
	unsigned char *b;
	size_t size;
	double secs;

	cr_assert_eq(mkdir(sub, 0700), 0);
	xt_meta(&meta, NULL, 10, 1000, 5000);
	xt_create(&m, tpl, &meta, d, 2, 0);
	xt_record(&m, 0, 110, 3);
	xt_record(&m, 1, 20, 1);
	xt_finish(&m, true);
	b = xt_slurp(tpl, &size);
	x = sec_data(b, EXTPROF_SECTION_DECLS);
	h = sec_data(b, EXTPROF_SECTION_HIST_SPARSE);
	cr_assert(h[0].decl == 0 && h[0].bucket == 110);
	for (uint32_t p = 0; p < 300; p++) {
		for (uint32_t w = 0; w < 10; w++) {
			char *path;

			xt_hdr(b)->pid = 1000 + p;
			xt_hdr(b)->process_id = 5000 + p;
			xt_hdr(b)->worker = w;
			x[0].floor = x[0].max = 110 + w;
			x[0].sum = 3 * (110 + w);
			h[0].bucket = 110 + w;
			snprintf(name, sizeof(name), "c.host.%u.%u.w%03u.xpd", 1000 + p, 5000 + p,
				 w);
			path = xt_path(sub, name);
			xt_spit(path, b, size);
			free(path);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", sub, NULL}, &out, &err), 0,
		"%s", err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_log_info("3000 dumps reported in %.3f s", secs);
	cr_expect_lt(secs, 10.0, "3000 dumps took %.3f s", secs);
	cr_expect_not_null(strstr(out, "\"processes\": 300,\n  \"workers\": 3000,"), "%s", out);
	cr_expect_not_null(strstr(out, "\"evaluations\": 9000,\n      \"per_eval\": 100,"), "%s",
			   out);
	cr_expect_str_empty(err);
	free(out);
	free(err);
	free(sub);
	free(tpl);
	free(b);
}

/* A link in a dump directory is refused, one line; the real dumps are read. */
Test(hostile, symlinks_in_a_directory_are_refused)
{
	char *sub = xt_path(xt_dir, "data"), *ok, *link, *target, *out, *err, want[512];

	cr_assert_eq(mkdir(sub, 0700), 0);
	ok = xt_path(sub, "b.xpd");
	link = xt_path(sub, "a.xpd");
	target = xt_path(xt_dir, "elsewhere.xpd");
	xt_sample_dump(ok, 9, 2);
	xt_sample_dump(target, 10, 2);
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(run((const char *[]){"x", "report", sub, NULL}, &out, &err), 0, "%s", err);
	snprintf(want, sizeof(want),
		 "extprof: %s: is a symbolic link; links inside a directory are not followed; "
		 "file skipped\n",
		 link);
	cr_expect_str_eq(err, want);
	cr_expect_not_null(strstr(out, "1 process (pid 9)"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "report", "--strict", sub, NULL}, &out, &err), 2);
	snprintf(want, sizeof(want),
		 "extprof: %s: is a symbolic link; links inside a directory are not followed\n",
		 link);
	cr_expect_str_eq(err, want);
	free(out);
	free(err);
	free(sub);
	free(ok);
	free(link);
	free(target);
}

/* ---- a file rewritten while it is read ---- */

struct rewriter {
	const char *path;
	volatile int stop;
	unsigned long rounds;
};

/*
 * Truncate and rewrite in place, in every way a writer could: cut short,
 * emptied and written again, garbage over it, the good bytes back.
 */
static void *rewrite_loop(void *arg)
{
	struct rewriter *r = arg;
	unsigned char *junk = malloc(good_size);
	int fd = open(r->path, O_WRONLY);
	unsigned seed = 5;

	cr_assert_geq(fd, 0);
	while (!r->stop) {
		size_t cut = (size_t)rand_r(&seed) % good_size;

		switch (r->rounds++ % 4) {
		case 0:
			cr_assert_eq(ftruncate(fd, (off_t)cut), 0);
			break;
		case 1:
			cr_assert_eq(ftruncate(fd, 0), 0);
			break;
		case 2:
			for (size_t i = 0; i < good_size; i++)
				junk[i] = (unsigned char)rand_r(&seed);
			memcpy(junk, good, cut < 512 ? cut : 512); /* a header, sometimes */
			cr_assert_eq(pwrite(fd, junk, good_size, 0), (ssize_t)good_size);
			break;
		default:
			break;
		}
		cr_assert_eq(pwrite(fd, good, good_size, 0), (ssize_t)good_size);
		cr_assert_eq(ftruncate(fd, (off_t)good_size), 0);
	}
	close(fd);
	free(junk);
	return NULL;
}

Test(hostile, a_file_rewritten_while_read)
{
	char *path = xt_path(xt_dir, "moving.xpd");
	struct rewriter r = {path, 0, 0};
	FILE *sink = fopen("/dev/null", "w");
	size_t ok = 0, bad = 0;
	pthread_t t;

	xt_spit(path, good, good_size);
	cr_assert_eq(pthread_create(&t, NULL, rewrite_loop, &r), 0);
	for (int i = 0; i < 20000; i++) {
		struct xp_procset s = {0};
		struct xp_report_opts o;
		struct xp_err e = {""};
		struct xp_report rep;
		struct xp_dump d;

		if (xp_dump_read(&d, AT_FDCWD, path, path, true, &e)) {
			cr_assert_eq(strncmp(e.msg, path, strlen(path)), 0, "%s", e.msg);
			cr_assert_null(strchr(e.msg, '\n'), "%s", e.msg);
			bad++;
			continue;
		}
		/* read whole: a report of it cannot fail, and must not crash */
		cr_assert_eq(xp_procset_add(&s, &d, &e), 0, "%s", e.msg);
		xp_report_opts_init(&o);
		o.callers = true;
		cr_assert_eq(xp_report_build(&rep, &s, &o, 0, &e), 0, "%s", e.msg);
		cr_assert_eq(xp_report_print(&rep, sink), 0);
		if (d.size == good_size && !memcmp(d.buf, good, good_size)) {
			/* the good bytes: the right figures */
			cr_assert_eq(rep.nrows, 2);
			cr_assert_eq(rep.rows[0].fin.evaluations + rep.rows[1].fin.evaluations, 6);
			ok++;
		}
		xp_report_free(&rep);
		xp_procset_free(&s);
		xp_dump_free(&d);
	}
	r.stop = 1;
	pthread_join(t, NULL);
	fclose(sink);
	cr_log_info("rewritten %lu times: %zu good reads, %zu refused", r.rounds, ok, bad);
	cr_expect_gt(r.rounds, 100);
	free(path);
}

/* The binary too, while the file moves: status 0 or 2, never a crash. */
Test(hostile, the_binary_on_a_moving_file)
{
	char *path = xt_path(xt_dir, "moving.xpd"), *out, *err;
	struct rewriter r = {path, 0, 0};
	pthread_t t;

	xt_spit(path, good, good_size);
	cr_assert_eq(pthread_create(&t, NULL, rewrite_loop, &r), 0);
	for (int i = 0; i < 100; i++) {
		int st = run((const char *[]){"x", "report", "--callers", path, NULL}, &out, &err);

		cr_assert(st == 0 || st == 2, "status %d: %s", st, err);
		if (st == 2) {
			cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "%s", err);
			cr_assert_str_empty(out);
		}
		free(out);
		free(err);
	}
	r.stop = 1;
	pthread_join(t, NULL);
	free(path);
}

/* ---- mixed inputs ---- */

static void dump_as(const char *name, uint64_t pid, const char *counter, const char *cpu,
		    const char *exe)
{
	static const struct dump_decl_info d = {"function", "f", "checker", 0x10};
	char *path = xt_path(xt_dir, name);
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, counter, 10, pid, pid);
	if (cpu)
		strcpy(meta.cpu_model, cpu);
	if (exe) {
		strcpy(meta.exe_path, exe);
		meta.build_id[3] ^= 0xff;
	}
	xt_create(&m, path, &meta, &d, 1, 0);
	xt_record(&m, 0, 110, 5);
	xt_finish(&m, true);
	free(path);
}

/* One line naming both files, exit 2; --allow-mixed merges with a warning. */
static void expect_mixed(const char *want, bool allowed, const char *warning)
{
	char *out, *err, *a = xt_path(xt_dir, "a.xpd"), *b = xt_path(xt_dir, "b.xpd");

	cr_expect_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 2, "%s", out);
	cr_expect_not_null(strstr(err, want), "%s lacks %s", err, want);
	cr_expect_not_null(strstr(err, a), "%s does not name %s", err, a);
	cr_expect_not_null(strstr(err, b), "%s does not name %s", err, b);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "not one line: %s", err);
	cr_expect_str_empty(out);
	free(out);
	free(err);
	cr_expect_eq(
		run((const char *[]){"x", "report", "--allow-mixed", xt_dir, NULL}, &out, &err),
		allowed ? 0 : 2, "%s", err);
	if (warning)
		cr_expect_not_null(strstr(out, warning), "%s lacks %s", out, warning);
	free(out);
	free(err);
	free(a);
	free(b);
}

Test(hostile, different_counters_are_refused)
{
	dump_as("a.xpd", 1, "var:steps", NULL, NULL);
	dump_as("b.xpd", 2, "tsc", NULL, NULL);
	expect_mixed("counter tsc (ticks) does not match counter var:steps (steps) of ", false,
		     NULL);
}

Test(hostile, different_cpus_are_refused_unless_allowed)
{
	dump_as("a.xpd", 1, NULL, "CPU A", NULL);
	dump_as("b.xpd", 2, NULL, "CPU B", NULL);
	expect_mixed("ran on CPU \"CPU B\", but ", true,
		     "\nwarning: processes ran on different CPUs: \"CPU A\" (pid 1) and \"CPU "
		     "B\" (pid 2)\n");
}

/* Different executables: each its rows (a column says which); --allow-mixed merges them. */
Test(hostile, different_executables_are_kept_apart_unless_allowed)
{
	char *out, *err;

	dump_as("a.xpd", 1, NULL, NULL, NULL);
	dump_as("b.xpd", 2, NULL, NULL, "/opt/other");
	cr_expect_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(
		strstr(out, "executables  2, each with rows of its own: checker, other\n"), "%s",
		out);
	cr_expect_not_null(strstr(out, "kind      executable  declaration"), "%s", out);
	cr_expect_null(strstr(out, "warning"), "%s", out);
	free(out);
	free(err);
	cr_expect_eq(
		run((const char *[]){"x", "report", "--allow-mixed", xt_dir, NULL}, &out, &err), 0,
		"%s", err);
	cr_expect_not_null(strstr(out, "\nwarning: processes ran different executables: "), "%s",
			   out);
	cr_expect_null(strstr(out, "executable  declaration"), "%s", out);
	free(out);
	free(err);
}

/* ---- nothing the user had is changed ---- */

struct snap {
	char name[64];
	struct stat st;
	unsigned char *bytes;
	size_t size;
};

static void snap_take(struct snap *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++) {
		char *p = xt_path(xt_dir, names[i]);

		snprintf(s[i].name, sizeof(s[i].name), "%s", names[i]);
		cr_assert_eq(lstat(p, &s[i].st), 0, "%s", p);
		s[i].bytes = S_ISREG(s[i].st.st_mode) ? xt_slurp(p, &s[i].size) : NULL;
		free(p);
	}
}

static void snap_same(const struct snap *s, int n)
{
	for (int i = 0; i < n; i++) {
		char *p = xt_path(xt_dir, s[i].name);
		struct stat st;
		size_t size;

		cr_assert_eq(lstat(p, &st), 0, "%s is gone", p);
		cr_expect_eq(st.st_mtim.tv_sec, s[i].st.st_mtim.tv_sec, "%s touched", p);
		cr_expect_eq(st.st_mtim.tv_nsec, s[i].st.st_mtim.tv_nsec, "%s touched", p);
		cr_expect_eq(st.st_mode, s[i].st.st_mode, "%s", p);
		if (s[i].bytes) {
			unsigned char *b = xt_slurp(p, &size);

			cr_expect(size == s[i].size && !memcmp(b, s[i].bytes, size), "%s changed",
				  p);
			free(b);
		}
		free(p);
	}
}

Test(hostile, nothing_is_overwritten)
{
	static const char *const names[] = {"a.xpd", "b.xpd", "bad.xpd", "notes.txt", "link.xpd"};
	const char *shim = getenv("EXTPROF_FAKE_SHIM");
	char *a = xt_path(xt_dir, "a.xpd"), *out, *err, *shim_env,
	     *notes = xt_path(xt_dir, "notes.txt");
	char *link = xt_path(xt_dir, "link.xpd"), *bad = xt_path(xt_dir, "bad.xpd");
	struct snap before[5];
	int st;

	xt_sample_dump(a, 1, 2);
	free(a);
	a = xt_path(xt_dir, "b.xpd");
	xt_sample_dump(a, 2, 2);
	write_case(&cases[4], bad);
	xt_spit(notes, "mine\n", 5);
	cr_assert_eq(symlink(notes, link), 0);
	snap_take(before, names, 5);
	run((const char *[]){"x", "report", "--callers", xt_dir, NULL}, &out, &err);
	free(out);
	free(err);
	run((const char *[]){"x", "report", "--format", "csv", a, bad, NULL}, &out, &err);
	free(out);
	free(err);
	run((const char *[]){"x", "dump", bad, NULL}, &out, &err);
	free(out);
	free(err);
	run((const char *[]){"x", "diff", xt_dir, a, NULL}, &out, &err);
	free(out);
	free(err);
	/* run refuses the directory (notes.txt is not a dump): before starting anything */
	cr_assert(asprintf(&shim_env, "EXTPROF_SHIM=%s", shim) > 0);
	st = xt_run((const char *[]){"x", "run", "-o", xt_dir, "-H", "function:f", "--repeat", "2",
				     "--", "/bin/sh", "-c", "echo ran", NULL},
		    (const char *[]){shim_env, NULL}, &out, &err);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s", err);
	cr_expect_null(strstr(out, "ran"), "%s", out);
	free(out);
	free(err);
	snap_same(before, 5);
	for (int i = 0; i < 5; i++)
		free(before[i].bytes);
	free(shim_env);
	free(a);
	free(notes);
	free(link);
	free(bad);
}
