// SPDX-License-Identifier: MIT
/*
 * Where users look, and that every view says what the report says.
 * Debian's bzip2 with BZ2_compressBlock and BZ2_blockSort hooked (the
 * second runs inside the first) is exported and read back by each tool:
 * go tool pprof -top (flat and cum), callgrind_annotate (self and
 * inclusive), the folded stacks (added up here, and read by speedscope,
 * from npm, in headless Chromium), and the HTML page in headless Chromium
 * (its DOM once its script ran, and a screenshot that is not blank).  In
 * each, a declaration's inclusive figure is its cost in the report, its
 * self what it did outside the hooked function inside it, and its share
 * the text report's.  Then the doubling test's page.  The figures are
 * compared with the report's of the same dumps, so a time counter serves.
 */
#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define LIBBZ2	  "libbz2.so.1.0"
#define COMPRESS  "BZ2_compressBlock"
#define BLOCKSORT "BZ2_blockSort"

static const char *const decls[] = {COMPRESS, BLOCKSORT};

/* What the report says of a declaration. */
struct said {
	long long cost, self_cost, observed, self_observed;
	double share, observed_share;
};

/* Three blocks' worth of text for bzip2 -9: words from a fixed sequence. */
static char *bzip2_input(const char *dir)
{
	static const char *const words[] = {"state",  "guard", "invariant", "quorum", "vote",
					    "leader", "term",  "log",	    "commit", "append"};
	char *path;
	FILE *f;
	uint32_t x = 12345;

	cr_assert(asprintf(&path, "%s/input.txt", dir) > 0);
	f = fopen(path, "w");
	cr_assert(f);
	for (int i = 0; i < 400000; i++) {
		x = x * 1103515245u + 12345u;
		fprintf(f, "%s%c", words[(x >> 16) % 10], (x >> 8) % 9 ? ' ' : '\n');
	}
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* bzip2 under `extprof run`, both functions hooked, callers @callers deep: its dumps. */
static char *bzip2_dumps(const char *dir, const char *callers)
{
	char *input = bzip2_input(dir), *data, *out;
	struct run_result r;

	cr_assert(asprintf(&data, "%s/data", dir) > 0);
	cr_assert(asprintf(&out, "%s/run.txt", dir) > 0);
	const char *argv[] = {harness_path("EXTPROF_BIN"),
			      "run",
			      "-o",
			      data,
			      "--counter",
			      "tsc",
			      "--callers",
			      callers,
			      "-H",
			      "function:" COMPRESS "@" LIBBZ2,
			      "-H",
			      "function:" BLOCKSORT "@" LIBBZ2,
			      "--output",
			      out,
			      "--",
			      "bzip2",
			      "-9",
			      "-c",
			      input,
			      NULL};
	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "bzip2 under extprof run: %s", r.err);
	cr_assert(strstr(r.err, "hooked 2/2"), "%s", r.err);
	harness_free(&r);
	free(input);
	free(out);
	return data;
}

/* `extprof report --format @format @data` into @dir/@name: its path. */
static char *export(const char *dir, const char *data, const char *format, const char *name)
{
	struct run_result r;
	char *file;

	cr_assert(asprintf(&file, "%s/%s", dir, name) > 0);
	const char *argv[] = {
		harness_path("EXTPROF_BIN"), "report", "--format", format, "-o", file, data, NULL};
	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "report --format %s: %s", format, r.err);
	harness_free(&r);
	return file;
}

