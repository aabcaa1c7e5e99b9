// SPDX-License-Identifier: MIT
/*
 * The JSON report parsed back (jansson) and held against the text report of
 * the same dumps: the same declarations in the same order, the same
 * numbers in every column, the same flags, the same caller chains, and the
 * same header figures; and the CSV against both.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "helpers.h"
#include "xt_json.h"

TestSuite(json, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 60);

static int resolve(uint64_t pc, char *buf, size_t len, uint64_t *off)
{
	snprintf(buf, len, "caller%llu+0x%llx@checker", (unsigned long long)(pc >> 12),
		 (unsigned long long)(pc & 0xfff));
	*off = pc;
	return 0;
}

/*
 * Two processes, six declarations with every kind of row: thousands, a
 * cheap one, one never called, a state-dependent one, recursion and
 * abandoned calls, a chain or two.
 */
static void fixture(void)
{
	static const struct dump_decl_info decls[] = {
		{"invariant", "quorum_agrees", "checker", 0x1130},
		{"guard", "can_vote", "checker", 0x1200},
		{"function", "tiny", "libx.so", 0x40},
		{"terminal", "never_called", "checker", 0x1300},
		{"transition", "do_step", "checker", 0x1400},
		{"action_property", "stable", "checker", 0x1500},
	};
	for (int p = 0; p < 2; p++) {
		char name[32], *path;
		struct dump_meta meta;
		struct dump_map m;

		snprintf(name, sizeof(name), "p%d.xpd", p);
		path = xt_path(xt_dir, name);
		xt_meta(&meta, NULL, 24 + 6 * (uint64_t)p, 100 + (uint64_t)p, 7 + (uint64_t)p);
		meta.caller_slots = 4;
		meta.callers_depth = 2;
		xt_create(&m, path, &meta, decls, 6, 0);
		xt_record(&m, 0, 2424 + 6 * (uint64_t)p, 1000 + 500 * (uint64_t)p);
		xt_record(&m, 1, 54, 90);
		xt_record(&m, 1, 1054, 10);
		xt_record(&m, 2, 25, 3 + (uint64_t)p);
		xt_record(&m, 4, 130000, 7);
		xt_record(&m, 4, 131000, 2);
		m.decls[4].recursive = 3;
		m.decls[5].abandoned = 2;
		xt_record(&m, 5, 700, 1);
		m.callers[0] = (struct extprof_dump_caller){.decl = 0,
							    .depth = 2,
							    .evaluations = 600,
							    .floor = 2424,
							    .floor_hits = 600,
							    .sum = 600 * 2424};
		m.callers[0].pc[0] = 0x1011;
		m.callers[0].pc[1] = 0x2022;
		m.callers[1] = (struct extprof_dump_caller){.decl = 0,
							    .depth = 1,
							    .evaluations = 400,
							    .floor = 2430,
							    .floor_hits = 1,
							    .sum = 400 * 2500};
		m.callers[1].pc[0] = 0x3033;
		m.hdr->run_total = 50000000;
		cr_assert_eq(dump_write_compact_named(&m, EXTPROF_DUMP_F_COMPLETE, resolve), 0);
		dump_unmap(&m);
		free(path);
	}
}

static char *report(const char *format, const char *stat)
{
	char *out, *err;
	int st = xt_run((const char *[]){"x", "report", "--callers", "--format", format, "--stat",
					 stat, xt_dir, NULL},
			NULL, &out, &err);

	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", err);
	free(err);
	return out;
}

