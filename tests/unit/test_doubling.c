// SPDX-License-Identifier: MIT
/*
 * The doubling test's arithmetic on synthetic numbers (classes, the ratio
 * per doubling, the log-log slope, the model fit and its degenerate cases),
 * its reading of runs (dumps made with the shim's writer, repeats combined
 * by --stat), and its command line through the built extprof.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "doubling/doubling.h"
#include "doubling/doubling_fit.h"
#include "helpers.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- classes ------------------------------------------------------------ */

Test(doubling_fit, classes_follow_the_alnoms_table)
{
	static const struct {
		double r;
		enum xp_dbl_class c;
	} cases[] = {
		{0.5, XP_CLASS_LOG},  {1.0, XP_CLASS_LOG}, {1.39, XP_CLASS_LOG},
		{1.4, XP_CLASS_N},    {2.0, XP_CLASS_N},   {2.79, XP_CLASS_N},
		{2.8, XP_CLASS_N2},   {4.0, XP_CLASS_N2},  {5.49, XP_CLASS_N2},
		{5.5, XP_CLASS_N3},   {8.0, XP_CLASS_N3},  {9.99, XP_CLASS_N3},
		{10.0, XP_CLASS_EXP}, {1e9, XP_CLASS_EXP}, {INFINITY, XP_CLASS_EXP},
		{NAN, XP_CLASS_NONE}, {-1, XP_CLASS_NONE},
	};

	for (size_t i = 0; i < NELEM(cases); i++)
		cr_expect_eq(xp_dbl_classify(cases[i].r), cases[i].c, "ratio %g", cases[i].r);
	cr_expect_str_eq(xp_dbl_class_name(XP_CLASS_N2, true), "O(N²)");
	cr_expect_str_eq(xp_dbl_class_name(XP_CLASS_N2, false), "O(N^2)");
	cr_expect_str_eq(xp_dbl_class_name(XP_CLASS_LOG, false), "O(1)/O(log N)");
}

Test(doubling_fit, ratios_are_normalised_to_a_doubling)
{
	/* a doubling is taken as it is */
	cr_expect_eq(xp_dbl_per_doubling(4.0, 100, 200), 4.0);
	/* N² over a tripling: 9, which is 4 per doubling */
	cr_expect_float_eq(xp_dbl_per_doubling(9.0, 100, 300), 4.0, 1e-9);
	/* N over a quadrupling: 4, which is 2 per doubling */
	cr_expect_float_eq(xp_dbl_per_doubling(4.0, 64, 256), 2.0, 1e-9);
	/* N³ from 10 to 15 */
	cr_expect_float_eq(xp_dbl_per_doubling(pow(1.5, 3), 10, 15), 8.0, 1e-9);
	cr_expect(isnan(xp_dbl_per_doubling(0, 10, 20)));
	cr_expect(isnan(xp_dbl_per_doubling(NAN, 10, 20)));
	cr_expect(isnan(xp_dbl_per_doubling(2, 20, 10)));
}

/* ---- the log-log slope -------------------------------------------------- */

static const double sizes[] = {64, 128, 256, 512, 1024, 2048, 4096};
#define K NELEM(sizes)

Test(doubling_fit, slope_of_powers_is_exact)
{
	for (int p = 0; p <= 3; p++) {
		double v[K];
		struct xp_dbl_slope s;

		for (size_t i = 0; i < K; i++)
			v[i] = 7 * pow(sizes[i], p);
		xp_dbl_slope(sizes, v, K, &s);
		cr_assert(s.ok);
		cr_expect_eq(s.points, K);
		cr_expect_float_eq(s.exponent, p, 1e-12, "power %d: %g", p, s.exponent);
		cr_expect_float_eq(s.r2, 1.0, 1e-12);
	}
}

/* Through two points any line is straight: the slope needs three above 0. */
Test(doubling_fit, slope_skips_zeros_and_needs_three_points)
{
	double v[K] = {0, 0, 256, 512, 1024, 2048, 4096};
	double one[K] = {0, 0, 0, 0, 0, 0, 5};
	double two[K] = {0, 0, 0, 0, 0, 7, 9};
	double zero[K] = {0};
	struct xp_dbl_slope s;

	xp_dbl_slope(sizes, two, K, &s);
	cr_expect(!s.ok);
	cr_expect_eq(s.points, 2);

	xp_dbl_slope(sizes, v, K, &s);
	cr_assert(s.ok);
	cr_expect_eq(s.points, 5);
	cr_expect_float_eq(s.exponent, 1.0, 1e-12);
	xp_dbl_slope(sizes, one, K, &s);
	cr_expect(!s.ok);
	cr_expect_eq(s.points, 1);
	xp_dbl_slope(sizes, zero, K, &s);
	cr_expect(!s.ok);
}

