// SPDX-License-Identifier: MIT
/*
 * Callers (EXTPROF_CALLERS): chains merged across workers and processes by
 * their names (raw addresses in live dumps), with the declarations'
 * algebra, finalized with each process's calibration; shown by report
 * --callers and in the JSON; and exact per-chain figures from the real
 * shim on the test target.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "model/load.h"
#include "report/report.h"
#include "xt_json.h"

TestSuite(callers, .init = xt_dir_init, .fini = xt_dir_fini, .timeout = 60);

/* What the shim's resolver would say of the test's addresses. */
static int resolve(uint64_t pc, char *buf, size_t len, uint64_t *off)
{
	static const char *const names[] = {"from_a+0x10@prog", "from_b+0x20@prog",
					    "main+0x30@prog"};

	if (pc < 0x1000 || pc > 0x3000 || pc % 0x1000)
		return -1;
	snprintf(buf, len, "%s", names[pc / 0x1000 - 1]);
	*off = pc / 0x100;
	return 0;
}

static const struct dump_decl_info pred_decl = {"guard", "pred", "prog", 0x500};

struct chain_spec {
	uint32_t depth;
	uint64_t pc[2];
	uint64_t evaluations, floor, hits, sum;
};

/* A worker of pred with these chains in its first slots (3 slots, 2 deep). */
static void worker(const char *name, uint64_t pid, uint64_t cal, uint32_t w,
		   const struct chain_spec *c, int n, bool compact)
{
	char *path = xt_path(xt_dir, name);
	struct dump_meta meta;
	struct dump_map m;

	xt_meta(&meta, NULL, cal, pid, pid * 7);
	meta.caller_slots = 3;
	meta.callers_depth = 2;
	xt_create(&m, path, &meta, &pred_decl, 1, w);
	for (int i = 0; i < n; i++) {
		struct extprof_dump_caller *x = &m.callers[c[i].depth ? i : 2];

		x->depth = c[i].depth;
		x->pc[0] = c[i].pc[0];
		x->pc[1] = c[i].pc[1];
		x->evaluations = c[i].evaluations;
		x->floor = c[i].floor;
		x->floor_hits = c[i].hits;
		x->sum = c[i].sum;
		/* the declaration's own figures: every chain's evaluations */
		xt_record(&m, 0, c[i].floor, c[i].evaluations);
	}
	if (compact)
		cr_assert_eq(dump_write_compact_named(&m, EXTPROF_DUMP_F_COMPLETE, resolve), 0);
	dump_unmap(&m);
	free(path);
}