/* The report's figures of each declaration, and its run total; its text's shares checked. */
static long long report_said(const char *data, struct said said[2])
{
	json_t *rep = harness_report(data, NULL);
	const char *argv[] = {harness_path("EXTPROF_BIN"), "report", data, NULL};
	long long total = harness_int(rep, "run_total");
	struct run_result text;

	harness_run(argv, NULL, &text);
	cr_assert_eq(text.status, 0, "%s", text.err);
	for (int i = 0; i < 2; i++) {
		json_t *d = harness_decl(rep, decls[i]);
		char name[64], share[16];
		const char *line;

		cr_assert(d, "no %s in the report", decls[i]);
		said[i] = (struct said){
			harness_int(d, "cost"),
			harness_int(d, "self_cost"),
			harness_int(d, "observed"),
			harness_int(d, "self_observed"),
			json_real_value(json_object_get(d, "share")),
			json_real_value(json_object_get(d, "observed_share")),
		};
		cr_assert_gt(said[i].cost, 0, "%s costs nothing", decls[i]);
		/* the text report's share is the JSON's, to its one decimal */
		snprintf(name, sizeof(name), "%s@%s ", decls[i], LIBBZ2);
		line = strstr(text.out, name);
		cr_assert(line, "%s", text.out);
		snprintf(share, sizeof(share), " %.1f%% ", said[i].share * 100);
		cr_expect(strstr(line, share) && strstr(line, share) < strchr(line, '\n'),
			  "%s: the text says no %s: %.200s", decls[i], share, line);
	}
	/* blockSort ran inside compressBlock, every time */
	cr_expect_eq(said[0].self_cost, said[0].cost - said[1].cost,
		     "compressBlock's self is its cost less blockSort's");
	json_t *in = json_array_get(json_object_get(harness_decl(rep, BLOCKSORT), "inside"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(in, "name")), COMPRESS);
	cr_expect(strstr(text.out, "    in " COMPRESS "@" LIBBZ2), "%s", text.out);
	harness_free(&text);
	json_decref(rep);
	return total;
}

/* "1,234" or "1234" or "1234ticks" at @p: the number, and where it ends. */
static long long number(const char *p, const char **end)
{
	long long v = 0;

	p += strspn(p, " ");
	for (; (*p >= '0' && *p <= '9') || *p == ','; p++)
		if (*p != ',')
			v = v * 10 + (*p - '0');
	if (end)
		*end = p;
	return v;
}

/* The line of @text that ends with @tail (before its newline), or NULL. */
static const char *line_ending(const char *text, const char *tail)
{
	for (const char *at = text; (at = strstr(at, tail)); at++)
		if (at[strlen(tail)] == '\n' || !at[strlen(tail)]) {
			while (at > text && at[-1] != '\n')
				at--;
			return at;
		}
	return NULL;
}

/* A share as a tool printed it ("16.24%"), within its rounding of the report's. */
static void expect_share(const char *tool, const char *what, double got, double share, double ulp)
{
	cr_expect_leq(fabs(got - share * 100), ulp / 2 + 1e-9,
		      "%s: %s's share %.4f%%, the report's %.4f%%", tool, what, got, share * 100);
}

/* go tool pprof -top of @pb, @index: flat and cum of each declaration; the total. */
static void pprof_reads(const char *dir, const char *pb, const char *index, const struct said s[2],
			bool observed, long long total)
{
	char *homev, *gocache, *idx;
	struct run_result top;
	const char *tot;

	cr_assert(asprintf(&homev, "HOME=%s", dir) > 0);
	cr_assert(asprintf(&gocache, "GOCACHE=%s/gocache", dir) > 0);
	cr_assert(asprintf(&idx, "-sample_index=%s", index) > 0);
	const char *env[] = {homev, gocache, "GOFLAGS=", "GOTOOLCHAIN=local", NULL};
	const char *argv[] = {"go",
			      "tool",
			      "pprof",
			      "-top",
			      idx,
			      "-nodecount=1000",
			      "-nodefraction=0",
			      "-edgefraction=0",
			      pb,
			      NULL};
	harness_run(argv, env, &top);
	cr_assert_eq(top.status, 0, "go tool pprof: %s", top.err);
	/* "Showing nodes accounting for 1000404729ticks, 100% of 1000404729ticks total" */
	tot = strstr(top.out, "% of ");
	cr_assert(tot, "%s", top.out);
	cr_expect_eq(number(tot + 5, NULL), total, "pprof's total is the run total:\n%s", top.out);
	for (int i = 0; i < 2; i++) {
		/* "  68816768ticks  6.88%   100% 162432156ticks 16.24%  BZ2_compressBlock" */
		char tail[64];
		const char *line, *p;
		long long flat, cum;
		double cum_pct;

		snprintf(tail, sizeof(tail), "  %s", decls[i]);
		line = line_ending(top.out, tail);
		cr_assert(line, "pprof does not list %s:\n%s", decls[i], top.out);
		flat = number(line, &p);
		p = strchr(p, '%') + 1; /* flat% */
		p = strchr(p, '%') + 1; /* sum% */
		cum = number(p, &p);
		cum_pct = strtod(p + strcspn(p, "0123456789"), NULL);
		cr_expect_eq(flat, observed ? s[i].self_observed : s[i].self_cost,
			     "pprof %s: %s's flat %lld", index, decls[i], flat);
		cr_expect_eq(cum, observed ? s[i].observed : s[i].cost, "pprof %s: %s's cum %lld",
			     index, decls[i], cum);
		expect_share("pprof", decls[i], cum_pct,
			     observed ? s[i].observed_share : s[i].share, 0.01);
	}
	harness_free(&top);
	free(homev);
	free(gocache);
	free(idx);
}