Test(doubling_fit, slope_r2_says_how_straight)
{
	double bent[K];
	struct xp_dbl_slope s;

	for (size_t i = 0; i < K; i++)
		bent[i] = exp2(sizes[i] / 256); /* not a power at all */
	xp_dbl_slope(sizes, bent, K, &s);
	cr_assert(s.ok);
	cr_expect_lt(s.r2, 0.9, "R² %g", s.r2);
	cr_expect_geq(s.r2, 0.0);
}

/* ---- the model fit ------------------------------------------------------ */

static double g(enum xp_dbl_model m, double n)
{
	switch (m) {
	case XP_MODEL_LOGN:
		return log2(n);
	case XP_MODEL_N:
		return n;
	case XP_MODEL_NLOGN:
		return n * log2(n);
	case XP_MODEL_N2:
		return n * n;
	case XP_MODEL_N3:
		return n * n * n;
	case XP_MODEL_EXP:
		return exp2(n);
	default:
		return 1;
	}
}

/* Exact a + c g(N), with a constant overhead the intercept must absorb. */
Test(doubling_fit, every_model_is_found_with_an_intercept)
{
	static const double small[] = {4, 6, 8, 10, 12, 14, 16};

	for (int m = 0; m < XP_NMODELS; m++) {
		const double *n = m == XP_MODEL_EXP ? small : sizes;
		double v[K];
		struct xp_dbl_fit f;

		for (size_t i = 0; i < K; i++)
			v[i] = 500 + 3 * (m == XP_MODEL_1 ? 0 : g((enum xp_dbl_model)m, n[i]));
		xp_dbl_fit(n, v, NULL, K, &f);
		cr_assert(f.ok);
		cr_expect_eq((int)f.best, m, "model %s fitted as %s", xp_dbl_model_name(m, false),
			     xp_dbl_model_name(f.best, false));
		cr_expect_lt(f.nrms[m], 1e-9);
		if (m != XP_MODEL_1) {
			cr_expect_float_eq(f.c[m], 3.0, 1e-6, "c of %s: %g",
					   xp_dbl_model_name(m, false), f.c[m]);
			cr_expect_float_eq(f.a[m], 500.0, 1e-3);
		}
	}
}

/* A deterministic +-3 % wobble: a noisy machine, reproducibly. */
static double wobble(size_t i)
{
	static const double w[] = {0.02, -0.03, 0.01, 0.03, -0.02, -0.01, 0.025};

	return 1 + w[i % NELEM(w)];
}

Test(doubling_fit, powers_survive_noise)
{
	for (int m = XP_MODEL_N; m <= XP_MODEL_N3; m++) {
		double v[K];
		struct xp_dbl_fit f;
		struct xp_dbl_slope s;

		if (m == XP_MODEL_NLOGN)
			continue;
		for (size_t i = 0; i < K; i++)
			v[i] = 40 * g((enum xp_dbl_model)m, sizes[i]) * wobble(i);
		xp_dbl_fit(sizes, v, NULL, K, &f);
		xp_dbl_slope(sizes, v, K, &s);
		cr_assert(f.ok);
		cr_expect_eq((int)f.best, m, "%s fitted as %s", xp_dbl_model_name(m, false),
			     xp_dbl_model_name(f.best, false));
		cr_expect_float_eq(s.exponent,
				   m == XP_MODEL_N    ? 1
				   : m == XP_MODEL_N2 ? 2
						      : 3,
				   0.05);
	}
}

Test(doubling_fit, a_flat_line_with_noise_stays_constant)
{
	double v[K];
	struct xp_dbl_fit f;

	for (size_t i = 0; i < K; i++)
		v[i] = 1000 * wobble(i + 3);
	xp_dbl_fit(sizes, v, NULL, K, &f);
	cr_assert(f.ok);
	cr_expect_eq(f.best, XP_MODEL_1, "fitted as %s", xp_dbl_model_name(f.best, false));
}

