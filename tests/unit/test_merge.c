// SPDX-License-Identifier: MIT
/*
 * The algebra: merge (floor min, hits of the lower floor, added when
 * equal), finalize once per process with its own calibration, combine
 * across processes; worked examples with exact numbers, and randomised
 * checks that the order and grouping of merges never matter.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"
#include "model/load.h"
#include "report/report.h"

TestSuite(merge, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 30);

static struct xp_acc acc_of(uint64_t evals, uint64_t floor, uint64_t hits, uint64_t sum,
			    uint64_t max)
{
	return (struct xp_acc){
		.evaluations = evals, .floor = floor, .hits = hits, .sum = sum, .max = max};
}

Test(merge, floor_is_the_min_and_hits_follow_the_lower_floor)
{
	struct xp_acc a = acc_of(10, 100, 3, 1200, 150), b = acc_of(5, 90, 1, 600, 200), m;

	cr_assert_eq(xp_acc_merge(&m, &a, &b), 0);
	cr_expect_eq(m.evaluations, 15);
	cr_expect_eq(m.floor, 90);
	cr_expect_eq(m.hits, 1);
	cr_expect_eq(m.sum, 1800);
	cr_expect_eq(m.max, 200);
	xp_acc_free(&m);
}

Test(merge, hits_add_when_floors_are_equal)
{
	struct xp_acc a = acc_of(10, 100, 3, 1200, 150), b = acc_of(4, 100, 2, 500, 130), m;

	cr_assert_eq(xp_acc_merge(&m, &a, &b), 0);
	cr_expect_eq(m.floor, 100);
	cr_expect_eq(m.hits, 5);
	xp_acc_free(&m);
}

Test(merge, a_worker_without_evaluations_changes_nothing)
{
	struct xp_acc a = acc_of(10, 100, 3, 1200, 150),
		      none = acc_of(0, EXTPROF_FLOOR_NONE, 0, 0, 0);
	struct xp_acc m;

	cr_assert_eq(xp_acc_merge(&m, &none, &a), 0);
	cr_expect_eq(m.floor, 100);
	cr_expect_eq(m.hits, 3);
	cr_expect_eq(m.evaluations, 10);
	xp_acc_free(&m);
}

Test(merge, histograms_add_bucket_by_bucket)
{
	struct xp_hbin ab[] = {{3, 1}, {200, 5}}, bb[] = {{3, 2}, {100, 1}, {300, 7}};
	struct xp_hist a = {2, ab}, b = {3, bb}, m;

	cr_assert_eq(xp_hist_merge(&m, &a, &b), 0);
	cr_assert_eq(m.n, 4);
	cr_expect(m.bins[0].bucket == 3 && m.bins[0].count == 3);
	cr_expect(m.bins[1].bucket == 100 && m.bins[1].count == 1);
	cr_expect(m.bins[2].bucket == 200 && m.bins[2].count == 5);
	cr_expect(m.bins[3].bucket == 300 && m.bins[3].count == 7);
	xp_hist_free(&m);
}

Test(merge, sums_saturate_instead_of_wrapping)
{
	struct xp_acc a = acc_of(UINT64_MAX - 1, 5, 1, UINT64_MAX - 10, 9),
		      b = acc_of(5, 5, 1, 100, 9);
	struct xp_acc m;

	cr_assert_eq(xp_acc_merge(&m, &a, &b), 0);
	cr_expect_eq(m.evaluations, UINT64_MAX);
	cr_expect_eq(m.sum, UINT64_MAX);
	xp_acc_free(&m);
}

Test(merge, finalize_subtracts_the_calibration_and_clamps)
{
	struct xp_acc a = acc_of(7, 118, 1, 898, 150), cheap = acc_of(3, 10, 3, 30, 10);
	struct xp_fin f, twice;

	cr_assert_eq(xp_finalize(&f, &a, 20, EXTPROF_COUNTER_VAR), 0);
	cr_expect_eq(f.floor, 98);
	cr_expect_eq(f.observed, 898 - 20 * 7);
	/* Not idempotent: that is why it runs once, after merging. */
	a.floor = f.floor;
	a.sum = f.observed;
	cr_assert_eq(xp_finalize(&twice, &a, 20, EXTPROF_COUNTER_VAR), 0);
	cr_expect_neq(twice.floor, f.floor);
	xp_fin_free(&f);
	xp_fin_free(&twice);
	cr_assert_eq(xp_finalize(&f, &cheap, 20, EXTPROF_COUNTER_VAR), 0);
	cr_expect_eq(f.floor, 0);
	cr_expect_eq(f.observed, 0);
	xp_fin_free(&f);
}

/* Load a directory of dumps and build its report. */
static void report_of(const char *d, struct xp_report *r, const struct xp_report_opts *o)
{
	struct xp_report_opts def;
	struct xp_err e = {""};
	struct xp_load l;

	if (!o) {
		xp_report_opts_init(&def);
		o = &def;
	}
	xp_load_init(&l, false);
	cr_assert_eq(xp_load_arg(&l, d, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_report_build(r, &l.set, o, l.skipped, &e), 0, "%s", e.msg);
	xp_load_free(&l);
}

static const struct xp_row *row_named(const struct xp_report *r, const char *symbol)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].symbol, symbol))
			return &r->rows[i];
	cr_assert_fail("no row %s", symbol);
	return NULL;
}

static const struct dump_decl_info f_decl = {"function", "f", "checker", 0x10};

/* One worker's dump of f: @n evaluations of each delta in @deltas. */
static void worker(const char *name, uint64_t pid, uint64_t cal, uint32_t w, const uint64_t *deltas,
		   const uint64_t *times, int n)
{
	char *path = xt_path(xt_dir, name);
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, cal, pid, pid * 1000);
	xt_create(&m, path, &meta, &f_decl, 1, w);
	for (int i = 0; i < n; i++)
		xt_record(&m, 0, deltas[i], times[i]);
	xt_finish(&m, true);
	free(path);
}