/* callgrind_annotate, self or inclusive: Cost and Observed of each declaration. */
static void callgrind_reads(const char *cg, const struct said s[2], long long total, bool incl)
{
	struct run_result ann;
	const char *argv[] = {"callgrind_annotate",
			      "--threshold=100",
			      "--show=Cost,Observed",
			      incl ? "--inclusive=yes" : "--inclusive=no",
			      cg,
			      NULL};
	const char *totals;

	harness_run(argv, NULL, &ann);
	cr_assert_eq(ann.status, 0, "callgrind_annotate: %s", ann.err);
	totals = line_ending(ann.out, "PROGRAM TOTALS");
	cr_assert(totals, "%s", ann.out);
	cr_expect_eq(number(totals, NULL), total, "the totals are the run total:\n%s", ann.out);
	for (int i = 0; i < 2; i++) {
		/* "162,432,156 (16.24%) 941,131,167 (94.08%)  ???:BZ2_compressBlock
		 * [libbz2.so.1.0]" */
		char tail[96];
		const char *line, *p;
		long long cost, obs;
		double pct;

		snprintf(tail, sizeof(tail), "???:%s [%s]", decls[i], LIBBZ2);
		line = line_ending(ann.out, tail);
		cr_assert(line, "callgrind_annotate does not list %s:\n%s", decls[i], ann.out);
		cost = number(line, &p);
		pct = strtod(strchr(p, '(') + 1, NULL);
		obs = number(strchr(p, ')') + 1, NULL);
		cr_expect_eq(cost, incl ? s[i].cost : s[i].self_cost, "%s: Cost %lld (%s)",
			     decls[i], cost, incl ? "inclusive" : "self");
		cr_expect_eq(obs, incl ? s[i].observed : s[i].self_observed,
			     "%s: Observed %lld (%s)", decls[i], obs, incl ? "inclusive" : "self");
		if (incl)
			expect_share("callgrind_annotate", decls[i], pct, s[i].share, 0.01);
	}
	harness_free(&ann);
}

/* The folded stacks added up: every frame's inclusive and self, and the total. */
static void folded_adds_up(const char *path, const struct said s[2], long long total)
{
	long long incl[2] = {0, 0}, self[2] = {0, 0}, sum = 0;
	char line[4096];
	FILE *f = fopen(path, "r");

	cr_assert(f);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strrchr(line, ' ');
		long long v;

		cr_assert(sp, "not a folded line: %s", line);
		v = atoll(sp + 1);
		*sp = '\0';
		sum += v;
		for (int i = 0; i < 2; i++) {
			char frame[96];
			size_t n;

			n = (size_t)snprintf(frame, sizeof(frame), "%s@%s", decls[i], LIBBZ2);
			for (char *fr = strtok(strdupa(line), ";"); fr; fr = strtok(NULL, ";"))
				if (!strcmp(fr, frame)) {
					incl[i] += v;
					break;
				}
			if (strlen(line) >= n && !strcmp(line + strlen(line) - n, frame))
				self[i] += v;
		}
	}
	fclose(f);
	cr_expect_eq(sum, total, "the folded stacks add up to the run total");
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(incl[i], s[i].cost, "%s: %lld in the folded stacks", decls[i],
			     incl[i]);
		cr_expect_eq(self[i], s[i].self_cost, "%s: self %lld", decls[i], self[i]);
	}
}

/* A fresh directory for Chromium's profile, and its HOME. */
struct browser {
	char *dir;
	char *profile; /* --user-data-dir=... */
	char *home;    /* HOME=... */
};

static void browser_new(struct browser *b, const char *dir, const char *tag)
{
	cr_assert(asprintf(&b->dir, "%s/%s", dir, tag) > 0);
	cr_assert_eq(mkdir(b->dir, 0700), 0);
	cr_assert(asprintf(&b->profile, "--user-data-dir=%s", b->dir) > 0);
	cr_assert(asprintf(&b->home, "HOME=%s", b->dir) > 0);
}