/* "1,234" or "-" as a number ("-": 0). */
static long long num(const char *s)
{
	long long v = 0;

	if (!strcmp(s, "-"))
		return 0;
	for (; *s; s++) {
		if (*s == ',')
			continue;
		cr_assert(*s >= '0' && *s <= '9', "not a number: %s", s);
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* Split @line at runs of two or more blanks; up to @max cells. */
static int cells(char *line, char **cell, int max)
{
	int n = 0;
	char *p = line;

	while (*p == ' ')
		p++;
	while (*p && n < max) {
		char *gap = strstr(p, "  ");

		cell[n++] = p;
		if (!gap)
			break;
		*gap = '\0';
		p = gap + 2;
		while (*p == ' ')
			p++;
	}
	return n;
}

static const char *flags_of(json_t *d, char *buf, size_t size)
{
	json_t *f = json_object_get(d, "flags"), *x;
	size_t i, used = 0;

	buf[0] = '\0';
	json_array_foreach(f, i, x) used += (size_t)snprintf(buf + used, size - used, "%s%s",
							     i ? " " : "", json_string_value(x));
	return buf;
}

/* A share as the text shows it. */
static void share_against(const char *cell, double share, json_t *root, const char *what)
{
	char buf[64];

	if (!xt_json_int(root, "run_total"))
		cr_expect_str_eq(cell, "-");
	else if (share > 0 && share < 0.0005)
		cr_expect_str_eq(cell, "<0.1%");
	else {
		snprintf(buf, sizeof(buf), "%.1f%%", share * 100);
		cr_expect_str_eq(cell, buf, "%s", what);
	}
}

/* The column named @name in the heading @head of @n cells, or -1. */
static int column(char **head, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(head[i], name))
			return i;
	return -1;
}

/* One text row against its JSON declaration; @head the table's heading. */
static void row_against(char **c, int n, char **head, int nhead, json_t *d, json_t *root)
{
	long long evals = xt_json_int(d, "evaluations"), cost = xt_json_int(d, "cost");
	int rec = column(head, nhead, "recursive"), ab = column(head, nhead, "abandoned");
	int fl = column(head, nhead, "flags");
	char name[256], buf[256];

	cr_assert_geq(n, fl, "short row");
	snprintf(name, sizeof(name), "%s@%s", json_string_value(json_object_get(d, "name")),
		 json_string_value(json_object_get(d, "object")));
	cr_expect_str_eq(c[0], json_string_value(json_object_get(d, "kind")));
	cr_expect_str_eq(c[1], name);
	cr_expect_eq(num(c[2]), evals, "%s evaluations", name);
	cr_expect_eq(num(c[3]), xt_json_int(d, "per_eval"), "%s per-eval", name);
	cr_expect_eq(!strcmp(c[3], "-"), evals == 0, "%s", name);
	cr_expect_eq(num(c[4]), cost, "%s cost", name);
	share_against(c[5], json_number_value(json_object_get(d, "share")), root, name);
	cr_expect_eq(num(c[6]), xt_json_int(d, "observed"), "%s observed", name);
	share_against(c[7], json_number_value(json_object_get(d, "observed_share")), root, name);
	if (cost) {
		snprintf(buf, sizeof(buf), "%.2f",
			 (double)xt_json_int(d, "observed") / (double)cost);
		cr_expect_str_eq(c[8], buf, "%s obs/cost", name);
	} else {
		cr_expect_str_eq(c[8], "-");
	}
	if (rec >= 0)
		cr_expect_eq(num(c[rec]), xt_json_int(d, "recursive"), "%s recursive", name);
	else
		cr_expect_eq(xt_json_int(d, "recursive"), 0, "%s: no recursive column", name);
	if (ab >= 0)
		cr_expect_eq(num(c[ab]), xt_json_int(d, "abandoned"), "%s abandoned", name);
	else
		cr_expect_eq(xt_json_int(d, "abandoned"), 0, "%s: no abandoned column", name);
	cr_expect_str_eq(n > fl ? c[fl] : "", flags_of(d, buf, sizeof(buf)), "%s flags", name);
}

/* "    <- a <- b   evaluations 1  per-eval 2  cost 3  observed 4[  unsettled]" */
static void chain_against(char *line, json_t *c)
{
	json_t *frames = json_object_get(c, "chain");
	char want[512] = "", tail[256];
	size_t used = 0, i;
	json_t *f;

	if (!json_array_size(frames))
		used = (size_t)snprintf(want, sizeof(want), " <- (other callers)");
	json_array_foreach(frames, i, f) used +=
		(size_t)snprintf(want + used, sizeof(want) - used, " <- %s", json_string_value(f));
	cr_expect_eq(strncmp(line + 3, want, strlen(want)), 0, "%s vs %s", line, want);
	snprintf(tail, sizeof(tail),
		 "   evaluations %lld  per-eval %lld  cost %lld  observed %lld%s",
		 xt_json_int(c, "evaluations"), xt_json_int(c, "per_eval"), xt_json_int(c, "cost"),
		 xt_json_int(c, "observed"),
		 json_is_true(json_object_get(c, "settled")) ? "" : "  unsettled");
	/* the text has thousands separators; compare without them */
	{
		char a[512], b[512];
		size_t k = 0;

		for (const char *p = line + 3 + strlen(want); *p && k < sizeof(a) - 1; p++)
			if (*p != ',')
				a[k++] = *p;
		a[k] = '\0';
		snprintf(b, sizeof(b), "%s", tail);
		cr_expect_str_eq(a, b);
	}
}

/* A number of the text ("1,234") after @key in @line, or -1 when @key is not there. */
static long long text_after(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	long long v = 0;

	if (!p)
		return -1;
	for (p += strlen(key); (*p >= '0' && *p <= '9') || *p == ','; p++)
		if (*p != ',')
			v = v * 10 + (*p - '0');
	return v;
}

/*
 * A line of the spread under a row flagged imbalance (report_text.c's
 * text_spread) against the declaration's "spread": per-eval or evaluations
 * least, median, greatest, and who had the greatest.
 */
static void spread_against(const char *line, json_t *d)
{
	json_t *sp = json_object_get(d, "spread");
	const char *what = strstr(line, "per-eval least") ? "per_eval" : "evaluations";
	json_t *fig = json_object_get(sp, what), *at = json_object_get(fig, "greatest_at");
	char who[128];

	char flags[256];

	cr_assert_not_null(fig, "%s: no spread of %s", line, what);
	cr_expect_not_null(strstr(flags_of(d, flags, sizeof(flags)), "imbalance"),
			   "%s: a spread under a row not flagged imbalance", line);
	cr_expect_eq(text_after(line, " least "), xt_json_int(fig, "least"), "%s", line);
	cr_expect_eq(text_after(line, " median "), xt_json_int(fig, "median"), "%s", line);
	cr_expect_eq(text_after(line, " greatest "), xt_json_int(fig, "greatest"), "%s", line);
	snprintf(who, sizeof(who), "(host %s, pid %lld)",
		 json_string_value(json_object_get(at, "host")), xt_json_int(at, "pid"));
	cr_expect_not_null(strstr(line, who), "%s lacks %s", line, who);
	if (!strcmp(what, "per_eval"))
		cr_expect_eq(text_after(line, "margin "), xt_json_int(sp, "per_eval_margin"), "%s",
			     line);
}

static void text_against_json(const char *stat)
{
	char *text = report("text", stat), *json = report("json", stat), *line, *save, *c[16];
	char *head[16];
	int nhead = 0;
	json_t *root = xt_json_parse(json), *decls = json_object_get(root, "declarations");
	size_t row = 0, chain = 0, spreads = 0;
	bool table = false;
	json_t *d = NULL;
	char want[128];

	snprintf(want, sizeof(want), "extprof report: %lld processes (pids 100, 101), %lld workers",
		 xt_json_int(root, "processes"), xt_json_int(root, "workers"));
	cr_expect_eq(strncmp(text, want, strlen(want)), 0, "%s", text);
	snprintf(want, sizeof(want), "calibration  %lld to %lld (each process its own) steps",
		 xt_json_int(root, "calibration"), xt_json_int(root, "calibration_max"));
	cr_expect_not_null(strstr(text, want), "%s", want);
	snprintf(want, sizeof(want), "run total    %s steps", "100,000,000");
	cr_expect_eq(xt_json_int(root, "run_total"), 100000000);
	cr_expect_not_null(strstr(text, want), "%s", want);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "kind ", 5)) {
			table = true;
			nhead = cells(line, head, 16);
			cr_assert_eq(column(head, nhead, "obs share"), 7, "%s", line);
			cr_assert_eq(column(head, nhead, "recursive"), 9, "%s", line);
			cr_assert_eq(column(head, nhead, "abandoned"), 10, "%s", line);
			continue;
		}
		if (!table)
			continue;
		if (!strncmp(line, "per-eval: ", 10))
			break;
		if (!strncmp(line, "    <- ", 7)) {
			json_t *ch = json_object_get(d, "callers");

			cr_assert_lt(chain, json_array_size(ch), "an extra chain: %s", line);
			chain_against(line, json_array_get(ch, chain++));
			continue;
		}
		if (!strncmp(line, "    ", 4) && strstr(line, " least ")) {
			cr_assert_not_null(d, "a spread before any row: %s", line);
			spread_against(line, d);
			spreads++;
			continue;
		}
		if (d)
			cr_expect_eq(chain, json_array_size(json_object_get(d, "callers")));
		cr_assert_lt(row, json_array_size(decls), "an extra row: %s", line);
		d = json_array_get(decls, row++);
		chain = 0;
		row_against(c, cells(line, c, 16), head, nhead, d, root);
	}
	cr_expect_eq(row, json_array_size(decls), "rows: %zu of %zu", row, json_array_size(decls));
	cr_expect_eq(row, 6);
	cr_expect_gt(spreads, 0, "no spread under any row");
	json_decref(root);
	free(text);
	free(json);
}