static void report_of(struct xp_report *r, enum xp_stat stat)
{
	struct xp_report_opts o;
	struct xp_err e = {""};
	struct xp_load l;

	xp_report_opts_init(&o);
	o.stat = stat;
	xp_load_init(&l, false);
	cr_assert_eq(xp_load_arg(&l, xt_dir, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_report_build(r, &l.set, &o, l.skipped, &e), 0, "%s", e.msg);
	xp_load_free(&l);
}

/* The chain whose first frame is @first ("" for "other"). */
static const struct xp_chain *chain(const struct xp_report *r, const char *first)
{
	cr_assert_eq(r->nrows, 1);
	for (size_t i = 0; i < r->rows[0].nchains; i++) {
		const struct xp_chain *c = r->rows[0].chains[i];

		if (!strcmp(c->depth ? c->key : "", first))
			return c;
	}
	cr_assert_fail("no chain %s", first);
	return NULL;
}

static void expect_chain(const struct xp_chain *c, uint64_t evals, uint64_t per_eval,
			 uint64_t observed, uint64_t hits)
{
	cr_expect_eq(c->evaluations, evals, "%s: evaluations %lu", c->key, c->evaluations);
	cr_expect_eq(c->per_eval, per_eval, "%s: per_eval %lu", c->key, c->per_eval);
	cr_expect_eq(c->cost, per_eval * evals);
	cr_expect_eq(c->sum, observed, "%s: observed %lu", c->key, c->sum);
	cr_expect_eq(c->hits, hits, "%s: hits %lu", c->key, c->hits);
	cr_expect_eq(c->settled, hits >= 2);
}

/*
 * Two workers hold the same chains in different slots.  Merged by name:
 * from_a (floors 105 and 105, hits added), from_b (floors 130 and 125: the
 * lower one's hits), "other"; calibration 5 subtracted once.
 */
Test(callers, chains_of_workers_merge_by_name)
{
	const struct chain_spec w0[] = {
		{2, {0x1000, 0x3000}, 10, 105, 3, 1100},
		{1, {0x2000}, 5, 130, 2, 700},
		{0, {0}, 2, 200, 1, 500},
	};
	const struct chain_spec w1[] = {
		{1, {0x2000}, 5, 125, 1, 650},
		{2, {0x1000, 0x3000}, 4, 105, 2, 440},
	};
	const struct xp_chain *a;
	struct xp_report r;

	worker("w0.xpd", 10, 5, 0, w0, 3, true);
	worker("w1.xpd", 10, 5, 1, w1, 2, true);
	report_of(&r, XP_STAT_MIN);
	cr_assert_eq(r.callers_depth, 2);
	cr_assert_eq(r.rows[0].nchains, 3);
	a = chain(&r, "from_a+0x10@prog");
	cr_expect_eq(a->depth, 2);
	cr_expect_str_eq(xp_chain_next(a, a->key), "main+0x30@prog");
	cr_expect_null(xp_chain_next(a, xp_chain_next(a, a->key)));
	expect_chain(a, 14, 100, 1540 - 5 * 14, 5);
	expect_chain(chain(&r, "from_b+0x20@prog"), 10, 120, 1350 - 50, 1);
	expect_chain(chain(&r, ""), 2, 195, 490, 1);
	/* most expensive first (1400 > 1200), "other" last */
	cr_expect_eq(r.rows[0].chains[0], a);
	cr_expect_eq(r.rows[0].chains[2]->depth, 0);
	xp_report_free(&r);
}

/*
 * Across processes each is finalized with its own calibration first: the
 * chain's per-eval is the least of 105-5 and 110-30, its evaluations and
 * observed add.
 */
Test(callers, chains_across_processes_use_each_calibration)
{
	const struct chain_spec p1[] = {{1, {0x1000}, 6, 105, 2, 700}};
	const struct chain_spec p2[] = {{1, {0x1000}, 3, 110, 3, 400}};
	struct xp_report r;

	worker("p1.xpd", 1, 5, 0, p1, 1, true);
	worker("p2.xpd", 2, 30, 0, p2, 1, true);
	report_of(&r, XP_STAT_MIN);
	expect_chain(chain(&r, "from_a+0x10@prog"), 9, 80, (700 - 30) + (400 - 90), 3);
	xp_report_free(&r);
}

/* A live dump names no frame: its chains are keyed by their raw addresses. */
Test(callers, live_dumps_key_chains_by_address)
{
	const struct chain_spec c[] = {{2, {0x7f0000001234, 0x7f0000005678}, 4, 50, 2, 220}};
	const struct xp_chain *x;
	struct xp_report r;

	worker("w0.xpd", 3, 0, 0, c, 1, false);
	worker("w1.xpd", 3, 0, 1, c, 1, false);
	report_of(&r, XP_STAT_MIN);
	x = chain(&r, "0x7f0000001234");
	cr_expect_str_eq(xp_chain_next(x, x->key), "0x7f0000005678");
	expect_chain(x, 8, 50, 440, 4);
	xp_report_free(&r);
}

Test(callers, stat_mean_gives_each_chain_its_mean)
{
	const struct chain_spec c[] = {{1, {0x1000}, 4, 100, 1, 4 * 100 + 30}};
	struct xp_report r;

	worker("w0.xpd", 4, 10, 0, c, 1, true);
	report_of(&r, XP_STAT_MEAN);
	/* observed 430 - 40 = 390 over 4: 97.5, rounded half up */
	expect_chain(chain(&r, "from_a+0x10@prog"), 4, 98, 390, 1);
	xp_report_free(&r);
}

static int run(const char *const *argv, char **out, char **err)
{
	int status = xt_run(argv, NULL, out, err);

	cr_assert(WIFEXITED(status), "extprof died: status %d", status);
	return WEXITSTATUS(status);
}

Test(callers, report_callers_text_and_json)
{
	const struct chain_spec c[] = {
		{2, {0x1000, 0x3000}, 10, 105, 3, 1100},
		{0, {0}, 2, 200, 1, 500},
	};
	json_t *root, *ch, *first;
	char *out, *err;

	worker("w0.xpd", 10, 5, 0, c, 2, true);
	cr_assert_eq(run((const char *[]){"x", "report", "--callers", xt_dir, NULL}, &out, &err), 0,
		     "%s", err);
	cr_expect_not_null(strstr(out,
				  "callers      up to 2 frames deep: each declaration's chains "
				  "under it\n"),
			   "%s", out);
	cr_expect_not_null(strstr(out, "\n    <- from_a+0x10@prog <- main+0x30@prog   evaluations "
				       "10  per-eval 100  cost 1,000  observed 1,050\n"
				       "    <- (other callers)   evaluations 2  per-eval 195  cost "
				       "390  observed 490  unsettled\n"),
			   "%s", out);
	free(out);
	free(err);
	/* without --callers the chains are said to exist, not shown */
	cr_assert_eq(run((const char *[]){"x", "report", xt_dir, NULL}, &out, &err), 0, "%s", err);
	cr_expect_not_null(strstr(out, "recorded; --callers shows them"), "%s", out);
	cr_expect_null(strstr(out, "<- from_a"), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", xt_dir, NULL}, &out, &err),
		0, "%s", err);
	root = xt_json_parse(out);
	cr_expect_eq(xt_json_int(root, "callers_depth"), 2);
	ch = json_object_get(xt_json_decl(root, "pred"), "callers");
	cr_assert(json_is_array(ch) && json_array_size(ch) == 2, "%s", out);
	first = json_array_get(ch, 0);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(first, "chain"), 1)),
			 "main+0x30@prog");
	cr_expect_eq(xt_json_int(first, "evaluations"), 10);
	cr_expect_eq(xt_json_int(first, "per_eval"), 100);
	cr_expect_eq(xt_json_int(first, "cost"), 1000);
	cr_expect_eq(xt_json_int(first, "observed"), 1050);
	cr_expect(json_is_true(json_object_get(first, "settled")));
	cr_expect_eq(json_array_size(json_object_get(json_array_get(ch, 1), "chain")), 0);
	json_decref(root);
	free(out);
	free(err);
}