Test(doubling_fit, degenerate_cases)
{
	double two[2] = {10, 20}, v2[2] = {5, 10};
	double zeros[K] = {0};
	double late[K] = {0, 0, 0, 0, 0, 0, 9};
	double decay[K];
	struct xp_dbl_fit f;

	xp_dbl_fit(two, v2, NULL, 2, &f);
	cr_expect(!f.ok);
	cr_expect_str_eq(f.why, "too few sizes");
	xp_dbl_fit(sizes, zeros, NULL, K, &f);
	cr_assert(f.ok);
	cr_expect_eq(f.best, XP_MODEL_1);
	cr_expect_eq(f.nrms[XP_MODEL_1], 0);
	/* one or two values above 0 are no shape: no model (issue 10: no "2^N" from two) */
	xp_dbl_fit(sizes, late, NULL, K, &f);
	cr_expect(!f.ok);
	cr_expect_str_eq(f.why, "fewer than 3 sizes with a value above 0");
	late[5] = 3;
	xp_dbl_fit(sizes, late, NULL, K, &f);
	cr_expect(!f.ok);
	late[4] = 1;
	xp_dbl_fit(sizes, late, NULL, K, &f);
	cr_assert(f.ok);
	for (int m = 0; m < XP_NMODELS; m++)
		cr_expect(!isnan(f.nrms[m]), "model %d", m);
	/* something that shrinks is no growth: the constant wins */
	for (size_t i = 0; i < K; i++)
		decay[i] = 1e6 / sizes[i];
	xp_dbl_fit(sizes, decay, NULL, K, &f);
	cr_assert(f.ok);
	cr_expect_eq(f.best, XP_MODEL_1);
}

/*
 * A floor read to a step of 26 (25, 51, 103, 207 for N = 16 ... 128, with a
 * lucky low at 64): a bend of N log N can fit that closer than N does, but
 * not by more than the points are known; N, the simpler, is the fit.
 * Exact points pick the closest shape as before.
 */
Test(doubling_fit, a_fit_need_not_be_closer_than_the_points_are_known)
{
	double n[4] = {16, 32, 64, 128}, v[4] = {25, 51, 77, 207}, sg[4] = {13, 13, 13, 13};
	struct xp_dbl_fit f;

	xp_dbl_fit(n, v, NULL, 4, &f);
	cr_assert(f.ok);
	cr_expect_neq(f.best, XP_MODEL_N, "without noise: %s", xp_dbl_model_name(f.best, false));
	xp_dbl_fit(n, v, sg, 4, &f);
	cr_assert(f.ok);
	cr_expect_eq(f.best, XP_MODEL_N, "fitted as %s", xp_dbl_model_name(f.best, false));
	cr_expect_float_eq(f.noise, 13.0 / 90.0, 1e-9);
}

Test(doubling_fit, huge_sizes_stay_finite)
{
	static const double big[] = {1024, 2048, 4096, 8192, 1e6};
	double v[NELEM(big)];
	struct xp_dbl_fit f;

	for (size_t i = 0; i < NELEM(big); i++)
		v[i] = big[i] * big[i];
	xp_dbl_fit(big, v, NULL, NELEM(big), &f);
	cr_assert(f.ok);
	cr_expect_eq(f.best, XP_MODEL_N2);
	for (int m = 0; m < XP_NMODELS; m++) {
		cr_expect(isfinite(f.nrms[m]), "model %d", m);
		cr_expect(isfinite(f.a[m]), "model %d", m);
	}
}

/* ---- reading runs ------------------------------------------------------- */

/*
 * One run at size @n in its own directory: "sq" costs n² per evaluation
 * plus @extra once (its floor stays n²), called 3 times; "lin" costs n,
 * called n times.  Calibration 2 is subtracted from every delta.
 */
static char *make_run(const char *name, uint64_t n, uint64_t extra, uint64_t pid,
		      const char *counter)
{
	static const struct dump_decl_info decls[] = {
		{"function", "sq", "prog", 0x1000},
		{"function", "lin", "prog", 0x2000},
	};
	char *sub = xt_path(xt_dir, name), *file;
	struct dump_meta meta;
	struct dump_map m;

	cr_assert_eq(mkdir(sub, 0700), 0);
	file = xt_path(sub, "a.xpd");
	xt_meta(&meta, counter, 2, pid, pid);
	xt_create(&m, file, &meta, decls, 2, 0);
	xt_record(&m, 0, n * n + 2 + extra, 1);
	xt_record(&m, 0, n * n + 2, 2);
	xt_record(&m, 1, n + 2, n);
	xt_finish(&m, true);
	free(file);
	return sub;
}

static int run(const char *const *argv, char **out, char **err);

static const struct xp_dbl_decl *find(const struct xp_doubling *d, const char *sym)
{
	for (size_t i = 0; i < d->ndecls; i++)
		if (!strcmp(d->decls[i].symbol, sym))
			return &d->decls[i];
	cr_assert_fail("no declaration %s", sym);
	return NULL;
}

TestSuite(doubling_build, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 30);