/*
 * Process A (calibration 20): worker 0 four evaluations at 120, worker 1
 * two at 150 and one at 118.  Merged: 7 evaluations, floor 118 with 1 hit
 * (the lower floor's), sum 898; finalized once: per_eval 98, observed 758.
 * Process B (calibration 30): three at 125: per_eval 95, observed 285.
 * Across: per_eval min(98, 95) = 95 with B's 3 hits, 10 evaluations,
 * cost 950, observed 1043.
 */
Test(merge, calibration_once_per_process_then_min_across_processes)
{
	struct xp_report r;
	const struct xp_row *f;

	worker("a0.xpd", 100, 20, 0, (uint64_t[]){120}, (uint64_t[]){4}, 1);
	worker("a1.xpd", 100, 20, 1, (uint64_t[]){150, 118}, (uint64_t[]){2, 1}, 2);
	worker("b0.xpd", 200, 30, 0, (uint64_t[]){125}, (uint64_t[]){3}, 1);
	report_of(xt_dir, &r, NULL);
	cr_assert_eq(r.nrows, 1);
	f = row_named(&r, "f");
	cr_expect_eq(f->fin.evaluations, 10);
	cr_expect_eq(f->per_eval, 95);
	cr_expect_eq(f->cost, 950);
	cr_expect_eq(f->fin.observed, 758 + 285);
	cr_expect_eq(f->fin.hits, 3);
	cr_expect(f->settled);
	cr_expect_eq(r.processes, 2);
	cr_expect_eq(r.workers, 3);
	cr_expect_eq(r.calibration, 20);
	cr_expect_eq(r.calibration_max, 30);
	/* xt_record adds 2 * delta per evaluation to the worker's run total */
	cr_expect_eq(r.run_total, 2 * (480 + 418 + 375));
	cr_expect(fabs(f->share - 950.0 / (2.0 * 1273)) < 1e-12);
	/* A's 98 and B's 95: 3 % apart, under --flag-ratio, however real: no imbalance */
	cr_expect_eq(f->flags, 0, "flags 0x%x", f->flags);
	cr_expect_eq(f->spread.processes, 2);
	cr_expect_eq(f->spread.per_eval_lo.value, 95);
	cr_expect_eq(f->spread.per_eval_lo.who.pid, 200);
	cr_expect_eq(f->spread.per_eval_hi.value, 98);
	cr_expect_eq(f->spread.per_eval_hi.who.pid, 100);
	cr_expect_eq(f->spread.evaluations_lo.value, 3);
	cr_expect_eq(f->spread.evaluations_hi.value, 7);
	xp_report_free(&r);
}

/*
 * Merging keeps the hits of the lower floor (118: 1 hit) and drops worker
 * 0's four; finalize counts them back from the histogram when they were
 * within the margin (2) of 118, never when they were beyond it.
 */
struct margin_case {
	uint64_t a0;   /* worker 0's four evaluations */
	uint64_t hits; /* at the floor, finalized */
	bool settled;
	uint32_t flags;
};