Test(callers, no_callers_key_without_callers)
{
	char *path = xt_path(xt_dir, "s.xpd"), *out, *err;

	xt_sample_dump(path, 5, 2);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", "--callers", xt_dir, NULL},
		    &out, &err),
		0, "%s", err);
	cr_expect_null(strstr(out, "\"callers\":"), "%s", out);
	cr_expect_not_null(strstr(out, "\"callers_depth\": 0"), "%s", out);
	free(out);
	free(err);
	free(path);
}

/* ---- the real shim on the test target (tests/unit/target.c) ---- */

/* The chain of @d whose first frame starts with @fn+0x and ends with @target. */
static json_t *real_chain(json_t *d, const char *fn, size_t depth)
{
	json_t *ch = json_object_get(d, "callers"), *c;
	size_t i;

	cr_assert(json_is_array(ch));
	json_array_foreach(ch, i, c)
	{
		json_t *frames = json_object_get(c, "chain");
		const char *f0 = json_string_value(json_array_get(frames, 0));

		if (f0 && !strncmp(f0, fn, strlen(fn)) && !strncmp(f0 + strlen(fn), "+0x", 3)) {
			cr_expect_eq(json_array_size(frames), depth, "%s", f0);
			cr_expect_not_null(strstr(f0, "@target"), "%s", f0);
			return c;
		}
	}
	cr_assert_fail("no chain from %s", fn);
	return NULL;
}

static void expect_real(json_t *root, size_t depth)
{
	json_t *pred = xt_json_decl(root, "pred"), *a, *b;

	cr_expect_eq(xt_json_int(pred, "evaluations"), 30);
	cr_expect_eq(xt_json_int(root, "callers_depth"), (long long)depth);
	/* from_a calls pred(10) 10 times, from_b pred(30) 20 times */
	a = real_chain(pred, "from_a", depth);
	b = real_chain(pred, "from_b", depth);
	cr_expect_eq(xt_json_int(a, "evaluations"), 10);
	cr_expect_eq(xt_json_int(a, "per_eval"), 10);
	cr_expect_eq(xt_json_int(a, "observed"), 100);
	cr_expect_eq(xt_json_int(b, "evaluations"), 20);
	cr_expect_eq(xt_json_int(b, "per_eval"), 30);
	cr_expect_eq(xt_json_int(b, "cost"), 600);
	cr_expect(json_is_true(json_object_get(b, "settled")));
	if (depth > 1) {
		const char *f1 = json_string_value(json_array_get(json_object_get(a, "chain"), 1));

		cr_expect(f1 && !strncmp(f1, "main+0x", 7), "%s", f1);
	}
}

