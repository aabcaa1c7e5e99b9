// SPDX-License-Identifier: MIT
/*
 * report_repeat: the reports of K runs of one program (extprof run
 * --repeat) made into one.  Per declaration (and per caller chain), the
 * per-eval is the --stat of the runs' per-evals (min: the least; median;
 * mean), evaluations, observed, the tallies and the percentiles are the
 * median of the runs' (the mean of the two middle ones, rounded, for an
 * even K), and cost = per-eval x evaluations; so are the nesting's figures.  A declaration is
 * settled when it was in every run that had it.  The header adds up processes, workers and threads;
 * the run total is the median of the runs'.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "util/vec.h"
#include "report/report.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The median of @n values (sorted in place); 0 for none. */
static uint64_t median(uint64_t *v, size_t n)
{
	unsigned __int128 two;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	if (n % 2)
		return v[n / 2];
	two = (unsigned __int128)v[n / 2 - 1] + v[n / 2];
	return (uint64_t)((two + 1) / 2);
}

/* --stat over @n values (sorted in place). */
static uint64_t stat_of(uint64_t *v, size_t n, enum xp_stat stat)
{
	unsigned __int128 sum = 0;

	if (!n)
		return 0;
	switch (stat) {
	case XP_STAT_MEDIAN:
		return median(v, n);
	case XP_STAT_MEAN:
		for (size_t i = 0; i < n; i++)
			sum += v[i];
		return (uint64_t)((sum + n / 2) / n);
	case XP_STAT_MIN:
	default:
		qsort(v, n, sizeof(*v), cmp_u64);
		return v[0];
	}
}