ParameterizedTestParameters(merge, histogram_hits_and_the_margin)
{
	static struct margin_case cases[] = {
		/* 120 is within the margin of 118: 5 hits, settled */
		{120, 5, true, 0},
		/* 121 is 3 above the floor 118: outside the margin, so 1 hit, unsettled */
		{121, 1, false, 1u << XP_FLAG_UNSETTLED},
	};

	return cr_make_param_array(struct margin_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct margin_case *c, merge, histogram_hits_and_the_margin)
{
	struct xp_report r;
	const struct xp_row *f;

	worker("a0.xpd", 100, 20, 0, (uint64_t[]){c->a0}, (uint64_t[]){4}, 1);
	worker("a1.xpd", 100, 20, 1, (uint64_t[]){150, 118}, (uint64_t[]){2, 1}, 2);
	report_of(xt_dir, &r, NULL);
	f = row_named(&r, "f");
	cr_expect_eq(f->per_eval, 98, "a0 %llu", (unsigned long long)c->a0);
	cr_expect_eq(f->fin.hits, c->hits, "a0 %llu", (unsigned long long)c->a0);
	cr_expect_eq(f->settled, c->settled, "a0 %llu", (unsigned long long)c->a0);
	cr_expect_eq(f->flags, c->flags, "a0 %llu: flags 0x%x", (unsigned long long)c->a0,
		     f->flags);
	xp_report_free(&r);
}

/* Deltas 110 x3 and 150 x1, calibration 10: min 100, median 100, mean 110, p99 140. */
Test(merge, stat_min_median_mean)
{
	struct xp_report_opts o;
	struct xp_report r;
	const struct xp_row *f;

	worker("a0.xpd", 100, 10, 0, (uint64_t[]){110, 150}, (uint64_t[]){3, 1}, 2);
	xp_report_opts_init(&o);
	report_of(xt_dir, &r, &o);
	f = row_named(&r, "f");
	cr_expect_eq(f->per_eval, 100);
	cr_expect_eq(f->p50, 100);
	cr_expect_eq(f->p99, 140);
	xp_report_free(&r);
	o.stat = XP_STAT_MEDIAN;
	report_of(xt_dir, &r, &o);
	cr_expect_eq(row_named(&r, "f")->per_eval, 100);
	xp_report_free(&r);
	o.stat = XP_STAT_MEAN;
	report_of(xt_dir, &r, &o);
	f = row_named(&r, "f");
	cr_expect_eq(f->per_eval, 110);
	cr_expect_eq(f->cost, 440);
	xp_report_free(&r);
}

/* Above 128 the median is a bucket midpoint, kept inside [floor, max]. */
Test(merge, median_from_wide_buckets)
{
	struct xp_report_opts o;
	struct xp_report r;

	worker("a0.xpd", 100, 7, 0, (uint64_t[]){1000, 2000}, (uint64_t[]){1, 2}, 2);
	xp_report_opts_init(&o);
	o.stat = XP_STAT_MEDIAN;
	report_of(xt_dir, &r, &o);
	/* 2000 lies in [2000, 2015], midpoint 2007, clamped to max 2000 */
	cr_expect_eq(row_named(&r, "f")->per_eval, 2000 - 7);
	cr_expect_eq(row_named(&r, "f")->p50, 2000 - 7);
	xp_report_free(&r);
}

static struct xp_report flag_report(double ratio, uint64_t step)
{
	struct xp_report r;

	memset(&r, 0, sizeof(r));
	xp_report_opts_init(&r.opts);
	r.opts.flag_ratio = ratio;
	r.resolution = 1;
	r.step = step;
	r.run_total = 1000000;
	return r;
}

static unsigned flags_of(const struct xp_report *r, uint64_t evals, uint64_t floor, uint64_t hits,
			 uint64_t observed)
{
	struct xp_row row;

	memset(&row, 0, sizeof(row));
	row.fin.evaluations = evals;
	row.fin.floor = floor;
	row.fin.hits = hits;
	row.fin.observed = observed;
	xp_row_figures(&row, r);
	return row.flags;
}

#define F(x) (1u << XP_FLAG_##x)

Test(merge, flag_thresholds)
{
	struct xp_report r = flag_report(0.25, 1);

	/* cost 100: flagged from observed 125 on */
	cr_expect_eq(flags_of(&r, 10, 10, 5, 125), F(STATE_DEPENDENT));
	cr_expect_eq(flags_of(&r, 10, 10, 5, 124), 0);
	r.opts.flag_ratio = 1.0;
	cr_expect_eq(flags_of(&r, 10, 10, 5, 199), 0);
	cr_expect_eq(flags_of(&r, 10, 10, 5, 200), F(STATE_DEPENDENT));
	/* cost 0: flagged when observed passes 2 steps per evaluation */
	r = flag_report(0.25, 4);
	cr_expect_eq(flags_of(&r, 10, 0, 5, 80), F(TOO_CHEAP));
	cr_expect_eq(flags_of(&r, 10, 0, 5, 81), F(TOO_CHEAP) | F(STATE_DEPENDENT));
	/* step 26: 50 % above cost is still noise while within 2 steps per evaluation */
	r = flag_report(0.25, 26);
	cr_expect_eq(flags_of(&r, 10, 100, 5, 1500), 0);
	cr_expect_eq(flags_of(&r, 10, 100, 5, 1520), 0);
	cr_expect_eq(flags_of(&r, 10, 100, 5, 1521), F(STATE_DEPENDENT));
	/* a deterministic counter has no such noise: any gap of 25 % is a finding */
	r.deterministic = true;
	cr_expect_eq(flags_of(&r, 10, 100, 5, 1250), F(STATE_DEPENDENT));
	cr_expect_eq(flags_of(&r, 10, 0, 5, 1), F(TOO_CHEAP) | F(STATE_DEPENDENT));
	r.deterministic = false;
	/* step 26: per_eval 10 is below it, 26 is not */
	cr_expect_eq(flags_of(&r, 10, 10, 5, 100), F(BELOW_RESOLUTION));
	cr_expect_eq(flags_of(&r, 10, 26, 5, 260), 0);
	cr_expect_eq(flags_of(&r, 10, 26, 1, 260), F(UNSETTLED));
	/* a per-eval of 0 cannot be high: too-cheap, not unsettled as well */
	cr_expect_eq(flags_of(&r, 10, 0, 1, 0), F(TOO_CHEAP));
	/* a live dump's race (no floor yet): unsettled, not too-cheap */
	cr_expect_eq(flags_of(&r, 10, EXTPROF_FLOOR_NONE, 0, 0), F(UNSETTLED));
	/* never evaluated: listed, no flags */
	cr_expect_eq(flags_of(&r, 0, EXTPROF_FLOOR_NONE, 0, 0), 0);
}

/* A row of 1000 evaluations: @bulk of them at @low, the rest at @high. */
static void outlier_row(struct xp_row *row, struct xp_vbin *bins, uint64_t bulk, uint64_t low,
			uint64_t high)
{
	memset(row, 0, sizeof(*row));
	bins[0] = (struct xp_vbin){low, bulk};
	bins[1] = (struct xp_vbin){high, 1000 - bulk};
	row->fin = (struct xp_fin){.evaluations = 1000, .floor = low, .hits = bulk};
	row->fin.observed = bulk * low + (1000 - bulk) * high;
	row->fin.vals = (struct xp_vhist){2, bins};
}

/*
 * A preemption lands in a call with a chance of its length over 100,000
 * units at most, and up to that share of the dearest calls (5 % at most) is
 * set aside for the flag.  A 50,000-tick function with 4 % of its calls at
 * 5,000,000 (preemptions) is not state-dependent; with 6 %, it is.  A
 * 100-tick function cannot have 1 % of its calls preempted: its dear ones
 * are its own.  A deterministic counter's outliers are its work.
 */
Test(merge, preemptions_are_not_state_dependence)
{
	struct xp_report r = flag_report(0.25, 1);
	struct xp_vbin bins[2];
	struct xp_row row;

	outlier_row(&row, bins, 960, 50000, 5000000);
	cr_assert_eq(xp_row_figures(&row, &r), 0);
	cr_expect_eq(row.trimmed, 1000 * 50000);
	cr_expect_eq(row.flags, 0);
	cr_expect_eq(xp_row_weight(&row), row.cost, "weighed by cost");
	free(row.chains);
	outlier_row(&row, bins, 940, 50000, 5000000);
	cr_assert_eq(xp_row_figures(&row, &r), 0);
	cr_expect_eq(row.trimmed, row.fin.observed);
	cr_expect_eq(row.flags, F(STATE_DEPENDENT));
	cr_expect_eq(xp_row_weight(&row), row.fin.observed, "weighed by observed");
	free(row.chains);
	outlier_row(&row, bins, 990, 100, 1000000);
	cr_assert_eq(xp_row_figures(&row, &r), 0);
	cr_expect_eq(row.flags, F(STATE_DEPENDENT));
	free(row.chains);
	r.deterministic = true;
	outlier_row(&row, bins, 960, 50000, 5000000);
	cr_assert_eq(xp_row_figures(&row, &r), 0);
	cr_expect_eq(row.flags, F(STATE_DEPENDENT));
	free(row.chains);
}

/*
 * The step the deltas move in: a TSC that advances 26 ticks at a time but
 * is now and then read 1 apart has step 26; a fine counter has step 1.
 */
Test(merge, step_from_the_histograms)
{
	struct xp_hbin coarse_a[] = {{1, 500}, {26, 9000}, {52, 3000}, {78, 100}, {79, 2}};
	struct xp_hbin coarse_b[] = {{52, 10}, {104, 400}, {130, 300}, {300, 5}};
	struct xp_hbin fine[] = {{40, 10}, {41, 30}, {42, 20}, {44, 5}};
	struct xp_step s;

	memset(&s, 0, sizeof(s));
	cr_expect_eq(xp_step_get(&s), 0, "nothing seen");
	xp_step_add(&s, &(struct xp_hist){5, coarse_a});
	xp_step_add(&s, &(struct xp_hist){4, coarse_b});
	cr_expect_eq(xp_step_get(&s), 26);
	memset(&s, 0, sizeof(s));
	xp_step_add(&s, &(struct xp_hist){4, fine});
	cr_expect_eq(xp_step_get(&s), 1);
}

Test(merge, recursive_and_abandoned_flags)
{
	struct xp_report r = flag_report(0.25, 1);
	struct xp_row row;

	memset(&row, 0, sizeof(row));
	row.fin = (struct xp_fin){.evaluations = 3,
				  .floor = 50,
				  .hits = 3,
				  .observed = 150,
				  .recursive = 2,
				  .abandoned = 1};
	xp_row_figures(&row, &r);
	cr_expect_eq(row.flags, F(RECURSIVE) | F(ABANDONED));
}

static void two_decl_worker(const char *name, uint64_t pid, uint32_t w, int ndecls,
			    const char *counter, const char *cpu, uint64_t cal)
{
	static const struct dump_decl_info decls[] = {
		{"function", "f", "checker", 0x10},
		{"guard", "g", "checker", 0x20},
	};
	char *path = xt_path(xt_dir, name);
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, counter, cal, pid, pid * 1000);
	if (cpu)
		strcpy(meta.cpu_model, cpu);
	xt_create(&m, path, &meta, decls, (uint32_t)ndecls, w);
	xt_record(&m, 0, 100, 3);
	xt_finish(&m, true);
	free(path);
}