static void browser_free(struct browser *b)
{
	free(b->dir);
	free(b->profile);
	free(b->home);
}

/*
 * Headless Chromium on @url, as root (no sandbox) and offline: its DOM once
 * the page's scripts ran (@shot NULL), or a screenshot into @shot.
 */
static char *chromium(const char *dir, const char *url, const char *shot)
{
	struct browser b;
	struct run_result r;
	char *arg = NULL, *out;

	browser_new(&b, dir, shot ? "shot-profile" : "dom-profile");
	if (shot)
		cr_assert(asprintf(&arg, "--screenshot=%s", shot) > 0);
	const char *argv[] = {"chromium",
			      "--headless",
			      "--no-sandbox",
			      "--disable-gpu",
			      "--disable-quic",
			      "--no-first-run",
			      "--disable-background-networking",
			      "--disable-component-update",
			      "--disable-sync",
			      b.profile,
			      "--window-size=1280,900",
			      "--virtual-time-budget=10000",
			      shot ? arg : "--dump-dom",
			      url,
			      NULL};
	const char *env[] = {b.home, NULL};
	struct run_opts o = {.timeout_s = 180};

	harness_run_with(argv, env, &o, &r);
	cr_assert_eq(r.status, 0, "chromium: %s", r.err);
	out = r.out;
	r.out = NULL;
	harness_free(&r);
	harness_rmdir(b.dir);
	b.dir = NULL;
	browser_free(&b);
	free(arg);
	return out;
}

/*
 * A screenshot that shows something: enough pixels that are not white, of
 * enough colours, and some of them saturated (the flame graph's or the
 * plot's colours, not only black text on white).
 */
static void expect_not_blank(const char *png)
{
	cairo_surface_t *s = cairo_image_surface_create_from_png(png);
	int w, h, stride, ink = 0, vivid = 0, ncolours = 0;
	static uint32_t colours[256];
	const unsigned char *px;

	cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "%s: not a PNG", png);
	w = cairo_image_surface_get_width(s);
	h = cairo_image_surface_get_height(s);
	stride = cairo_image_surface_get_stride(s);
	px = cairo_image_surface_get_data(s);
	cr_assert(w >= 800 && h >= 600, "%s: %dx%d", png, w, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint32_t c = *(const uint32_t *)(px + y * stride + x * 4) & 0xffffff;
			int r = (c >> 16) & 0xff, g = (c >> 8) & 0xff, bl = c & 0xff;
			int hi = r > g ? (r > bl ? r : bl) : (g > bl ? g : bl);
			int lo = r < g ? (r < bl ? r : bl) : (g < bl ? g : bl);
			bool seen = false;

			if (c == 0xffffff)
				continue;
			ink++;
			vivid += hi - lo > 80;
			for (int k = 0; k < ncolours && !seen; k++)
				seen = colours[k] == c;
			if (!seen && ncolours < 256)
				colours[ncolours++] = c;
		}
	cr_expect_gt(ink, w * h / 50, "%s: %d of %d pixels drawn", png, ink, w * h);
	cr_expect_geq(ncolours, 32, "%s: %d colours", png, ncolours);
	cr_expect_gt(vivid, 2000, "%s: %d coloured pixels", png, vivid);
	cairo_surface_destroy(s);
}

/* Chromium's screenshot of the page at @page, checked not blank. */
static void page_not_blank(const char *dir, const char *page)
{
	char *shot, *url;

	cr_assert(asprintf(&shot, "%s/page.png", dir) > 0);
	cr_assert(asprintf(&url, "file://%s", page) > 0);
	free(chromium(dir, url, shot));
	expect_not_blank(shot);
	free(shot);
	free(url);
}

/* The "top: 18px" and "width: 9.35775%" of the flame frame named @name in @dom. */
static bool flame_frame(const char *dom, const char *name, double *top, double *width)
{
	char want[256];
	const char *at, *start, *style;

	snprintf(want, sizeof(want), "data-name=\"%s\"", name);
	at = strstr(dom, want);
	if (!at)
		return false;
	for (start = at; start > dom && *start != '<'; start--)
		;
	style = strstr(start, "style=\"");
	cr_assert(style && style < strchr(at, '>'));
	*width = strtod(strstr(style, "width: ") + 7, NULL);
	*top = strtod(strstr(style, "top: ") + 5, NULL);
	return true;
}