static uint64_t min_of(const uint64_t *v, size_t n)
{
	uint64_t m = n ? v[0] : 0;

	for (size_t i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static uint64_t max_of(const uint64_t *v, size_t n)
{
	uint64_t m = n ? v[0] : 0;

	for (size_t i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/* A declaration, or a chain, seen in some of the runs. */
struct agg {
	char *key;
	size_t keylen;
	const void **in; /* k: the run's row or chain, NULL where absent */
	UT_hash_handle hh;
};

static void agg_free(struct agg **h)
{
	struct agg *a, *tmp;

	HASH_ITER(hh, *h, a, tmp)
	{
		HASH_DEL(*h, a);
		free(a->key);
		free(a->in);
		free(a);
	}
}

static int agg_put(struct agg **h, const char *key, size_t keylen, size_t k, size_t run,
		   const void *x)
{
	struct agg *a;

	HASH_FIND(hh, *h, key, keylen, a);
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a)
			return -ENOMEM;
		a->in = calloc(k, sizeof(*a->in));
		a->key = malloc(keylen + 1);
		if (!a->in || !a->key) {
			free(a->in);
			free(a->key);
			free(a);
			return -ENOMEM;
		}
		memcpy(a->key, key, keylen);
		a->key[keylen] = '\0';
		a->keylen = keylen;
		HASH_ADD_KEYPTR(hh, *h, a->key, a->keylen, a);
	}
	a->in[run] = x;
	return 0;
}

/*
 * The uint64_t at offset @off of each run's row or chain in @a->in that is
 * there, into @v: how many.  XP_U64_AT checks that the member is one.
 */
#define XP_U64_AT(T, m) _Generic(((T *)0)->m, uint64_t : offsetof(T, m))

static size_t gather(const struct agg *a, size_t k, size_t off, uint64_t *v)
{
	size_t n = 0;

	for (size_t i = 0; i < k; i++)
		if (a->in[i])
			memcpy(&v[n++], (const char *)a->in[i] + off, sizeof(*v));
	return n;
}

#define CHAIN_AT(m) XP_U64_AT(struct xp_chain, m)

/* One chain over the runs that had it. */
static int repeat_chain(struct xp_row *row, const struct agg *a, size_t k, enum xp_stat stat,
			uint64_t *v)
{
	const struct xp_chain *any = NULL;
	struct xp_chain c = {0};
	size_t n;

	for (size_t i = 0; i < k; i++)
		if (a->in[i])
			any = a->in[i];
	c.key = a->key;
	c.keylen = a->keylen;
	c.depth = any->depth;
	n = gather(a, k, CHAIN_AT(per_eval), v);
	c.floor = stat_of(v, n, stat);
	n = gather(a, k, CHAIN_AT(evaluations), v);
	c.evaluations = median(v, n);
	n = gather(a, k, CHAIN_AT(sum), v);
	c.sum = median(v, n);
	n = gather(a, k, CHAIN_AT(hits), v);
	c.hits = min_of(v, n);
	return xp_chains_put(&row->fin.chains, &c);
}

static int repeat_chains(struct xp_row *row, const struct xp_row **in, size_t k, enum xp_stat stat,
			 uint64_t *v)
{
	struct agg *h = NULL, *a;
	int err = 0;

	for (size_t i = 0; i < k && !err; i++)
		for (size_t j = 0; in[i] && j < in[i]->nchains && !err; j++)
			err = agg_put(&h, in[i]->chains[j]->key, in[i]->chains[j]->keylen, k, i,
				      in[i]->chains[j]);
	for (a = h; a && !err; a = a->hh.next)
		err = repeat_chain(row, a, k, stat, v);
	agg_free(&h);
	if (!err)
		/* per_eval was aggregated into floor: taken as it is */
		err = xp_chains_sorted(&row->fin.chains, false, &row->chains, &row->nchains);
	return err;
}

/* The nesting: per parent, the median of the runs' evaluations and observed inside it. */
static int repeat_parents(struct xp_row *row, const struct xp_row **in, size_t k, uint64_t *v)
{
	struct agg *h = NULL, *a;
	const struct xp_chain *c, *tmp;
	int err = 0;

	for (size_t i = 0; i < k && !err; i++)
		if (in[i])
			HASH_ITER(hh, in[i]->fin.parents, c, tmp)
			{
				if (!err)
					err = agg_put(&h, c->key, c->keylen, k, i, c);
			}
	for (a = h; a && !err; a = a->hh.next) {
		struct xp_chain p = {
			.key = a->key, .keylen = a->keylen, .floor = EXTPROF_FLOOR_NONE};
		size_t n = gather(a, k, CHAIN_AT(evaluations), v);

		p.depth = a->keylen ? 1 : 0;
		p.evaluations = median(v, n);
		n = gather(a, k, CHAIN_AT(sum), v);
		p.sum = median(v, n);
		err = xp_chains_put(&row->fin.parents, &p);
	}
	agg_free(&h);
	return err;
}

#define ROW_AT(m) XP_U64_AT(struct xp_row, m)

/* The figures of a row that are the median of the runs'. */
static const size_t row_medians[] = {
	ROW_AT(trimmed),       ROW_AT(fin.samples),   ROW_AT(fin.observed),
	ROW_AT(fin.recursive), ROW_AT(fin.abandoned), ROW_AT(fin.outside),
	ROW_AT(fin.negative),  ROW_AT(fin.hist_lost), ROW_AT(p50),
	ROW_AT(p99),	       ROW_AT(fin.inner),     ROW_AT(fin.inner_observed),
};

static int repeat_row(struct xp_report *r, struct xp_row *row, const struct agg *a, size_t k,
		      uint64_t *v)
{
	const struct xp_row *any = NULL;
	size_t n;

	for (size_t i = 0; i < k && !any; i++)
		any = a->in[i];
	row->kind = strdup(any->kind);
	row->symbol = strdup(any->symbol);
	row->object = strdup(any->object);
	row->exe = any->exe ? strdup(any->exe) : NULL;
	if (!row->kind || !row->symbol || !row->object || (any->exe && !row->exe))
		return -ENOMEM;
	n = gather(a, k, ROW_AT(per_eval), v);
	row->runs = n;
	row->per_eval_lo = min_of(v, n);
	row->per_eval_hi = max_of(v, n);
	row->per_eval = stat_of(v, n, r->opts.stat);
	n = gather(a, k, ROW_AT(fin.evaluations), v);
	row->evaluations_lo = min_of(v, n);
	row->evaluations_hi = max_of(v, n);
	row->fin.evaluations = median(v, n);
	for (size_t f = 0; f < sizeof(row_medians) / sizeof(row_medians[0]); f++) {
		uint64_t m;

		n = gather(a, k, row_medians[f], v);
		m = median(v, n);
		memcpy((char *)row + row_medians[f], &m, sizeof(m));
	}
	n = gather(a, k, ROW_AT(fin.hits), v);
	row->fin.hits = min_of(v, n);
	row->fin.floor = row->fin.evaluations ? row->per_eval : EXTPROF_FLOOR_NONE;
	row->cost = xp_sat_mul(row->per_eval, row->fin.evaluations);
	row->share = r->run_total ? (double)row->cost / (double)r->run_total : 0.0;
	row->observed_share = r->run_total ? (double)row->fin.observed / (double)r->run_total : 0.0;
	row->settled = row->fin.hits >= 2;
	row->flags = xp_row_flags(row, r);
	return repeat_parents(row, (const struct xp_row **)a->in, k, v)
		       ?: repeat_chains(row, (const struct xp_row **)a->in, k, r->opts.stat, v);
}

static int repeat_rows(struct xp_report *r, const struct xp_report *runs, size_t k)
{
	struct agg *h = NULL, *a;
	uint64_t *v = calloc(k + 1, sizeof(*v));
	int err = v ? 0 : -ENOMEM;

	for (size_t i = 0; i < k && !err; i++)
		for (size_t j = 0; j < runs[i].nrows && !err; j++) {
			const struct xp_row *x = &runs[i].rows[j];
			char *key;
			ssize_t n =
				xp_decl_key(NULL, 0, &key, x->kind, x->symbol, x->object, x->exe);

			if (n < 0) {
				err = (int)n;
				break;
			}
			err = agg_put(&h, key, (size_t)n, k, i, x);
			free(key);
		}
	if (!err) {
		r->rows = calloc(HASH_COUNT(h) + 1, sizeof(*r->rows));
		if (!r->rows)
			err = -ENOMEM;
	}
	for (a = h; a && !err; a = a->hh.next)
		err = repeat_row(r, &r->rows[r->nrows++], a, k, v);
	agg_free(&h);
	free(v);
	if (!err)
		xp_report_sort(r);
	return err;
}

static bool has_warning(const struct xp_report *r, const char *w)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i], w))
			return true;
	return false;
}

