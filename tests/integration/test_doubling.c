// SPDX-License-Identifier: MIT
/*
 * The doubling test end to end: `extprof doubling --sizes ... -- growth -n
 * {N}` through the real shim, with the target's own work variable as the
 * counter (tests/targets/growth.c), so that every function must come out
 * with its true model from the fit, the Alnoms class from every ratio, and
 * for the powers of N an exponent within 0.1 of the truth.  Then the same
 * runs read back as N=DIR, the plots as images, a failing run, --timeout,
 * and the example checker measured in real time (tsc).
 */
#include <cairo.h>
#include <errno.h>
#include <expat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* What each function of growth.c must be found to be, per evaluation. */
struct truth {
	const char *name;
	const char *model; /* of the fit */
	const char *cls;   /* of every ratio */
	double exponent;   /* of the log-log slope; < 0: not a power of N */
};

static const struct truth poly[] = {
	{"g_const", "1", "O(1)/O(log N)", 0},
	{"g_log", "log N", "O(1)/O(log N)", -1},
	{"g_linear", "N", "O(N)", 1},
	/* N log N doubles to 2.33 .. 2.18 here: the table's O(N) */
	{"g_nlogn", "N log N", "O(N)", -1},
	{"g_square", "N^2", "O(N^2)", 2},
	{"g_cube", "N^3", "O(N^3)", 3},
	{"g_row", "N", "O(N)", 1},
	{"g_item", "1", "O(1)/O(log N)", 0},
};

static const char *growth(void)
{
	return harness_path("GROWTH_TARGET");
}