/* The HTML page in Chromium: the table (sorted as asked), the flame graph, a screenshot. */
static void html_reads(const char *dir, const char *page, const struct said s[2])
{
	char *url, *dom, name[2][96];
	double top[2], width[2];
	const char *rows;

	cr_assert(asprintf(&url, "file://%s#sort=evaluations", page) > 0);
	dom = chromium(dir, url, NULL);
	rows = strstr(dom, "<table class=\"sortable\" id=\"rows\">");
	cr_assert(rows, "no table in the page:\n%.2000s", dom);
	cr_expect(strstr(rows, "aria-sort=\"descending\">evaluations</th>"),
		  "the table is not sorted by #sort=evaluations");
	for (int i = 0; i < 2; i++) {
		snprintf(name[i], sizeof(name[i]), "%s@%s", decls[i], LIBBZ2);
		cr_expect(strstr(rows, name[i]), "the table has no row of %s", name[i]);
		cr_assert(flame_frame(dom, name[i], &top[i], &width[i]),
			  "the flame graph has no frame of %s:\n%.3000s", name[i], dom);
		/* a frame's width is its cost's share of the run */
		expect_share("the page's flame graph", decls[i], width[i], s[i].share, 0.001);
	}
	cr_expect_gt(top[1], top[0], "blockSort is drawn under compressBlock");
	free(dom);
	free(url);
	page_not_blank(dir, page);
}

static void views_agree(const char *callers)
{
	char *dir = harness_tmpdir("views"), *data = bzip2_dumps(dir, callers), *pb, *cg, *fold,
	     *page;
	struct said s[2];
	long long total = report_said(data, s);

	pb = export(dir, data, "pprof", "bzip2.pb.gz");
	pprof_reads(dir, pb, "cost", s, false, total);
	pprof_reads(dir, pb, "observed", s, true, total);
	cg = export(dir, data, "callgrind", "bzip2.callgrind");
	callgrind_reads(cg, s, total, true);
	callgrind_reads(cg, s, total, false);
	fold = export(dir, data, "folded", "bzip2.folded");
	folded_adds_up(fold, s, total);
	page = export(dir, data, "html", "bzip2.html");
	html_reads(dir, page, s);
	free(pb);
	free(cg);
	free(fold);
	free(page);
	free(data);
	harness_rmdir(dir);
}

Test(views, bzip2_nesting_in_every_view, .timeout = 600)
{
	views_agree("0");
}

Test(views, bzip2_nesting_with_callers, .timeout = 600)
{
	views_agree("2");
}

/*
 * speedscope, from npm, in headless Chromium: its sandwich view of the
 * folded stacks lists each declaration with its total and self, and the
 * total's bar as wide as the report's share.
 */