Test(json, text_and_json_agree)
{
	fixture();
	text_against_json("min");
}

Test(json, text_and_json_agree_for_median_and_mean)
{
	fixture();
	text_against_json("median");
	text_against_json("mean");
}

/* Split a CSV line at its commas, quoted fields whole (quotes kept): up to @max fields. */
static int csv_fields(char *line, char **f, int max)
{
	int n = 0;
	bool quoted = false;

	f[n++] = line;
	for (char *p = line; *p && n < max; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == ',' && !quoted) {
			*p = '\0';
			f[n++] = p + 1;
		}
	}
	return n;
}

/* The CSV column @name of fields @f, whose names @head holds (@nhead of them). */
static const char *csv_col(char **head, int nhead, char **f, int n, const char *name)
{
	int i = column(head, nhead, name);

	cr_assert(i >= 0 && i < n, "no column %s", name);
	return f[i];
}

/* The CSV's spread columns (with several processes) against the declaration's "spread". */
static void csv_spread_against(char **head, int nhead, char **f, int n, json_t *d)
{
	json_t *sp = json_object_get(d, "spread"), *pe = json_object_get(sp, "per_eval");
	json_t *ev = json_object_get(sp, "evaluations");
	json_t *at = json_object_get(pe, "greatest_at");

	cr_expect_eq(atoll(csv_col(head, nhead, f, n, "processes")), xt_json_int(sp, "processes"));
	cr_expect_eq(atoll(csv_col(head, nhead, f, n, "evaluations_least")),
		     xt_json_int(ev, "least"));
	cr_expect_eq(atoll(csv_col(head, nhead, f, n, "evaluations_median")),
		     xt_json_int(ev, "median"));
	cr_expect_eq(atoll(csv_col(head, nhead, f, n, "evaluations_greatest")),
		     xt_json_int(ev, "greatest"));
	if (!pe) {
		cr_expect_str_empty(csv_col(head, nhead, f, n, "per_eval_least"));
		return;
	}
	cr_expect_eq(atoll(csv_col(head, nhead, f, n, "per_eval_least")), xt_json_int(pe, "least"));
	cr_expect_eq(atoll(csv_col(head, nhead, f, n, "per_eval_median")),
		     xt_json_int(pe, "median"));
	cr_expect_eq(atoll(csv_col(head, nhead, f, n, "per_eval_greatest")),
		     xt_json_int(pe, "greatest"));
	cr_expect_str_eq(csv_col(head, nhead, f, n, "per_eval_greatest_host"),
			 json_string_value(json_object_get(at, "host")));
	cr_expect_eq(atoll(csv_col(head, nhead, f, n, "per_eval_greatest_pid")),
		     xt_json_int(at, "pid"));
}