/* `extprof doubling ARGS...` (NULL-terminated); its status and output in @r. */
static void doubling(struct run_result *r, const char *const *args)
{
	const char *argv[48] = {harness_path("EXTPROF_BIN"), "doubling"};
	size_t n = 2;

	for (size_t i = 0; args[i] && n < NELEM(argv) - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	harness_run(argv, NULL, r);
}

static json_t *parse(const struct run_result *r)
{
	return harness_json(r, 0, "extprof doubling");
}

static json_t *growth_of(json_t *decl, const char *value)
{
	json_t *g = json_object_get(decl, value);

	cr_assert(json_is_object(g), "no %s", value);
	return g;
}

/* Every step of @value of @decl in class @cls. */
static void expect_classes(json_t *decl, const char *value, const char *cls, const char *name)
{
	json_t *steps = json_object_get(growth_of(decl, value), "steps"), *s;
	size_t i;

	cr_assert(json_array_size(steps) > 0);
	json_array_foreach(steps, i, s)
	{
		const char *c = json_string_value(json_object_get(s, "class"));

		cr_expect(c && !strcmp(c, cls), "%s %s step %zu: class %s, expected %s", name,
			  value, i, c ? c : "null", cls);
	}
}

static const char *model_of(json_t *decl, const char *value)
{
	json_t *fit = json_object_get(growth_of(decl, value), "fit");
	const char *m = json_string_value(json_object_get(fit, "model"));

	return m ? m : "null";
}

static double exponent_of(json_t *decl, const char *value)
{
	json_t *slope = json_object_get(growth_of(decl, value), "slope");

	cr_assert(json_is_object(slope), "no slope");
	return json_number_value(json_object_get(slope, "exponent"));
}

static void expect_truth(json_t *report, const struct truth *t)
{
	json_t *d = harness_decl(report, t->name);

	cr_assert(d, "no declaration %s", t->name);
	cr_expect_str_eq(model_of(d, "per_eval"), t->model, "%s: fitted %s, expected %s", t->name,
			 model_of(d, "per_eval"), t->model);
	expect_classes(d, "per_eval", t->cls, t->name);
	if (t->exponent >= 0)
		cr_expect(fabs(exponent_of(d, "per_eval") - t->exponent) <= 0.1,
			  "%s: exponent %.3f, expected %.0f", t->name, exponent_of(d, "per_eval"),
			  t->exponent);
}

static char *subdir(const char *dir, const char *name)
{
	char *p;

	cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static bool exists(const char *dir, const char *name)
{
	char *p = subdir(dir, name);
	struct stat st;
	bool yes = stat(p, &st) == 0;

	free(p);
	return yes;
}

TestSuite(doubling, .timeout = 120);

/* The polynomial family with the global variable, repeats and a warmup. */
Test(doubling, polynomial_growth_is_found)
{
	char *tmp = harness_tmpdir("doubling"), *base = subdir(tmp, "runs");
	const char *args[] = {"--sizes",   "64,128,256,512,1024,2048,4096",
			      "--counter", "var:growth_work",
			      "-H",	   "function:g_*",
			      "--repeat",  "2",
			      "--warmup",  "1",
			      "-o",	   base,
			      "--format",  "json",
			      "--",	   growth(),
			      "-n",	   "{N}",
			      NULL};
	struct run_result r;
	json_t *report, *row, *summary;

	doubling(&r, args);
	report = parse(&r);
	for (size_t i = 0; i < NELEM(poly); i++)
		expect_truth(report, &poly[i]);
	/* g_row: N calls of N each, so cost N², half from each side */
	row = harness_decl(report, "g_row");
	cr_expect_str_eq(model_of(row, "evaluations"), "N");
	cr_expect_str_eq(model_of(row, "cost"), "N^2");
	expect_classes(row, "cost", "O(N^2)", "g_row");
	summary = json_object_get(row, "summary");
	cr_expect_float_eq(json_number_value(json_object_get(summary, "evaluations_share")), 0.5,
			   1e-9);
	cr_expect_float_eq(json_number_value(json_object_get(summary, "cost")), 4096.0, 1e-9);
	/* g_item: its cost grows by evaluations alone */
	expect_classes(harness_decl(report, "g_item"), "evaluations", "O(N)", "g_item");
	/* never called in this family, and said so */
	cr_expect_eq(
		json_integer_value(json_object_get(
			json_array_get(json_object_get(harness_decl(report, "g_exp"), "points"), 0),
			"evaluations")),
		0);
	/* 2 runs a size, a warmup, the program's output beside its dumps */
	cr_expect_eq(json_array_size(json_object_get(report, "runs")), 14);
	cr_expect_eq(json_integer_value(json_object_get(
			     json_array_get(json_object_get(report, "sizes"), 3), "runs")),
		     2);
	cr_expect(exists(base, "warmup-1"));
	cr_expect(exists(base, "n4096-r2"));
	cr_expect(exists(base, "n64-r1.out"));
	cr_expect(strstr(r.err, "extprof: hooked 9/9"), "the shim's line, once: %s", r.err);
	json_decref(report);
	harness_free(&r);
	free(base);
	harness_rmdir(tmp);
}

/* 2^N, kept small; the thread-local variable this time. */
Test(doubling, exponential_growth_is_found)
{
	char *tmp = harness_tmpdir("doubling"), *base = subdir(tmp, "runs");
	const char *args[] = {"--sizes",   "4,8,12,16",
			      "--counter", "var:growth_work_tls",
			      "-H",	   "function:g_exp",
			      "-o",	   base,
			      "--format",  "json",
			      "--",	   growth(),
			      "-n",	   "{N}",
			      "-f",	   "exp",
			      NULL};
	const struct truth t = {"g_exp", "2^N", "exponential", -1};
	struct run_result r;
	json_t *report;

	doubling(&r, args);
	report = parse(&r);
	expect_truth(report, &t);
	json_decref(report);
	harness_free(&r);
	free(base);
	harness_rmdir(tmp);
}

/* The runs, read back as N=DIR, say what the run that made them said. */
Test(doubling, existing_runs_read_back)
{
	static const char *const sizes[] = {"64", "256", "1024", "4096"};
	char *tmp = harness_tmpdir("doubling"), *base = subdir(tmp, "runs");
	const char *args[] = {"--sizes",   "64,256,1024,4096",
			      "--counter", "var:growth_work",
			      "-H",	   "function:g_*",
			      "-o",	   base,
			      "--format",  "json",
			      "--",	   growth(),
			      "-n",	   "{N}",
			      NULL};
	const char *again[16];
	char *operands[NELEM(sizes)];
	struct run_result r, r2;
	json_t *a, *b;

	doubling(&r, args);
	a = parse(&r);
	for (size_t i = 0; i < NELEM(sizes); i++) {
		cr_assert(asprintf(&operands[i], "%s=%s/n%s-r1", sizes[i], base, sizes[i]) > 0);
		again[i] = operands[i];
	}
	again[NELEM(sizes)] = "--format";
	again[NELEM(sizes) + 1] = "json";
	again[NELEM(sizes) + 2] = NULL;
	doubling(&r2, again);
	b = parse(&r2);
	for (size_t i = 0; i < NELEM(poly); i++) {
		json_t *x = harness_decl(a, poly[i].name), *y = harness_decl(b, poly[i].name);

		cr_assert(x && y);
		cr_expect(json_equal(json_object_get(x, "points"), json_object_get(y, "points")),
			  "%s", poly[i].name);
		cr_expect_str_eq(model_of(y, "per_eval"), poly[i].model);
	}
	/* quadrupling steps: N² is 16 a step, 4 per doubling */
	expect_classes(harness_decl(b, "g_square"), "per_eval", "O(N^2)", "g_square");
	for (size_t i = 0; i < NELEM(sizes); i++)
		free(operands[i]);
	json_decref(a);
	json_decref(b);
	harness_free(&r);
	harness_free(&r2);
	free(base);
	harness_rmdir(tmp);
}

/* ---- plots ---------------------------------------------------------------- */

struct svg_check {
	int depth;
	char root[16];
};

static void XMLCALL svg_start(void *data, const XML_Char *name, const XML_Char **attr)
{
	struct svg_check *c = data;

	(void)attr;
	if (!c->depth++)
		snprintf(c->root, sizeof(c->root), "%s", name);
}

static void XMLCALL svg_end(void *data, const XML_Char *name)
{
	(void)name;
	((struct svg_check *)data)->depth--;
}

static void expect_svg(const char *path)
{
	struct svg_check c = {0};
	XML_Parser p = XML_ParserCreate(NULL);
	char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;
	bool ok = true;

	cr_assert(f && p, "%s: %s", path, strerror(errno));
	XML_SetUserData(p, &c);
	XML_SetElementHandler(p, svg_start, svg_end);
	do {
		n = fread(buf, 1, sizeof(buf), f);
		ok = XML_Parse(p, buf, (int)n, n == 0) != XML_STATUS_ERROR;
	} while (ok && n);
	cr_expect(ok, "%s: not XML: %s at line %lu", path, XML_ErrorString(XML_GetErrorCode(p)),
		  (unsigned long)XML_GetCurrentLineNumber(p));
	cr_expect_str_eq(c.root, "svg");
	XML_ParserFree(p);
	fclose(f);
}

static void expect_png(const char *path)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	unsigned char head[8] = {0};
	FILE *f = fopen(path, "rb");
	cairo_surface_t *s;

	cr_assert(f, "%s: %s", path, strerror(errno));
	cr_expect_eq(fread(head, 1, 8, f), 8);
	fclose(f);
	cr_expect(!memcmp(head, sig, 8), "%s: no PNG signature", path);
	s = cairo_image_surface_create_from_png(path);
	cr_expect_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "%s: %s", path,
		     cairo_status_to_string(cairo_surface_status(s)));
	cr_expect_gt(cairo_image_surface_get_width(s), 400);
	cr_expect_gt(cairo_image_surface_get_height(s), 300);
	cairo_surface_destroy(s);
}