Test(doubling_build, sizes_fits_and_split)
{
	struct xp_dbl_input in[4];
	struct xp_report_opts o;
	struct xp_doubling d;
	struct xp_err e;
	const struct xp_dbl_decl *sq, *lin;
	struct xp_dbl_split s;

	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", 100 << i);
		in[i] = (struct xp_dbl_input){(uint64_t)100 << i,
					      make_run(name, 100u << i, 0, 10 + i, NULL), -1};
	}
	xp_report_opts_init(&o);
	cr_assert_eq(xp_dbl_build(&d, in, 4, &o, &e), 0, "%s", e.msg);
	cr_expect_eq(d.nsizes, 4);
	cr_expect(d.deterministic);
	sq = find(&d, "sq");
	lin = find(&d, "lin");
	cr_expect_eq(sq->pts[3].v[XP_DBL_PER_EVAL], 800 * 800);
	cr_expect_eq(sq->pts[3].v[XP_DBL_EVALUATIONS], 3);
	cr_expect_eq(lin->pts[2].v[XP_DBL_EVALUATIONS], 400);
	cr_expect_eq(lin->pts[2].v[XP_DBL_COST], 400 * 400);
	for (int i = 0; i < 3; i++) {
		cr_expect_eq(sq->g[XP_DBL_PER_EVAL].cls[i], XP_CLASS_N2);
		cr_expect_eq(lin->g[XP_DBL_PER_EVAL].cls[i], XP_CLASS_N);
		cr_expect_eq(lin->g[XP_DBL_EVALUATIONS].cls[i], XP_CLASS_N);
		cr_expect_eq(lin->g[XP_DBL_COST].cls[i], XP_CLASS_N2);
	}
	cr_expect_eq(sq->g[XP_DBL_PER_EVAL].fit.best, XP_MODEL_N2);
	cr_expect_float_eq(sq->g[XP_DBL_PER_EVAL].slope.exponent, 2.0, 1e-9);
	cr_assert(xp_dbl_decl_split(&d, lin, &s));
	cr_expect_float_eq(s.cost, 64.0, 1e-9);
	cr_expect_float_eq(s.evaluations_share, 0.5, 1e-9);
	/* most expensive at the largest size first */
	cr_expect_str_eq(d.decls[0].symbol, "sq");
	xp_dbl_free(&d);
	for (int i = 0; i < 4; i++)
		free(in[i].dir);
}

/* Three repeats at each size whose floors differ: --stat combines them. */
Test(doubling_build, repeats_combine_by_stat)
{
	static const uint64_t bump[3] = {0, 30, 90}; /* added to lin's floor per repeat */
	static const enum xp_stat stats[4] = {XP_STAT_MIN, XP_STAT_MEDIAN, XP_STAT_MEAN,
					      XP_STAT_AUTO};
	static const uint64_t want[4] = {200, 230, 240, 200}; /* lin at N=200 */
	struct xp_dbl_input in[6];
	struct xp_report_opts o;
	struct xp_doubling d;
	struct xp_err e;

	for (int i = 0; i < 6; i++) {
		uint64_t n = i < 3 ? 100 : 200;
		char name[16];

		snprintf(name, sizeof(name), "r%d", i);
		/* lin's floor raised by bump: every delta is n + bump */
		in[i] = (struct xp_dbl_input){n, make_run(name, n + bump[i % 3], 0, 20 + i, NULL),
					      -1};
	}
	for (int k = 0; k < 4; k++) {
		xp_report_opts_init(&o);
		o.stat = stats[k];
		cr_assert_eq(xp_dbl_build(&d, in, 6, &o, &e), 0, "%s", e.msg);
		cr_expect_eq(d.sizes[1].runs, 3);
		cr_expect_eq(find(&d, "lin")->pts[1].v[XP_DBL_PER_EVAL], want[k], "stat %d: %llu",
			     k, (unsigned long long)find(&d, "lin")->pts[1].v[XP_DBL_PER_EVAL]);
		xp_dbl_free(&d);
	}
	for (int i = 0; i < 6; i++)
		free(in[i].dir);
}

/*
 * --stat auto: sq's floor stays n² while one call in three also does n³
 * more: state-dependent at every size, so its per-eval is the mean, which
 * grows as N³; lin's calls all cost n: its floor.  --stat min reads sq as N².
 */