static void head_sum(struct xp_report *r, const struct xp_report *x)
{
	memcpy(r->pids + r->npids, x->pids, x->npids * sizeof(*r->pids));
	r->npids += x->npids;
	r->by_exe |= x->by_exe;
	for (size_t i = 0; i < x->nexes; i++) {
		bool seen = false;
		char **v;

		for (size_t k = 0; k < r->nexes && !seen; k++)
			seen = !strcmp(r->exes[k], x->exes[i]);
		if (seen || !(v = realloc(r->exes, (r->nexes + 1) * sizeof(*v))))
			continue;
		r->exes = v;
		if ((v[r->nexes] = strdup(x->exes[i])))
			r->nexes++;
	}
	memcpy(r->incomplete_pids + r->nincomplete, x->incomplete_pids,
	       x->nincomplete * sizeof(*r->pids));
	r->processes += x->processes;
	r->nincomplete += x->nincomplete;
	r->workers += x->workers;
	r->threads = xp_sat_add(r->threads, x->threads);
	r->lost = xp_sat_add(r->lost, x->lost);
	r->complete = r->complete && x->complete;
	r->nesting = r->nesting && x->nesting;
	r->calibration_settled = r->calibration_settled && x->calibration_settled;
	if (x->calibration < r->calibration)
		r->calibration = x->calibration;
	if (x->calibration_max > r->calibration_max)
		r->calibration_max = x->calibration_max;
	if (x->resolution > r->resolution)
		r->resolution = x->resolution;
	if (x->step > r->step)
		r->step = x->step;
	if (x->callers_depth > r->callers_depth)
		r->callers_depth = x->callers_depth;
	if (x->start_ns && (!r->start_ns || x->start_ns < r->start_ns))
		r->start_ns = x->start_ns;
	if (x->end_ns > r->end_ns)
		r->end_ns = x->end_ns;
}

static int repeat_head(struct xp_report *r, const struct xp_report *runs, size_t k,
		       struct xp_err *e)
{
	size_t procs = 0;
	uint64_t *v;

	for (size_t i = 0; i < k; i++) {
		if (strcmp(runs[i].counter_name, runs[0].counter_name) ||
		    strcmp(runs[i].counter_unit, runs[0].counter_unit))
			return xp_err_set(e, -EINVAL,
					  "run %zu counted %s (%s), run 1 %s (%s): runs measured "
					  "with different counters cannot be merged",
					  i + 1, runs[i].counter_name, runs[i].counter_unit,
					  runs[0].counter_name, runs[0].counter_unit);
		procs += runs[i].processes;
	}
	r->pids = calloc(procs + 1, sizeof(*r->pids));
	r->incomplete_pids = calloc(procs + 1, sizeof(*r->pids));
	v = calloc(k + 1, sizeof(*v));
	if (!r->pids || !r->incomplete_pids || !v) {
		free(v);
		return xp_err_set(e, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < k; i++) {
		head_sum(r, &runs[i]);
		v[i] = runs[i].run_total;
	}
	r->run_total = median(v, k);
	free(v);
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < runs[i].nwarnings; j++)
			if (!has_warning(r, runs[i].warnings[j]) &&
			    xp_strv_appendf(&r->warnings, &r->nwarnings, "%s", runs[i].warnings[j]))
				return xp_err_set(e, -ENOMEM, "out of memory");
	return 0;
}

int xp_report_repeat(struct xp_report *r, const struct xp_report *runs, size_t k, unsigned warmup,
		     struct xp_err *e)
{
	const struct xp_report *x = &runs[0];
	int err;

	memset(r, 0, sizeof(*r));
	if (!k)
		return xp_err_set(e, -ENOENT, "no runs to report on");
	r->opts = x->opts;
	r->counted = x->counted;
	r->program = x->program;
	/* the least and the most of the runs', from the first's (head_sum) */
	r->calibration = x->calibration;
	r->calibration_max = x->calibration_max;
	r->calibration_settled = true;
	r->complete = true;
	r->nesting = true;
	r->runs = k;
	r->warmup = warmup;
	err = repeat_head(r, runs, k, e);
	if (!err && repeat_rows(r, runs, k))
		err = xp_err_set(e, -ENOMEM, "out of memory");
	if (err)
		xp_report_free(r);
	return err;
}