Test(doubling, plots_are_images)
{
	char *tmp = harness_tmpdir("doubling"), *base = subdir(tmp, "runs");
	char *png = subdir(tmp, "growth.png"), *svg = subdir(tmp, "growth.svg");
	const char *args[] = {"--sizes",   "64,128,256,512",
			      "--counter", "var:growth_work",
			      "-H",	   "function:g_*",
			      "-o",	   base,
			      "--plot",	   png,
			      "--",	   growth(),
			      "-n",	   "{N}",
			      NULL};
	char *ops[4];
	struct run_result r;

	doubling(&r, args);
	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_png(png);
	harness_free(&r);
	for (int i = 0; i < 4; i++)
		cr_assert(asprintf(&ops[i], "%d=%s/n%d-r1", 64 << i, base, 64 << i) > 0);
	{
		const char *again[] = {ops[0], ops[1],	       ops[2], ops[3], "--plot",
				       svg,    "--plot-value", "cost", NULL};

		doubling(&r, again);
		cr_assert_eq(r.status, 0, "%s", r.err);
		expect_svg(svg);
		harness_free(&r);
	}
	for (int i = 0; i < 4; i++)
		free(ops[i]);
	free(png);
	free(svg);
	free(base);
	harness_rmdir(tmp);
}

/* ---- failures and --timeout ----------------------------------------------- */