Test(doubling_build, auto_takes_the_mean_of_a_state_dependent_declaration)
{
	struct xp_dbl_input in[4];
	struct xp_report_opts o;
	struct xp_doubling d;
	struct xp_err e;
	const struct xp_dbl_decl *sq, *lin;

	for (int i = 0; i < 4; i++) {
		uint64_t n = (uint64_t)100 << i;
		char name[16];

		snprintf(name, sizeof(name), "n%llu", (unsigned long long)n);
		in[i] = (struct xp_dbl_input){n, make_run(name, n, n * n * n, 10 + i, NULL), -1};
	}
	xp_report_opts_init(&o);
	o.stat = XP_STAT_AUTO;
	cr_assert_eq(xp_dbl_build(&d, in, 4, &o, &e), 0, "%s", e.msg);
	sq = find(&d, "sq");
	lin = find(&d, "lin");
	cr_expect_eq(sq->stat, XP_STAT_MEAN);
	cr_expect_eq(lin->stat, XP_STAT_MIN);
	cr_expect_eq(sq->pts[0].v[XP_DBL_PER_EVAL], (3 * 100 * 100 + 100 * 100 * 100 + 1) / 3);
	cr_expect_eq(sq->pts[0].v[XP_DBL_COST], 3 * ((3 * 100 * 100 + 100 * 100 * 100 + 1) / 3));
	cr_expect_eq(lin->pts[3].v[XP_DBL_PER_EVAL], 800);
	cr_expect_eq(sq->g[XP_DBL_PER_EVAL].fit.best, XP_MODEL_N3, "%s",
		     xp_dbl_model_name(sq->g[XP_DBL_PER_EVAL].fit.best, false));
	cr_expect_eq(lin->g[XP_DBL_PER_EVAL].fit.best, XP_MODEL_N);
	xp_dbl_free(&d);
	o.stat = XP_STAT_MIN;
	cr_assert_eq(xp_dbl_build(&d, in, 4, &o, &e), 0, "%s", e.msg);
	sq = find(&d, "sq");
	cr_expect_eq(sq->stat, XP_STAT_MIN);
	cr_expect_eq(sq->pts[0].v[XP_DBL_PER_EVAL], 100 * 100);
	cr_expect_eq(sq->g[XP_DBL_PER_EVAL].fit.best, XP_MODEL_N2);
	xp_dbl_free(&d);
	for (int i = 0; i < 4; i++)
		free(in[i].dir);
}

/*
 * tsc reads 0 for what is below its step, not for nothing: a per-eval of
 * 0 at some sizes is left out of the fits, and two sizes above 0 make no
 * model and no slope (issue 10: "best fit 2^N" from two points).
 */
Test(doubling_build, zeros_of_a_time_counter_are_no_points)
{
	static const uint64_t floors[4] = {1238, 0, 2316, 0};
	static const struct dump_decl_info decls[] = {{"function", "step", "lib", 0x10}};
	struct xp_dbl_input in[4];
	struct xp_report_opts o;
	struct xp_doubling d;
	struct xp_err e;
	const struct xp_dbl_growth *g;

	for (int i = 0; i < 4; i++) {
		char name[16], *sub, *file;
		struct dump_meta meta;
		struct dump_map m;

		snprintf(name, sizeof(name), "t%d", i);
		sub = xt_path(xt_dir, name);
		cr_assert_eq(mkdir(sub, 0700), 0);
		file = xt_path(sub, "a.xpd");
		xt_meta(&meta, "tsc", 24, 40 + (uint64_t)i, 40 + (uint64_t)i);
		xt_create(&m, file, &meta, decls, 1, 0);
		xt_record(&m, 0, 24 + floors[i], 10);
		xt_finish(&m, true);
		free(file);
		in[i] = (struct xp_dbl_input){(uint64_t)250 << i, sub, -1};
	}
	xp_report_opts_init(&o);
	cr_assert_eq(xp_dbl_build(&d, in, 4, &o, &e), 0, "%s", e.msg);
	g = &find(&d, "step")->g[XP_DBL_PER_EVAL];
	cr_expect(!g->slope.ok);
	cr_expect_eq(g->slope.points, 2);
	cr_expect(!g->fit.ok);
	cr_expect_str_eq(g->fit.why, "fewer than 3 sizes with a value above 0");
	/* the plot marks its two 0s rather than leaving them out */
	cr_expect_eq(xp_dbl_plot_zeros(&d, XP_DBL_PER_EVAL), 2);
	cr_expect_eq(xp_dbl_plot_zeros(&d, XP_DBL_EVALUATIONS), 0);
	xp_dbl_free(&d);
	for (int i = 0; i < 4; i++)
		free(in[i].dir);
}