static void expect_load_error(const char *want)
{
	struct xp_report_opts o;
	struct xp_err e = {""};
	struct xp_report r;
	struct xp_load l;
	int err;

	xp_report_opts_init(&o);
	xp_load_init(&l, false);
	err = xp_load_arg(&l, xt_dir, &e);
	if (!err) {
		err = xp_report_build(&r, &l.set, &o, 0, &e);
		if (!err)
			xp_report_free(&r);
	}
	xp_load_free(&l);
	cr_assert_neq(err, 0, "accepted; wanted \"%s\"", want);
	cr_assert_not_null(strstr(e.msg, want), "\"%s\" lacks \"%s\"", e.msg, want);
}

Test(merge, declarations_differ_within_a_process)
{
	two_decl_worker("a0.xpd", 100, 0, 2, NULL, NULL, 5);
	two_decl_worker("a1.xpd", 100, 1, 1, NULL, NULL, 5);
	expect_load_error("a1.xpd: declaration guard:g@checker of ");
	expect_load_error("a0.xpd, a dump of the same process (pid 100), is missing");
}

Test(merge, extra_declaration_within_a_process)
{
	two_decl_worker("a0.xpd", 100, 0, 1, NULL, NULL, 5);
	two_decl_worker("a1.xpd", 100, 1, 2, NULL, NULL, 5);
	expect_load_error("a1.xpd: declaration guard:g@checker is not in ");
}

Test(merge, same_worker_twice)
{
	two_decl_worker("a0.xpd", 100, 0, 1, NULL, NULL, 5);
	two_decl_worker("a1.xpd", 100, 0, 1, NULL, NULL, 5);
	expect_load_error("a1.xpd: worker 0 of process 100 is also in ");
}

Test(merge, calibration_differs_within_a_process)
{
	two_decl_worker("a0.xpd", 100, 0, 1, NULL, NULL, 5);
	two_decl_worker("a1.xpd", 100, 1, 1, NULL, NULL, 6);
	expect_load_error("a1.xpd: calibration differs from ");
}

Test(merge, mixed_counters_across_processes)
{
	two_decl_worker("a0.xpd", 100, 0, 1, NULL, NULL, 5);
	two_decl_worker("b0.xpd", 200, 0, 1, "var:other", NULL, 5);
	expect_load_error(
		"b0.xpd: counter var:other (steps) does not match counter var:steps (steps) of ");
}

/*
 * Processes on different CPU models: a deterministic counter counts the same
 * work alike on any, and they merge, the models listed; a time counter
 * keeps each model's rows apart; --allow-mixed merges them, with a warning.
 */