Test(doubling, a_failing_run_stops_the_test)
{
	char *tmp = harness_tmpdir("doubling"), *base = subdir(tmp, "runs");
	const char *args[] = {
		"--sizes", "1,2,4", "-o", base,
		"--",	   "sh",    "-c", "if [ $0 -ge 2 ]; then echo broken at $0 >&2; exit 3; fi",
		"{N}",	   NULL};
	struct run_result r;

	doubling(&r, args);
	/* N=1 leaves no dumps, which is an error of its own: start at 2 */
	cr_expect_eq(r.status, 2, "%s", r.err);
	harness_free(&r);
	harness_rmdir(tmp);
	tmp = harness_tmpdir("doubling");
	free(base);
	base = subdir(tmp, "runs");
	args[1] = "2,4";
	args[3] = base;
	doubling(&r, args);
	cr_expect_eq(r.status, 3, "status %d: %s", r.status, r.err);
	cr_expect(strstr(r.err, "broken at 2"), "its stderr is shown: %s", r.err);
	cr_expect(strstr(r.err, "exited with status 3"), "%s", r.err);
	cr_expect(!exists(base, "n4-r1"), "no size after the failure");
	cr_expect_eq(r.out[0], '\0', "no report: %s", r.out);
	harness_free(&r);
	free(base);
	harness_rmdir(tmp);
}

Test(doubling, timeout_stops_growing)
{
	char *tmp = harness_tmpdir("doubling"), *base = subdir(tmp, "runs"), *script;
	struct run_result r;
	json_t *report, *stopped;

	/* fast at N=1, a second at N=2: N=4 must never run */
	cr_assert(asprintf(&script, "if [ $0 -ge 2 ]; then sleep 1; fi; exec %s -n 8 -f exp",
			   growth()) > 0);
	{
		const char *args[] = {"--sizes",   "1,2,4",
				      "--timeout", "0.5",
				      "--counter", "var:growth_work",
				      "-H",	   "function:g_exp",
				      "-o",	   base,
				      "--format",  "json",
				      "--",	   "sh",
				      "-c",	   script,
				      "{N}",	   NULL};

		doubling(&r, args);
	}
	report = parse(&r);
	stopped = json_object_get(report, "stopped");
	cr_assert(json_is_object(stopped), "not stopped: %s", r.out);
	cr_expect_eq(json_integer_value(json_object_get(stopped, "n")), 2);
	cr_expect_eq(json_array_size(json_object_get(report, "sizes")), 2);
	cr_expect(!exists(base, "n4-r1"));
	json_decref(report);
	harness_free(&r);
	free(script);
	free(base);
	harness_rmdir(tmp);
}