/* The CSV says the same numbers as the JSON, row by row. */
Test(json, csv_and_json_agree)
{
	char *csv, *json, *line, *save, *head[64], *f[64], *head_line = NULL;
	json_t *root, *decls;
	size_t row = 0;
	int nhead = 0;

	fixture();
	csv = report("csv", "min");
	json = report("json", "min");
	root = xt_json_parse(json);
	decls = json_object_get(root, "declarations");
	for (line = strtok_r(csv, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
		char want[512];
		json_t *d;

		if (!strncmp(line, "kind,", 5)) {
			head_line = strdup(line);
			nhead = csv_fields(head_line, head, 64);
			continue;
		}
		d = json_array_get(decls, row++);
		snprintf(want, sizeof(want), "%s,%s,%s,%lld,%lld,%lld,",
			 json_string_value(json_object_get(d, "kind")),
			 json_string_value(json_object_get(d, "name")),
			 json_string_value(json_object_get(d, "object")),
			 xt_json_int(d, "evaluations"), xt_json_int(d, "per_eval"),
			 xt_json_int(d, "cost"));
		cr_expect_eq(strncmp(line, want, strlen(want)), 0, "%s vs %s", line, want);
		{
			int n = csv_fields(line, f, 64);

			cr_expect_float_eq(
				strtod(csv_col(head, nhead, f, n, "observed_share"), NULL),
				json_number_value(json_object_get(d, "observed_share")), 1e-8, "%s",
				line);
			/* two processes: the spread's columns */
			csv_spread_against(head, nhead, f, n, d);
		}
	}
	cr_expect_eq(row, json_array_size(decls));
	json_decref(root);
	free(head_line);
	free(csv);
	free(json);
}