Test(merge, different_cpus_merge_when_deterministic_else_kept_apart)
{
	struct xp_report_opts o;
	struct xp_report r;

	two_decl_worker("a0.xpd", 100, 0, 1, NULL, "CPU one", 5);
	two_decl_worker("b0.xpd", 200, 0, 1, NULL, "CPU two", 5);
	report_of(xt_dir, &r, NULL);
	cr_expect_not(r.by_cpu);
	cr_expect_eq(r.nwarnings, 0);
	cr_assert_eq(r.ncpus, 2);
	cr_expect_str_eq(r.cpus[0], "CPU one");
	cr_expect_str_eq(r.cpus[1], "CPU two");
	cr_assert_eq(r.nrows, 1, "merged");
	cr_expect_eq(r.rows[0].fin.evaluations, 6);
	cr_expect_null(r.rows[0].cpu);
	xp_report_free(&r);

	xt_dir_fini();
	xt_dir_init();
	two_decl_worker("a0.xpd", 100, 0, 1, "tsc", "CPU one", 5);
	two_decl_worker("b0.xpd", 200, 0, 1, "tsc", "CPU two", 5);
	report_of(xt_dir, &r, NULL);
	cr_expect(r.by_cpu);
	cr_expect_eq(r.nwarnings, 0);
	cr_assert_eq(r.nrows, 2, "f apart on each model");
	for (size_t i = 0; i < r.nrows; i++) {
		cr_expect_eq(r.rows[i].fin.evaluations, 3);
		cr_expect(r.rows[i].cpu &&
			  (!strcmp(r.rows[i].cpu, "CPU one") || !strcmp(r.rows[i].cpu, "CPU two")));
	}
	xp_report_free(&r);
	xp_report_opts_init(&o);
	o.allow_mixed = true;
	report_of(xt_dir, &r, &o);
	cr_expect_not(r.by_cpu);
	cr_assert_eq(r.nrows, 1);
	cr_assert_eq(r.nwarnings, 1);
	cr_expect_str_eq(
		r.warnings[0],
		"processes ran on different CPUs: \"CPU one\" (pid 100) and \"CPU two\" (pid 200)");
	xp_report_free(&r);
}

/*
 * Processes of different executables (a shell and what it runs) are kept
 * apart, each executable's rows its own; --allow-mixed merges them, with a
 * warning.
 */
Test(merge, different_executables_are_kept_apart_unless_mixed_is_allowed)
{
	static const struct dump_decl_info d = {"function", "f", "checker", 0x10};
	struct xp_report_opts o;
	struct dump_meta meta;
	struct xp_report r;
	struct dump_map m;
	char *path;

	two_decl_worker("a0.xpd", 100, 0, 1, NULL, NULL, 5);
	path = xt_path(xt_dir, "b0.xpd");
	xt_meta(&meta, NULL, 5, 200, 200000);
	meta.build_id[0] = 0x01; /* deadbeef -> 01adbeef */
	strcpy(meta.exe_path, "/usr/bin/checker-new");
	xt_create(&m, path, &meta, &d, 1, 0);
	xt_record(&m, 0, 100, 3);
	xt_finish(&m, true);
	free(path);
	report_of(xt_dir, &r, NULL);
	cr_expect(r.by_exe);
	cr_expect_eq(r.nwarnings, 0);
	cr_assert_eq(r.nexes, 2);
	cr_expect_str_eq(r.exes[0], "/usr/bin/checker");
	cr_expect_str_eq(r.exes[1], "/usr/bin/checker-new");
	cr_assert_eq(r.nrows, 2, "f apart in each executable");
	for (size_t i = 0; i < r.nrows; i++)
		cr_expect(r.rows[i].exe && (!strcmp(r.rows[i].exe, "checker") ||
					    !strcmp(r.rows[i].exe, "checker-new")));
	xp_report_free(&r);
	xp_report_opts_init(&o);
	o.allow_mixed = true;
	report_of(xt_dir, &r, &o);
	cr_assert_eq(r.nwarnings, 1);
	cr_expect_str_eq(
		r.warnings[0],
		"processes ran different executables: /usr/bin/checker (build-id "
		"deadbeef, pid 100) and /usr/bin/checker-new (build-id 01adbeef, pid 200)");
	xp_report_free(&r);
}

Test(merge, zero_evaluation_declarations_are_listed)
{
	struct xp_report r;
	const struct xp_row *g;

	two_decl_worker("a0.xpd", 100, 0, 2, NULL, NULL, 5);
	report_of(xt_dir, &r, NULL);
	cr_assert_eq(r.nrows, 2);
	g = row_named(&r, "g");
	cr_expect_eq(g->fin.evaluations, 0);
	cr_expect_eq(g->per_eval, 0);
	cr_expect_eq(g->flags, 0);
	cr_expect_str_eq(r.rows[0].symbol, "f"); /* most expensive first */
	xp_report_free(&r);
}

/* ---- randomised: order and grouping never matter ---- */

/* Up to 4 caller chains out of 5 names ("" is "other"), random figures. */
static void chains_random(struct xp_chain **h, unsigned *seed)
{
	static const char *const keys[] = {"a+0x1@p", "b+0x2@p\0main+0x3@p", "c+0x4@p", "",
					   "0x7f00"};
	static const size_t lens[] = {8, 19, 8, 0, 7};
	static const uint64_t floors[] = {40, 41, 45, 90, EXTPROF_FLOOR_NONE};
	int n = rand_r(seed) % 5;

	for (int i = 0; i < n; i++) {
		int k = rand_r(seed) % 5;
		struct xp_chain c = {.key = (char *)keys[k], .keylen = lens[k]};

		c.depth = k == 3 ? 0 : k == 1 ? 2 : 1;
		c.floor = floors[rand_r(seed) % 5];
		c.evaluations =
			c.floor == EXTPROF_FLOOR_NONE ? 0 : 1 + (uint64_t)(rand_r(seed) % 50);
		c.hits = c.evaluations ? 1 + (uint64_t)rand_r(seed) % c.evaluations : 0;
		c.sum = c.evaluations * (c.floor == EXTPROF_FLOOR_NONE ? 0 : c.floor + 3);
		cr_assert_eq(xp_chains_put(h, &c), 0);
	}
}