/* ---- the example checker in real time ------------------------------------- */

static bool checker_has_bound(const char *checker)
{
	const char *argv[] = {checker, "-h", NULL};
	struct run_result r;
	bool yes;

	harness_run(argv, NULL, &r);
	yes = strstr(r.out, "-m ") || strstr(r.err, "-m ");
	harness_free(&r);
	return yes;
}

/* The rank of a doubling step's @class, slowest growth first; -1 if none. */
static int class_rank(const char *class)
{
	static const char *const order[] = {"O(1)/O(log N)", "O(N)", "O(N^2)", "O(N^3)",
					    "exponential"};

	for (size_t i = 0; class && i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(class, order[i]))
			return (int)i;
	return -1;
}

/*
 * type_ok walks the N resource managers once (O(N)), consistent compares
 * every pair (O(N²)).  Measured in tsc ticks on floors, but a floor in time
 * still moves with what the CPU's caches hold, which a loaded machine's
 * other processes evict (consistent's pairs read O(N³) or worse then), and
 * a short process may run before the CPU's clock has risen: so each ratio's
 * class is checked for its order only, consistent's above type_ok's and
 * type_ok's at least O(N), with up to 3 tries.  The exact classes are
 * checked on steps (checker_invariants_by_default_on_steps).  Needs the
 * checker's -m (a bound on the states explored, so that large N stays
 * quick): without it the test is skipped.  About 4 s a try.
 */
Test(doubling, checker_invariants_in_real_time, .timeout = 240)
{
	const char *checker = harness_path("CHECKER_PLAIN_O2");
	bool ok = false;

	if (!checker_has_bound(checker))
		cr_skip_test("the checker has no -m yet (bounded search)");
	for (int attempt = 0; attempt < 3 && !ok; attempt++) {
		char *tmp = harness_tmpdir("doubling"), *base = subdir(tmp, "runs");
		const char *args[] = {"--sizes",   "32,64,96",
				      "--counter", "tsc",
				      "--repeat",  "3",
				      "-H",	   "invariant:type_ok",
				      "-H",	   "invariant:consistent",
				      "-o",	   base,
				      "--format",  "json",
				      "--",	   checker,
				      "-n",	   "{N}",
				      "-m",	   "1000",
				      "-w",	   "1",
				      NULL};
		struct run_result r;
		json_t *report, *t, *c;

		doubling(&r, args);
		report = parse(&r);
		t = harness_decl(report, "type_ok");
		c = harness_decl(report, "consistent");
		cr_assert(t && c, "%s", r.out);
		ok = true;
		for (size_t i = 0; i < 2; i++) {
			json_t *st = json_object_get(json_object_get(t, "per_eval"), "steps");
			json_t *sc = json_object_get(json_object_get(c, "per_eval"), "steps");
			const char *ct =
				json_string_value(json_object_get(json_array_get(st, i), "class"));
			const char *cc =
				json_string_value(json_object_get(json_array_get(sc, i), "class"));

			ok &= class_rank(ct) >= class_rank("O(N)");
			ok &= class_rank(cc) > class_rank(ct);
			if (!ok)
				fprintf(stderr, "attempt %d step %zu: type_ok %s, consistent %s\n",
					attempt + 1, i, ct ? ct : "-", cc ? cc : "-");
		}
		json_decref(report);
		harness_free(&r);
		free(base);
		harness_rmdir(tmp);
	}
	cr_expect(ok, "type_ok at least O(N) and consistent above it per evaluation in 3 tries");
}

/* The per-eval fit of @name in a doubling @report: its model, or "-". */
static const char *per_eval_model(json_t *report, const char *name, const char **stat)
{
	json_t *d = harness_decl(report, name);
	json_t *fit = json_object_get(json_object_get(d, "per_eval"), "fit");
	const char *m = json_string_value(json_object_get(fit, "model"));

	*stat = json_string_value(json_object_get(d, "stat"));
	*stat = *stat ? *stat : "-";
	return m ? m : "-";
}