/* A directory of "extprof run --repeat" (DIR/repeat-K) is that many repeats. */
Test(doubling_build, run_repeat_directories_are_repeats)
{
	char *a = xt_path(xt_dir, "a"), *b = xt_path(xt_dir, "b"), *na, *nb, *out, *err;
	char *runs[4];

	cr_assert_eq(mkdir(a, 0700), 0);
	cr_assert_eq(mkdir(b, 0700), 0);
	runs[0] = make_run("a/repeat-1", 100, 0, 1, NULL);
	runs[1] = make_run("a/repeat-2", 100, 0, 2, NULL);
	runs[2] = make_run("b/repeat-1", 200, 0, 3, NULL);
	runs[3] = make_run("b/repeat-3", 200, 0, 4, NULL);
	cr_assert(asprintf(&na, "100=%s", a) > 0);
	cr_assert(asprintf(&nb, "200=%s", b) > 0);
	{
		const char *const argv[] = {"extprof",	"doubling", na,	 nb,
					    "--format", "json",	    NULL};

		cr_expect_eq(run(argv, &out, &err), 0, "%s", err);
		cr_expect(strstr(out, "\"runs\": 2"), "%s", out);
		cr_expect(strstr(out, "/b/repeat-3\""), "%s", out);
		free(out);
		free(err);
	}
	for (int i = 0; i < 4; i++)
		free(runs[i]);
	free(na);
	free(nb);
	free(a);
	free(b);
}

Test(doubling_build, different_counters_are_refused)
{
	struct xp_dbl_input in[2] = {{100, make_run("a", 100, 0, 1, "var:steps"), -1},
				     {200, make_run("b", 200, 0, 2, "tsc"), -1}};
	struct xp_report_opts o;
	struct xp_doubling d;
	struct xp_err e;

	xp_report_opts_init(&o);
	cr_expect_neq(xp_dbl_build(&d, in, 2, &o, &e), 0);
	cr_expect(strstr(e.msg, "different counters"), "%s", e.msg);
	free(in[0].dir);
	free(in[1].dir);
}

/* ---- the command line --------------------------------------------------- */

static int run(const char *const *argv, char **out, char **err)
{
	int status = xt_run(argv, NULL, out, err);

	cr_assert(WIFEXITED(status), "extprof died: status %d", status);
	return WEXITSTATUS(status);
}

Test(doubling_build, bad_command_lines_say_one_line_and_exit_2)
{
	char *a = make_run("a", 100, 0, 1, NULL), *b = make_run("b", 200, 0, 2, NULL);
	char *na, *nb;
	const char *const cases[][10] = {
		{"extprof", "doubling", NULL},
		{"extprof", "doubling", "100=x", NULL},
		{"extprof", "doubling", "foo", "bar", NULL},
		{"extprof", "doubling", "0=a", "1=b", NULL},
		{"extprof", "doubling", "--hook", "function:f", "1=a", "2=b", NULL},
		{"extprof", "doubling", "--sizes", "10", "--", "true", NULL},
		{"extprof", "doubling", "--sizes", "10,x", "--", "true", NULL},
		{"extprof", "doubling", "--sizes", "10,10", "--", "true", NULL},
		{"extprof", "doubling", "--sizes", "10,20", NULL},
		{"extprof", "doubling", "--plot", "x.gif", "1=a", "2=b", NULL},
		{"extprof", "doubling", "--repeat", "0", "--sizes", "1,2", "--", "true", NULL},
		{"extprof", "doubling", "--timeout", "-1", "--sizes", "1,2", "--", "true", NULL},
		{"extprof", "doubling", "--sort", "observed", "1=a", "2=b", NULL},
		{"extprof", "doubling", "--sort", "weight", "1=a", "2=b", NULL},
		{"extprof", "doubling", "--stat", "avg", "1=a", "2=b", NULL},
	};

	cr_assert(asprintf(&na, "100=%s/nope", xt_dir) > 0);
	cr_assert(asprintf(&nb, "200=%s", b) > 0);
	for (size_t i = 0; i < NELEM(cases); i++) {
		char *out, *err;

		cr_expect_eq(run(cases[i], &out, &err), 2, "case %zu: %s", i, err);
		cr_expect(!strncmp(err, "extprof: ", 9), "case %zu: %s", i, err);
		cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "case %zu: not one line: %s",
			  i, err);
		free(out);
		free(err);
	}
	{
		const char *const missing[] = {"extprof", "doubling", na, nb, NULL};
		char *out, *err;

		cr_expect_eq(run(missing, &out, &err), 2);
		cr_expect(strstr(err, "nope"), "%s", err);
		free(out);
		free(err);
	}
	free(na);
	free(nb);
	free(a);
	free(b);
}