static void expect_chains_eq(struct xp_chain *const *a, struct xp_chain *const *b)
{
	struct xp_chain *x, *tmp, *y;

	cr_assert_eq(HASH_COUNT(*a), HASH_COUNT(*b));
	HASH_ITER(hh, *a, x, tmp)
	{
		HASH_FIND(hh, *b, x->key, x->keylen, y);
		cr_assert_not_null(y, "chain %s missing", x->key);
		cr_assert_eq(x->depth, y->depth);
		cr_assert_eq(x->evaluations, y->evaluations);
		cr_assert_eq(x->floor, y->floor);
		cr_assert_eq(x->hits, y->hits);
		cr_assert_eq(x->sum, y->sum);
	}
}

static struct xp_acc acc_random(unsigned *seed)
{
	static const uint64_t floors[] = {50, 51, 60, 200, EXTPROF_FLOOR_NONE};
	struct xp_acc a;
	size_t n = (size_t)(rand_r(seed) % 6);
	uint32_t bucket = (uint32_t)(rand_r(seed) % 20);

	memset(&a, 0, sizeof(a));
	a.floor = floors[rand_r(seed) % 5];
	a.evaluations = a.floor == EXTPROF_FLOOR_NONE ? 0 : 1 + (uint64_t)(rand_r(seed) % 1000);
	a.hits = a.evaluations ? 1 + (uint64_t)rand_r(seed) % a.evaluations : 0;
	a.sum = a.evaluations *
		(a.floor == EXTPROF_FLOOR_NONE ? 0 : a.floor + (uint64_t)(rand_r(seed) % 50));
	a.max = a.evaluations ? a.floor + (uint64_t)(rand_r(seed) % 500) : 0;
	a.recursive = (uint64_t)(rand_r(seed) % 3);
	a.abandoned = (uint64_t)(rand_r(seed) % 2);
	a.outside = (uint64_t)(rand_r(seed) % 4);
	a.hist.bins = calloc(n + 1, sizeof(*a.hist.bins));
	for (size_t i = 0; i < n; i++) {
		bucket += 1 + (uint32_t)(rand_r(seed) % 300);
		a.hist.bins[a.hist.n++] = (struct xp_hbin){bucket % EXTPROF_HIST_BUCKETS,
							   1 + (uint64_t)(rand_r(seed) % 9)};
		if (a.hist.n > 1 &&
		    a.hist.bins[a.hist.n - 1].bucket <= a.hist.bins[a.hist.n - 2].bucket)
			a.hist.n--; /* keep it ascending */
	}
	chains_random(&a.chains, seed);
	return a;
}

static void expect_acc_eq(const struct xp_acc *a, const struct xp_acc *b)
{
	cr_assert_eq(a->evaluations, b->evaluations);
	cr_assert_eq(a->floor, b->floor);
	cr_assert_eq(a->hits, b->hits);
	cr_assert_eq(a->sum, b->sum);
	cr_assert_eq(a->max, b->max);
	cr_assert_eq(a->recursive, b->recursive);
	cr_assert_eq(a->abandoned, b->abandoned);
	cr_assert_eq(a->outside, b->outside);
	cr_assert_eq(a->hist.n, b->hist.n);
	for (size_t i = 0; i < a->hist.n; i++) {
		cr_assert_eq(a->hist.bins[i].bucket, b->hist.bins[i].bucket);
		cr_assert_eq(a->hist.bins[i].count, b->hist.bins[i].count);
	}
	expect_chains_eq(&a->chains, &b->chains);
}

static void expect_fin_eq(const struct xp_fin *a, const struct xp_fin *b)
{
	cr_assert_eq(a->evaluations, b->evaluations);
	cr_assert_eq(a->floor, b->floor);
	cr_assert_eq(a->hits, b->hits);
	cr_assert_eq(a->observed, b->observed);
	cr_assert_eq(a->recursive, b->recursive);
	cr_assert_eq(a->abandoned, b->abandoned);
	cr_assert_eq(a->outside, b->outside);
	cr_assert_eq(a->vals.n, b->vals.n);
	for (size_t i = 0; i < a->vals.n; i++) {
		cr_assert_eq(a->vals.bins[i].value, b->vals.bins[i].value);
		cr_assert_eq(a->vals.bins[i].count, b->vals.bins[i].count);
	}
	expect_chains_eq(&a->chains, &b->chains);
}

/* Merge v[lo..hi) as a random binary tree. */
static struct xp_acc merge_tree(struct xp_acc *v, size_t lo, size_t hi, unsigned *seed)
{
	struct xp_acc l, r, m;
	size_t mid;

	if (hi - lo == 1) {
		cr_assert_eq(
			xp_acc_merge(&m, &v[lo], &(struct xp_acc){.floor = EXTPROF_FLOOR_NONE}), 0);
		return m;
	}
	mid = lo + 1 + (size_t)rand_r(seed) % (hi - lo - 1);
	l = merge_tree(v, lo, mid, seed);
	r = merge_tree(v, mid, hi, seed);
	cr_assert_eq(xp_acc_merge(&m, &l, &r), 0);
	xp_acc_free(&l);
	xp_acc_free(&r);
	return m;
}

static void shuffle(struct xp_acc *v, size_t n, unsigned *seed)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)rand_r(seed) % (i + 1);
		struct xp_acc t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

Test(merge, random_merge_is_associative_and_commutative)
{
	unsigned seed = 2024;

	for (int round = 0; round < 400; round++) {
		struct xp_acc v[7], ref, other;
		size_t n = 2 + (size_t)rand_r(&seed) % 6;
		struct xp_fin fa, fb;
		uint64_t cal = (uint64_t)(rand_r(&seed) % 80);

		for (size_t i = 0; i < n; i++)
			v[i] = acc_random(&seed);
		ref = merge_tree(v, 0, n, &seed);
		for (int k = 0; k < 4; k++) {
			shuffle(v, n, &seed);
			other = merge_tree(v, 0, n, &seed);
			expect_acc_eq(&ref, &other);
			/* finalize after any merge order gives the same result */
			cr_assert_eq(xp_finalize(&fa, &ref, cal, EXTPROF_COUNTER_VAR), 0);
			cr_assert_eq(xp_finalize(&fb, &other, cal, EXTPROF_COUNTER_VAR), 0);
			expect_fin_eq(&fa, &fb);
			xp_fin_free(&fa);
			xp_fin_free(&fb);
			xp_acc_free(&other);
		}
		xp_acc_free(&ref);
		for (size_t i = 0; i < n; i++)
			xp_acc_free(&v[i]);
	}
}