/* EXTPROF_CALLERS=1 set by hand, the target run directly under the shim. */
Test(callers, real_shim_one_frame)
{
	const char *shim = xt_real_shim();
	char *data = xt_path(xt_dir, "data"), *out, *err;
	char *preload, *env_dir;
	pid_t pid;
	int status;

	if (!shim)
		cr_skip_test("sanitized build: the shim cannot be preloaded");
	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", shim) > 0);
	cr_assert(asprintf(&env_dir, "EXTPROF_DIR=%s", data) > 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char *const env[] = {preload,
				     env_dir,
				     "EXTPROF_HOOKS=function:pred",
				     "EXTPROF_COUNTER=var:xt_work",
				     "EXTPROF_CALLERS=1",
				     "EXTPROF_LOG=off",
				     NULL};
		int null = open("/dev/null", 1);

		dup2(null, 1);
		execle(xt_target(false), "target", "10", NULL, env);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "target: status %d", status);
	cr_assert_eq(
		run((const char *[]){"x", "report", "--format", "json", data, NULL}, &out, &err), 0,
		"%s", err);
	expect_real(xt_json_parse(out), 1);
	free(out);
	free(err);
	cr_assert_eq(run((const char *[]){"x", "report", "--callers", data, NULL}, &out, &err), 0,
		     "%s", err);
	cr_expect_not_null(strstr(out, "    <- from_b+0x"), "%s", out);
	cr_expect_not_null(strstr(out, "evaluations 20  per-eval 30  cost 600  observed 600\n"),
			   "%s", out);
	free(out);
	free(err);
	free(preload);
	free(env_dir);
	free(data);
}

/* EXTPROF_CALLERS=2 through extprof run --callers 2, which shows the chains. */
Test(callers, real_shim_two_frames_through_run)
{
	const char *shim = xt_real_shim();
	char *data = xt_path(xt_dir, "data"), *shim_env, *out, *err;
	json_t *root;
	int status;

	if (!shim)
		cr_skip_test("sanitized build: the shim cannot be preloaded");
	cr_assert(asprintf(&shim_env, "EXTPROF_SHIM=%s", shim) > 0);
	status = xt_run((const char *[]){"x", "run", "-o", data, "--callers", "2", "--counter",
					 "var:xt_work", "-H", "function:pred", "--format", "json",
					 "--", xt_target(false), "10", NULL},
			(const char *[]){shim_env, "EXTPROF_LOG=off", NULL}, &out, &err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status, err);
	cr_assert_str_eq(out, "target 10\n");
	root = xt_json_parse(strstr(err, "{"));
	expect_real(root, 2);
	json_decref(root);
	free(out);
	free(err);
	free(shim_env);
	free(data);
}

/*
 * Twenty chains, seen once each, fill the slots before from_a's and
 * from_b's: those two, the heaviest, are kept (the lightest given up to
 * "other" as they come), not left in "other" as the first chains seen.
 */
Test(callers, real_shim_keeps_the_heaviest_chains)
{
	const char *shim = xt_real_shim();
	char *data = xt_path(xt_dir, "data"), *shim_env, *out, *err;
	json_t *root, *pred, *other = NULL, *c;
	long long chains = 0, sum = 0;
	int status;
	size_t i;

	if (!shim)
		cr_skip_test("sanitized build: the shim cannot be preloaded");
	cr_assert(asprintf(&shim_env, "EXTPROF_SHIM=%s", shim) > 0);
	status = xt_run((const char *[]){"x", "run", "-o", data, "--callers", "1", "--counter",
					 "var:xt_work", "-H", "function:pred", "--format", "json",
					 "--", xt_target(false), "10", "0", "cold", NULL},
			(const char *[]){shim_env, "EXTPROF_LOG=off", NULL}, &out, &err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status, err);
	root = xt_json_parse(strstr(err, "{"));
	pred = xt_json_decl(root, "pred");
	cr_expect_eq(xt_json_int(pred, "evaluations"), 50);
	cr_expect_eq(xt_json_int(real_chain(pred, "from_a", 1), "evaluations"), 10);
	cr_expect_eq(xt_json_int(real_chain(pred, "from_a", 1), "per_eval"), 10);
	cr_expect_eq(xt_json_int(real_chain(pred, "from_b", 1), "evaluations"), 20);
	cr_expect_eq(xt_json_int(real_chain(pred, "from_b", 1), "cost"), 600);
	json_array_foreach(json_object_get(pred, "callers"), i, c)
	{
		sum += xt_json_int(c, "evaluations");
		if (json_array_size(json_object_get(c, "chain")))
			chains++;
		else
			other = c;
	}
	/* 15 slots and "other": 13 cold chains kept, the 7 given up in "other" */
	cr_expect_eq(chains, 15);
	cr_assert_not_null(other);
	cr_expect_eq(xt_json_int(other, "evaluations"), 7);
	cr_expect_eq(sum, 50, "every evaluation is in some chain");
	json_decref(root);
	free(out);
	free(err);
	free(shim_env);
	free(data);
}