Test(doubling_build, options_after_the_runs_and_help)
{
	char *a = make_run("a", 100, 0, 1, NULL), *b = make_run("b", 200, 0, 2, NULL);
	char *na, *nb, *out, *err;

	cr_assert(asprintf(&na, "100=%s", a) > 0);
	cr_assert(asprintf(&nb, "200=%s", b) > 0);
	{
		const char *const argv[] = {"extprof",	"doubling", na,	 nb,
					    "--format", "json",	    NULL};

		cr_expect_eq(run(argv, &out, &err), 0, "%s", err);
		cr_expect(strstr(out, "\"declarations\""), "%s", out);
		cr_expect(strstr(out, "\"class\": \"O(N^2)\""), "%s", out);
		/* the default statistic, and what it made of each declaration */
		cr_expect(strstr(out, "\"stat\": \"auto\""), "%s", out);
		cr_expect(strstr(out, "\"object\": \"prog\",\n      \"stat\": \"min\""), "%s", out);
		free(out);
		free(err);
	}
	{
		const char *const argv[] = {"extprof", "doubling", "--format", "csv", na, nb, NULL};

		cr_expect_eq(run(argv, &out, &err), 0, "%s", err);
		cr_expect(!strncmp(out, "kind,name,object,n,per_eval,", 28), "%s", out);
		cr_expect(strstr(out, "function,sq,prog,200,40000,4,O(N^2),3,1,O(1)/O(log N),"),
			  "%s", out);
		free(out);
		free(err);
	}
	{
		const char *const argv[] = {"extprof", "doubling", "--help", NULL};

		cr_expect_eq(run(argv, &out, &err), 0);
		cr_expect(strstr(out, "--sizes"));
		free(out);
		free(err);
	}
	free(na);
	free(nb);
	free(a);
	free(b);
}

/* ---- the plot --------------------------------------------------------------- */

/* A path of the plot's SVG: its style, and the points of its M and L steps. */
struct svg_path {
	char style[400];
	double x[16], y[16];
	int n;
};

/* The paths of @svg, at most @max, into @out: how many. */
static int svg_paths(const char *svg, struct svg_path *out, int max)
{
	int n = 0;

	for (const char *p = svg; n < max && (p = strstr(p, "<path style=\"")); n++) {
		const char *st = p + 13, *st_end = strchr(st, '"'), *d;
		struct svg_path *x = &out[n];

		memset(x, 0, sizeof(*x));
		snprintf(x->style, sizeof(x->style), "%.*s", (int)(st_end - st), st);
		d = strstr(st_end, "d=\"");
		cr_assert(d);
		for (d += 3; *d != '"' && x->n < 16;) {
			char *end;

			if (*d != 'M' && *d != 'L')
				break;
			x->x[x->n] = strtod(d + 1, &end);
			x->y[x->n++] = strtod(end, &end);
			d = end + strspn(end, " ");
		}
		p = d;
	}
	return n;
}

/* A doubling of four sizes and two declarations, values by hand; the caller fills pts. */
struct plot_case {
	struct xp_dbl_size sizes[4];
	struct xp_dbl_point pts[2][4];
	struct xp_dbl_decl decls[2];
	struct xp_doubling d;
};

static void plot_case(struct plot_case *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < 4; i++)
		c->sizes[i].n = 100u << i;
	for (int k = 0; k < 2; k++)
		c->decls[k] = (struct xp_dbl_decl){.kind = "function",
						   .symbol = k ? "b" : "a",
						   .object = "prog",
						   .pts = c->pts[k]};
	c->d = (struct xp_doubling){.nsizes = 4, .sizes = c->sizes, .ndecls = 2, .decls = c->decls};
	xp_report_opts_init(&c->d.opts);
	snprintf(c->d.counter_name, sizeof(c->d.counter_name), "var:work");
	snprintf(c->d.counter_unit, sizeof(c->d.counter_unit), "units");
}

/* Declaration @k at size @i: @v per evaluation (one evaluation), its runs from @lo to @hi. */
static void plot_point(struct plot_case *c, int k, int i, uint64_t v, uint64_t lo, uint64_t hi)
{
	struct xp_dbl_point *pt = &c->pts[k][i];

	pt->present = true;
	pt->v[XP_DBL_PER_EVAL] = pt->v[XP_DBL_COST] = v;
	pt->v[XP_DBL_EVALUATIONS] = 1;
	pt->lo[XP_DBL_PER_EVAL] = lo;
	pt->hi[XP_DBL_PER_EVAL] = hi;
}

/* The plot of per-eval as SVG, its paths into @paths: how many. */
static int plot_svg(const struct plot_case *c, struct svg_path *paths, int max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	cr_assert(f);
	cr_assert_eq(xp_dbl_plot_stream(&c->d, XP_DBL_PER_EVAL, true, f), 0);
	cr_assert_eq(fclose(f), 0);
	n = svg_paths(buf, paths, max);
	free(buf);
	return n;
}

/* The line of a series: stroke width 2, as many points as sizes. */
static bool series_line(const struct svg_path *p)
{
	return strstr(p->style, "stroke-width:2;") && p->n == 4;
}

#define MAX_PATHS 4096