/* The in-place forms (used when folding dumps) give what the pure ones give. */
Test(merge, in_place_add_equals_merge)
{
	unsigned seed = 31;

	for (int round = 0; round < 600; round++) {
		struct xp_acc a = acc_random(&seed), b = acc_random(&seed), m, inplace;
		struct xp_fin fa, fb, fm, finplace;

		cr_assert_eq(xp_acc_merge(&m, &a, &b), 0);
		cr_assert_eq(
			xp_acc_merge(&inplace, &a, &(struct xp_acc){.floor = EXTPROF_FLOOR_NONE}),
			0);
		cr_assert_eq(xp_acc_add(&inplace, &b), 0);
		expect_acc_eq(&m, &inplace);
		cr_assert_eq(xp_finalize(&fa, &a, 7, EXTPROF_COUNTER_VAR), 0);
		cr_assert_eq(xp_finalize(&fb, &b, 3, EXTPROF_COUNTER_VAR), 0);
		cr_assert_eq(xp_fin_combine(&fm, &fa, &fb), 0);
		cr_assert_eq(xp_fin_add(&fa, &fb), 0);
		finplace = fa;
		expect_fin_eq(&fm, &finplace);
		xp_fin_free(&fm);
		xp_fin_free(&finplace);
		xp_fin_free(&fb);
		xp_acc_free(&m);
		xp_acc_free(&inplace);
		xp_acc_free(&a);
		xp_acc_free(&b);
	}
}

Test(merge, random_combine_across_processes_is_associative_and_commutative)
{
	unsigned seed = 77;

	for (int round = 0; round < 400; round++) {
		struct xp_fin f[3], ab, ab_c, bc, a_bc, ba, cb;
		struct xp_acc a;

		for (int i = 0; i < 3; i++) {
			a = acc_random(&seed);
			cr_assert_eq(xp_finalize(&f[i], &a, (uint64_t)(rand_r(&seed) % 60),
						 EXTPROF_COUNTER_VAR),
				     0);
			xp_acc_free(&a);
		}
		cr_assert_eq(xp_fin_combine(&ab, &f[0], &f[1]), 0);
		cr_assert_eq(xp_fin_combine(&ba, &f[1], &f[0]), 0);
		expect_fin_eq(&ab, &ba);
		cr_assert_eq(xp_fin_combine(&ab_c, &ab, &f[2]), 0);
		cr_assert_eq(xp_fin_combine(&bc, &f[1], &f[2]), 0);
		cr_assert_eq(xp_fin_combine(&cb, &f[2], &f[1]), 0);
		expect_fin_eq(&bc, &cb);
		cr_assert_eq(xp_fin_combine(&a_bc, &f[0], &bc), 0);
		expect_fin_eq(&ab_c, &a_bc);
		for (int i = 0; i < 3; i++)
			xp_fin_free(&f[i]);
		xp_fin_free(&ab);
		xp_fin_free(&ba);
		xp_fin_free(&ab_c);
		xp_fin_free(&bc);
		xp_fin_free(&cb);
		xp_fin_free(&a_bc);
	}
}

/* Splitting one process's evaluations over more workers changes no figure. */
Test(merge, worker_count_does_not_change_the_report)
{
	struct xp_report one, many;
	char *sub = xt_path(xt_dir, "one");
	const struct xp_row *a, *b;
	char *keep = xt_dir;

	worker("w0.xpd", 100, 20, 0, (uint64_t[]){120, 130}, (uint64_t[]){2, 1}, 2);
	worker("w1.xpd", 100, 20, 1, (uint64_t[]){121, 500}, (uint64_t[]){2, 1}, 2);
	worker("w2.xpd", 100, 20, 2, (uint64_t[]){120}, (uint64_t[]){1}, 1);
	report_of(xt_dir, &many, NULL);
	cr_assert_eq(mkdir(sub, 0700), 0);
	xt_dir = sub;
	worker("w0.xpd", 100, 20, 0, (uint64_t[]){120, 130, 121, 500}, (uint64_t[]){3, 1, 2, 1}, 4);
	xt_dir = keep;
	report_of(sub, &one, NULL);
	a = row_named(&one, "f");
	b = row_named(&many, "f");
	cr_expect_eq(a->per_eval, b->per_eval);
	cr_expect_eq(a->cost, b->cost);
	cr_expect_eq(a->fin.observed, b->fin.observed);
	cr_expect_eq(a->fin.evaluations, b->fin.evaluations);
	cr_expect_eq(a->p50, b->p50);
	cr_expect_eq(a->p99, b->p99);
	cr_expect_eq(one.run_total, many.run_total);
	xp_report_free(&one);
	xp_report_free(&many);
	free(sub);
}

/* ---- negative: deltas the shim found below zero and recorded as 0 ---- */

/* One worker of process @pid: @n evaluations at 40, @negative of them below zero. */
static void negative_worker(const char *name, uint64_t pid, uint32_t w, uint64_t negative)
{
	char *path = xt_path(xt_dir, name);
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, 0, pid, pid * 1000);
	xt_create(&m, path, &meta, &f_decl, 1, w);
	xt_record(&m, 0, 40, 10);
	m.decls[0].negative = negative;
	xt_finish(&m, true);
	free(path);
}