Test(views, speedscope_reads_the_folded_stacks, .timeout = 600)
{
	char *dir = harness_tmpdir("speedscope"), *data = bzip2_dumps(dir, "0"), *fold, *js, *url;
	char *npm_dir, *dom, *buf;
	struct run_result r;
	struct said s[2];
	long long total = report_said(data, s);
	size_t len;
	FILE *f;

	cr_assert(asprintf(&npm_dir, "%s/npm", dir) > 0);
	const char *ping[] = {"npm", "ping", NULL};
	const char *install[] = {"npm",	     "install", "--no-audit", "--no-fund",
				 "--prefix", npm_dir,	"speedscope", NULL};
	struct run_opts o = {.timeout_s = 120};

	harness_run_with(ping, (const char *[]){"npm_config_update_notifier=false", NULL}, &o, &r);
	if (r.status != 0) {
		harness_free(&r);
		harness_rmdir(dir);
		cr_skip_test(
			"npm's registry is unreachable (npm ping failed): speedscope not tried");
	}
	harness_free(&r);
	harness_run_with(install, (const char *[]){"npm_config_update_notifier=false", NULL}, &o,
			 &r);
	cr_assert_eq(r.status, 0, "npm install speedscope: %s", r.err);
	harness_free(&r);
	fold = export(dir, data, "folded", "bzip2.folded");
	/* what speedscope's own command line does: the file, base64, in a script it loads */
	{
		const char *argv[] = {"base64", "-w0", fold, NULL};

		harness_run(argv, NULL, &r);
		cr_assert_eq(r.status, 0);
	}
	cr_assert(asprintf(&js, "%s/load.js", dir) > 0);
	f = fopen(js, "w");
	cr_assert(f);
	fprintf(f, "speedscope.loadFileFromBase64(\"bzip2.folded\", \"%s\")", r.out);
	cr_assert_eq(fclose(f), 0);
	harness_free(&r);
	cr_assert(asprintf(&url,
			   "file://%s/node_modules/speedscope/dist/release/index.html"
			   "#localProfilePath=%s&view=sandwich",
			   npm_dir, js) > 0);
	/* speedscope draws its table once the profile is read: a busy machine may be late */
	dom = chromium(dir, url, NULL);
	for (int tries = 1; tries < 4 && !strstr(dom, "</span>(not hooked)</td>"); tries++) {
		free(dom);
		dom = chromium(dir, url, NULL);
	}
	/* <tr ...><td ...>162,432,156 (16%)<div ...><div ... style="width: 16.2366%;"> */
	for (int i = 0; i < 2; i++) {
		char name[96];
		const char *at, *row, *cell;
		long long tot, self;
		double width;

		snprintf(name, sizeof(name), "</span>%s@%s</td>", decls[i], LIBBZ2);
		at = strstr(dom, name);
		cr_assert(at, "speedscope does not list %s:\n%.3000s", decls[i], dom);
		for (row = at; row > dom && strncmp(row, "<tr", 3); row--)
			;
		cell = strstr(row, "<td");
		tot = number(strchr(cell, '>') + 1, NULL);
		width = strtod(strstr(cell, "width: ") + 7, NULL);
		cell = strstr(cell + 1, "<td");
		self = number(strchr(cell, '>') + 1, NULL);
		cr_expect_eq(tot, s[i].cost, "speedscope: %s's total %lld", decls[i], tot);
		cr_expect_eq(self, s[i].self_cost, "speedscope: %s's self %lld", decls[i], self);
		expect_share("speedscope", decls[i], width, s[i].share, 0.001);
	}
	buf = strstr(dom, "</span>(not hooked)</td>");
	cr_expect(buf, "speedscope has no frame of what no hooked function took");
	(void)total;
	(void)len;
	free(dom);
	free(url);
	free(js);
	free(fold);
	free(npm_dir);
	free(data);
	harness_rmdir(dir);
}

/* The doubling test's page: its plot inline, its table, a screenshot that shows them. */
Test(views, doubling_page, .timeout = 600)
{
	char *dir = harness_tmpdir("dblpage"), *base, *page, *url, *dom;
	struct run_result r;
	FILE *f;

	cr_assert(asprintf(&base, "%s/runs", dir) > 0);
	cr_assert(asprintf(&page, "%s/doubling.html", dir) > 0);
	const char *argv[] = {harness_path("EXTPROF_BIN"),
			      "doubling",
			      "--sizes",
			      "64,128,256",
			      "--repeat",
			      "2",
			      "--counter",
			      "var:growth_work",
			      "-H",
			      "function:g_*",
			      "-o",
			      base,
			      "--format",
			      "html",
			      "--plot-value",
			      "cost",
			      "--",
			      harness_path("GROWTH_TARGET"),
			      "-n",
			      "{N}",
			      NULL};
	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "doubling --format html: %s", r.err);
	f = fopen(page, "w");
	cr_assert(f);
	fputs(r.out, f);
	cr_assert_eq(fclose(f), 0);
	cr_expect(!strstr(r.out, "http://") || strstr(r.out, "xmlns=\"http://www.w3.org"),
		  "the page fetches nothing");
	harness_free(&r);
	cr_assert(asprintf(&url, "file://%s#sort=N%%3D256", page) > 0);
	dom = chromium(dir, url, NULL);
	cr_expect(strstr(dom, "<svg"), "no plot in the page");
	cr_expect(strstr(dom, "aria-sort=\"descending\">N=256</th>"), "not sorted by N=256");
	/* g_cube grows fastest: the first row once sorted by the largest N */
	cr_expect(strstr(dom, "<tbody>") &&
			  strstr(strstr(dom, "<tbody>"), "g_cube@growth") <
				  strstr(strstr(dom, "<tbody>"), "g_square@growth"),
		  "rows not sorted: %.2000s", strstr(dom, "<tbody>"));
	free(dom);
	free(url);
	page_not_blank(dir, page);
	free(base);
	free(page);
	harness_rmdir(dir);
}