/* Two declarations of the same values: drawn apart, in another colour and another dash. */
Test(doubling_plot, overlapping_series_stay_apart)
{
	struct svg_path *paths = calloc(MAX_PATHS, sizeof(*paths));
	const struct svg_path *line[2] = {NULL, NULL};
	struct plot_case c;
	int n, lines = 0;

	cr_assert(paths);
	plot_case(&c);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 4; i++)
			plot_point(&c, k, i, 1000u << (2 * i), 1000u << (2 * i), 1000u << (2 * i));
	n = plot_svg(&c, paths, MAX_PATHS);
	for (int i = 0; i < n; i++)
		if (series_line(&paths[i]) && lines < 2)
			line[lines++] = &paths[i];
	cr_assert_eq(lines, 2, "two series lines");
	cr_expect_eq(memcmp(line[0]->y, line[1]->y, sizeof(line[0]->y)), 0, "the same points");
	cr_expect(strstr(line[1]->style, "stroke-dasharray:") &&
			  (!strstr(line[0]->style, "stroke-dasharray:") ||
			   strcmp(strstr(line[0]->style, "stroke-dasharray:"),
				  strstr(line[1]->style, "stroke-dasharray:"))),
		  "the series on top hides the other: %s / %s", line[0]->style, line[1]->style);
	free(paths);
}

/* The N, N², N³ guides go through a point of the data, not from the plot's corner. */
Test(doubling_plot, guides_go_through_a_point)
{
	struct svg_path *paths = calloc(MAX_PATHS, sizeof(*paths));
	const struct svg_path *line[2] = {NULL, NULL};
	struct plot_case c;
	int n, lines = 0, guides = 0, through = 0;

	cr_assert(paths);
	plot_case(&c);
	for (int i = 0; i < 4; i++) {
		plot_point(&c, 0, i, 10u << i, 0, 0);		/* a: 10 N, low */
		plot_point(&c, 1, i, 100000u << (2 * i), 0, 0); /* b: N², high */
	}
	n = plot_svg(&c, paths, MAX_PATHS);
	for (int i = 0; i < n; i++)
		if (series_line(&paths[i]) && lines < 2)
			line[lines++] = &paths[i];
	cr_assert_eq(lines, 2);
	for (int i = 0; i < n; i++) {
		const struct svg_path *g = &paths[i];
		double dx, dy;

		if (!strstr(g->style, "stroke:rgb(40%,40%,40%)") || g->n != 2)
			continue;
		guides++;
		/* the guides run through a series' first point: one of the two lines' */
		dx = g->x[1] - g->x[0];
		dy = g->y[1] - g->y[0];
		for (int k = 0; k < 2; k++) {
			double cross =
				(line[k]->x[0] - g->x[0]) * dy - (line[k]->y[0] - g->y[0]) * dx;

			through += fabs(cross) / hypot(dx, dy) < 0.05;
		}
	}
	cr_expect_eq(guides, 3, "N, N², N³");
	cr_expect_eq(through, 3, "not every guide goes through the data");
	free(paths);
}

/* With repeats that differ, a bar at each such point spans the least to the largest run. */
Test(doubling_plot, the_spread_of_the_runs_is_drawn)
{
	struct svg_path *paths = calloc(MAX_PATHS, sizeof(*paths));
	const struct svg_path *line = NULL;
	const char *colour;
	size_t colour_len;
	struct plot_case c;
	int n, bars = 0;

	cr_assert(paths);
	plot_case(&c);
	c.d.ndecls = 1;
	plot_point(&c, 0, 0, 1000, 900, 1500);
	plot_point(&c, 0, 1, 2000, 2000, 2000);
	plot_point(&c, 0, 2, 4000, 3000, 6000);
	plot_point(&c, 0, 3, 8000, 8000, 8000);
	n = plot_svg(&c, paths, MAX_PATHS);
	for (int i = 0; i < n && !line; i++)
		if (series_line(&paths[i]))
			line = &paths[i];
	cr_assert(line);
	colour = strstr(line->style, "stroke:rgb(");
	cr_assert(colour);
	colour_len = strcspn(colour, ";");
	for (int i = 0; i < n; i++) {
		const struct svg_path *b = &paths[i];
		const char *c2 = strstr(b->style, "stroke:rgb(");

		if (!c2 || strncmp(c2, colour, colour_len))
			continue;
		/* vertical, in the series' colour, through a point of it, as tall as the spread */
		for (int k = 0; b->n == 2 && b->x[0] == b->x[1] && k < 4; k++)
			bars += fabs(b->x[0] - line->x[k]) < 0.01 && b->y[0] != b->y[1] &&
				fmin(b->y[0], b->y[1]) < line->y[k] &&
				fmax(b->y[0], b->y[1]) > line->y[k];
	}
	cr_expect_eq(bars, 2, "the points whose runs differ: 2, bars %d", bars);
	free(paths);
}