Test(merge, negative_adds_up_over_workers_and_processes_and_is_flagged)
{
	const char *argv[] = {"extprof", "report", "--format", "json", xt_dir, NULL};
	char *out = NULL, *err = NULL;
	struct xp_report r;
	const struct xp_row *f;

	negative_worker("a0.xpd", 100, 0, 3);
	negative_worker("a1.xpd", 100, 1, 4);
	negative_worker("b0.xpd", 200, 0, 5);
	report_of(xt_dir, &r, NULL);
	f = row_named(&r, "f");
	cr_expect_eq(f->fin.negative, 12);
	cr_expect_eq(f->fin.evaluations, 30);
	cr_expect(f->flags & F(NEGATIVE), "flags 0x%x", f->flags);
	xp_report_free(&r);
	cr_assert_eq(xt_run(argv, NULL, &out, &err), 0, "%s", err);
	cr_expect_not_null(strstr(out, "\"negative\": 12"), "%s", out);
	free(out);
	free(err);
}

Test(merge, no_negative_no_flag)
{
	struct xp_report r;

	negative_worker("a0.xpd", 100, 0, 0);
	report_of(xt_dir, &r, NULL);
	cr_expect_eq(row_named(&r, "f")->fin.negative, 0);
	cr_expect(!(row_named(&r, "f")->flags & F(NEGATIVE)));
	xp_report_free(&r);
}

/* ---- histogram_lost: deltas in no histogram (a live dump that could not grow) ---- */

/*
 * One worker of process @pid: 10 evaluations at 40, whose row was in
 * memory (@lost) and is not in this live dump, or in it.
 */
static void lost_worker(const char *name, uint64_t pid, uint32_t w, bool lost)
{
	char *path = xt_path(xt_dir, name);
	struct extprof_dump_section *sec;
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, 0, pid, pid * 1000);
	xt_create(&m, path, &meta, &f_decl, 1, w);
	xt_record(&m, 0, 40, 10);
	sec = (struct extprof_dump_section *)(m.hdr + 1);
	for (uint32_t i = 0; lost && i < m.hdr->nsections; i++)
		if (sec[i].type == EXTPROF_SECTION_HIST_ROWS)
			sec[i].count = 1; /* row 1 is not in the file */
	if (lost)
		m.decls[0].flags |= EXTPROF_DECL_F_HIST_MEMORY;
	m.hdr->flags |= EXTPROF_DUMP_F_COMPLETE;
	xt_finish(&m, false);
	free(path);
}

Test(merge, histogram_lost_adds_up_over_workers_and_processes_and_is_flagged)
{
	struct xp_report r;
	const struct xp_row *f;

	lost_worker("a0.xpd", 100, 0, true);
	lost_worker("a1.xpd", 100, 1, false);
	lost_worker("b0.xpd", 200, 0, true);
	report_of(xt_dir, &r, NULL);
	f = row_named(&r, "f");
	cr_expect_eq(f->fin.hist_lost, 20);
	cr_expect_eq(f->fin.evaluations, 30);
	cr_expect(f->flags & F(HIST_LOST), "flags 0x%x", f->flags);
	/* the 10 deltas kept are all 40, calibration 0 */
	cr_expect_eq(f->p50, 40);
	xp_report_free(&r);
}

Test(merge, no_histogram_lost_no_flag)
{
	struct xp_report r;

	lost_worker("a0.xpd", 100, 0, false);
	report_of(xt_dir, &r, NULL);
	cr_expect_eq(row_named(&r, "f")->fin.hist_lost, 0);
	cr_expect(!(row_named(&r, "f")->flags & F(HIST_LOST)));
	xp_report_free(&r);
}

/* ---- the floor refined below the counter's step (docs/floors.md) ---- */

/*
 * A counter that moves 26 at a time reads a call of true cost 61.1 as 52
 * (65 times in 100) or 78 (35 times): the floor is 52, the mean of the
 * deltas from 52 to 52 + 26 is 61.1.  Deltas further up are load, left out.
 */
static void stepped_worker(const char *counter, uint64_t cal, uint64_t step, uint64_t at)
{
	char *path = xt_path(xt_dir, "w0.xpd");
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, counter, cal, 100, 100000);
	meta.resolution = step;
	xt_create(&m, path, &meta, &f_decl, 1, 0);
	xt_record(&m, 0, at, 65);
	xt_record(&m, 0, at + 26, 35);
	xt_record(&m, 0, at + 500, 10);
	xt_finish(&m, true);
	free(path);
}

/* The per-eval of f in the dump stepped_worker made, its floor at 52. */
static uint64_t stepped_per_eval(const char *counter, uint64_t step)
{
	struct xp_report r;
	uint64_t per_eval;

	stepped_worker(counter, 50, step, 52);
	report_of(xt_dir, &r, NULL);
	per_eval = row_named(&r, "f")->per_eval;
	xp_report_free(&r);
	return per_eval;
}

Test(merge, a_stepped_counters_floor_is_refined_within_one_step)
{
	/* round(52 + 26 x 35 / 100) - 50 */
	cr_expect_eq(stepped_per_eval("tsc", 26), 11);
}

Test(merge, a_deterministic_counters_floor_is_left_as_it_is)
{
	cr_expect_eq(stepped_per_eval("var:steps", 26), 2);
}

Test(merge, a_step_of_one_changes_nothing)
{
	cr_expect_eq(stepped_per_eval("tsc", 1), 2);
}

/*
 * Above 128 a bucket is wider than one value: the floor's own bucket
 * ([1008, 1015]) counts at the floor, the next step's ([1024, 1039]) at its
 * midpoint, 1031: round(1010 + 21 x 35 / 100) - 50.
 */
Test(merge, a_stepped_floor_above_128_counts_its_own_bucket_at_the_floor)
{
	struct xp_report r;

	stepped_worker("tsc", 50, 26, 1010);
	report_of(xt_dir, &r, NULL);
	cr_expect_eq(row_named(&r, "f")->per_eval, 967);
	xp_report_free(&r);
}