/* The rank of a fit's @model among the models the fit tries, simplest first; -1 if none. */
static int model_rank(const char *model)
{
	static const char *const order[] = {"1", "log N", "N", "N log N", "N^2", "N^3", "2^N"};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(model, order[i]))
			return (int)i;
	return -1;
}

/*
 * One default doubling (no --stat, no --repeat) of the example checker's
 * two invariants on @counter, 32 to 256 RMs, a few hundred states each:
 * the models of type_ok (@model_type) and consistent (@model_cons) and
 * the stats each was fitted on (@stat_type, @stat_cons), @size bytes each.
 */
static void checker_invariants_fit(const char *counter, char *model_type, char *model_cons,
				   char *stat_type, char *stat_cons, size_t size)
{
	const char *checker = harness_path("CHECKER_PLAIN_O2");
	char *tmp = harness_tmpdir("doubling"), *base = subdir(tmp, "runs");
	const char *args[] = {"--sizes",   "32,64,128,256",
			      "--counter", counter,
			      "-H",	   "invariant:type_ok",
			      "-H",	   "invariant:consistent",
			      "-o",	   base,
			      "--format",  "json",
			      "--",	   checker,
			      "-n",	   "{N}",
			      "-m",	   "100",
			      "-w",	   "1",
			      NULL};
	const char *st, *sc, *mt, *mc;
	struct run_result r;
	json_t *report;

	doubling(&r, args);
	report = parse(&r);
	cr_expect_str_eq(json_string_value(json_object_get(report, "stat")), "auto");
	mt = per_eval_model(report, "type_ok", &st);
	mc = per_eval_model(report, "consistent", &sc);
	snprintf(model_type, size, "%s", mt);
	snprintf(model_cons, size, "%s", mc);
	snprintf(stat_type, size, "%s", st);
	snprintf(stat_cons, size, "%s", sc);
	json_decref(report);
	harness_free(&r);
	free(base);
	harness_rmdir(tmp);
}

/*
 * With default options the example checker's type_ok fits N and consistent
 * N², each on its floor. On steps, a count of the code and its data alone,
 * that is exact and asserted exactly.
 */
Test(doubling, checker_invariants_by_default_on_steps, .timeout = 240)
{
	char mt[32], mc[32], st[32], sc[32];

	checker_invariants_fit("steps", mt, mc, st, sc, sizeof(mt));
	cr_expect_str_eq(mt, "N");
	cr_expect_str_eq(mc, "N^2");
	cr_expect_str_eq(st, "min");
	cr_expect_str_eq(sc, "min");
}

/*
 * On tsc the same doubling takes each floor too, but its models are not
 * asserted exactly: time per call also grows with what no longer fits the
 * CPU's caches, which differs from one CPU to the next (consistent's N²
 * table fits N³ at 256 RMs on some). What holds on any CPU is the order:
 * consistent grows faster than type_ok. A shared machine can disturb a
 * whole try: up to 3 tries.
 */
Test(doubling, checker_invariants_by_default_on_tsc, .timeout = 240)
{
	char mt[32], mc[32], st[32], sc[32], why[256] = "";
	bool ok = false;

	for (int attempt = 0; attempt < 3 && !ok; attempt++) {
		checker_invariants_fit("tsc", mt, mc, st, sc, sizeof(mt));
		ok = model_rank(mt) >= 0 && model_rank(mc) > model_rank(mt) && !strcmp(st, "min") &&
		     !strcmp(sc, "min");
		snprintf(why, sizeof(why), "type_ok %s (stat %s), consistent %s (stat %s)", mt, st,
			 mc, sc);
		if (!ok)
			fprintf(stderr, "[WARN] try %d: %s\n", attempt + 1, why);
	}
	cr_expect(
		ok,
		"consistent grows faster than type_ok, both on the floor, in 3 tries; the last: %s",
		why);
}
