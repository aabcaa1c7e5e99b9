// SPDX-License-Identifier: MIT
/*
 * report_rows: each process finalized with its own calibration, then its
 * declarations matched across processes by (kind, symbol, object basename)
 * and combined; then the figures a row shows, its flags, and the order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "util/num.h"
#include "util/path.h"
#include "report/report.h"

const char *const xp_flag_names[XP_NFLAGS] = {
	[XP_FLAG_STATE_DEPENDENT] = "state-dependent",
	[XP_FLAG_UNSETTLED] = "unsettled",
	[XP_FLAG_BELOW_RESOLUTION] = "below-resolution",
	[XP_FLAG_TOO_CHEAP] = "too-cheap",
	[XP_FLAG_RECURSIVE] = "recursive",
	[XP_FLAG_ABANDONED] = "abandoned",
	[XP_FLAG_NEGATIVE] = "negative",
	[XP_FLAG_UNSTEPPED] = "unstepped",
	[XP_FLAG_HIST_LOST] = "histogram-lost",
	[XP_FLAG_NOT_WHOLE] = "not-whole",
};

static void row_free(struct xp_row *row)
{
	free(row->kind);
	free(row->symbol);
	free(row->object);
	free(row->exe);
	free(row->hkey);
	free(row->chains);
	xp_fin_free(&row->fin);
}

static struct xp_row *row_new(const struct xp_pdecl *x, const char *exe, char *hkey)
{
	struct xp_row *row = calloc(1, sizeof(*row));

	if (!row)
		return NULL;
	row->hkey = hkey;
	row->kind = strdup(x->kind);
	row->symbol = strdup(x->symbol);
	row->object = strdup(xp_base_name(x->object));
	row->exe = exe ? strdup(xp_base_name(exe)) : NULL;
	if (row->kind && row->symbol && row->object && (!exe || row->exe))
		return row;
	row_free(row);
	free(row);
	return NULL;
}

ssize_t xp_decl_key(char *buf, size_t size, char **key, const char *kind, const char *symbol,
		    const char *object, const char *exe)
{
	const char *obj = xp_base_name(object);
	size_t k = strlen(kind), s = strlen(symbol), o = strlen(obj), n = k + s + o + 2;
	size_t e = exe ? strlen(exe) + 1 : 0;
	char *p = n + e < size ? buf : malloc(n + e + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p, kind, k);
	p[k] = 0x1f;
	memcpy(p + k + 1, symbol, s);
	p[k + 1 + s] = 0x1f;
	memcpy(p + k + s + 2, obj, o + 1);
	if (exe) {
		p[n] = 0x1f;
		memcpy(p + n + 1, exe, e);
	}
	*key = p;
	return (ssize_t)(n + e);
}

/* Finalize one declaration of one process and fold it into its row. */
static int rows_fold(struct xp_row **hash, const struct xp_pdecl *x,
		     const struct extprof_dump_header *h, const char *exe)
{
	char buf[1024], *hkey;
	struct xp_row *row;
	ssize_t n = xp_decl_key(buf, sizeof(buf), &hkey, x->kind, x->symbol, x->object, exe);

	if (n < 0)
		return (int)n;
	HASH_FIND(hh, *hash, hkey, (size_t)n, row);
	if (!row) {
		if (hkey == buf && !(hkey = strdup(buf)))
			return -ENOMEM;
		row = row_new(x, exe, hkey); /* takes @hkey, also when it fails */
		if (!row)
			return -ENOMEM;
		hkey = buf;				/* now the row's */
		row->fin = (struct xp_fin)XP_FIN_EMPTY; /* what a row starts from */
		HASH_ADD_KEYPTR(hh, *hash, row->hkey, (size_t)n, row);
	}
	if (hkey != buf)
		free(hkey);
	return xp_finalize_add(&row->fin, &x->acc, h->calibration, h->counter);
}

static uint64_t row_per_eval(const struct xp_row *row, enum xp_stat stat)
{
	const struct xp_fin *f = &row->fin;

	if (!f->evaluations)
		return 0;
	switch (stat) {
	case XP_STAT_MEDIAN:
		return xp_fin_percentile(f, 50);
	case XP_STAT_MEAN:
		return xp_div_round(f->observed, f->evaluations);
	case XP_STAT_MIN:
	default:
		return f->floor == EXTPROF_FLOOR_NONE ? 0 : f->floor;
	}
}

unsigned xp_row_flags(const struct xp_row *row, const struct xp_report *r)
{
	const struct xp_fin *f = &row->fin;
	bool unknown = f->floor == EXTPROF_FLOOR_NONE; /* a live dump's race */
	unsigned flags = 0;

	if (xp_row_state_dependent(row, r))
		flags |= 1u << XP_FLAG_STATE_DEPENDENT;
	/* steps, translated: some evaluations ran in part natively, without a delta */
	if (r->translated && f->evaluations > f->samples)
		flags |= 1u << XP_FLAG_NOT_WHOLE;
	/* steps: none of its evaluations was stepped (or counted whole): no figure at all */
	if ((r->sampled || r->translated) && f->evaluations && !f->samples)
		return flags | (r->sampled ? 1u << XP_FLAG_UNSTEPPED : 0) |
		       (f->recursive ? 1u << XP_FLAG_RECURSIVE : 0) |
		       (f->abandoned ? 1u << XP_FLAG_ABANDONED : 0) |
		       (f->hist_lost ? 1u << XP_FLAG_HIST_LOST : 0);
	/* "may be high" says nothing of a per-eval of 0: that is too-cheap alone */
	if (f->evaluations && !row->settled && (row->per_eval || unknown))
		flags |= 1u << XP_FLAG_UNSETTLED;
	if (row->per_eval && row->per_eval < r->step)
		flags |= 1u << XP_FLAG_BELOW_RESOLUTION;
	if (!row->per_eval && f->evaluations && !unknown)
		flags |= 1u << XP_FLAG_TOO_CHEAP;
	if (f->recursive)
		flags |= 1u << XP_FLAG_RECURSIVE;
	if (f->abandoned)
		flags |= 1u << XP_FLAG_ABANDONED;
	if (f->negative)
		flags |= 1u << XP_FLAG_NEGATIVE;
	if (f->hist_lost)
		flags |= 1u << XP_FLAG_HIST_LOST;
	return flags;
}

uint64_t xp_row_weight(const struct xp_row *row)
{
	return row->flags & (1u << XP_FLAG_STATE_DEPENDENT) ? row->fin.observed : row->cost;
}

int xp_row_figures(struct xp_row *row, const struct xp_report *r)
{
	const struct xp_fin *f = &row->fin;

	row->per_eval = row_per_eval(row, r->opts.stat);
	row->cost = xp_sat_mul(row->per_eval, f->evaluations);
	row->p50 = f->evaluations ? xp_fin_percentile(f, 50) : 0;
	row->p99 = f->evaluations ? xp_fin_percentile(f, 99) : 0;
	row->share = r->run_total ? (double)row->cost / (double)r->run_total : 0.0;
	row->observed_share = r->run_total ? (double)f->observed / (double)r->run_total : 0.0;
	row->trimmed = xp_fin_trimmed(f, r->deterministic, r->step);
	row->runs = 1;
	row->per_eval_lo = row->per_eval_hi = row->per_eval;
	row->evaluations_lo = row->evaluations_hi = f->evaluations;
	row->settled = f->hits >= 2;
	row->slack = xp_row_slack(row);
	row->flags = xp_row_flags(row, r);
	free(row->chains);
	row->chains = NULL;
	row->nchains = 0;
	return xp_chains_sorted(&f->chains, r->opts.stat == XP_STAT_MEAN, &row->chains,
				&row->nchains);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int cmp_name(const struct xp_row *a, const struct xp_row *b)
{
	int c = strcmp(a->symbol, b->symbol);

	if (!c)
		c = strcmp(a->object, b->object);
	if (!c)
		c = strcmp(a->kind, b->kind);
	if (!c && a->exe && b->exe)
		c = strcmp(a->exe, b->exe);
	return c;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct xp_row *a = pa, *b = pb;
	enum xp_sort sort = *(const enum xp_sort *)arg;
	int c = 0;

	if (sort == XP_SORT_EVALUATIONS)
		c = cmp_u64_desc(a->fin.evaluations, b->fin.evaluations);
	else if (sort == XP_SORT_PER_EVAL)
		c = cmp_u64_desc(a->per_eval, b->per_eval);
	else if (sort == XP_SORT_OBSERVED)
		c = cmp_u64_desc(a->fin.observed, b->fin.observed);
	else if (sort == XP_SORT_WEIGHT)
		c = cmp_u64_desc(xp_row_weight(a), xp_row_weight(b));
	if (!c && sort != XP_SORT_NAME)
		c = cmp_u64_desc(a->cost, b->cost);
	if (!c && sort != XP_SORT_NAME)
		c = cmp_u64_desc(a->fin.evaluations, b->fin.evaluations);
	return c ? c : cmp_name(a, b);
}

/* Move the matched rows out of the hash into a sorted array. */
static int rows_settle(struct xp_report *r, struct xp_row **hash)
{
	struct xp_row *row, *tmp;
	size_t n = HASH_COUNT(*hash);
	int err = 0;

	r->rows = calloc(n + 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	HASH_ITER(hh, *hash, row, tmp)
	{
		HASH_DEL(*hash, row);
		r->rows[r->nrows] = *row;
		memset(&r->rows[r->nrows].hh, 0, sizeof(r->rows[r->nrows].hh));
		free(row);
		if (!err)
			err = xp_row_figures(&r->rows[r->nrows], r);
		r->nrows++;
	}
	if (err)
		return err;
	xp_report_sort(r);
	return 0;
}

void xp_report_sort(struct xp_report *r)
{
	qsort_r(r->rows, r->nrows, sizeof(*r->rows), cmp_rows, &r->opts.sort);
}

/*
 * The step of one process: its resolution, or, for a counter that is not
 * deterministic, the spacing of its deltas when that is wider.
 */
static uint64_t proc_step(const struct xp_proc *p, bool deterministic)
{
	uint64_t res = p->hdr.resolution ? p->hdr.resolution : 1, seen;
	struct xp_step st = {{0}};

	if (deterministic)
		return res;
	for (size_t j = 0; j < p->ndecls; j++)
		xp_step_add(&st, &p->decls[j].acc.hist);
	seen = xp_step_get(&st);
	return seen > res ? seen : res;
}

int xp_report_rows(struct xp_report *r, const struct xp_procset *s, struct xp_err *e)
{
	struct xp_row *hash = NULL, *row, *tmp;
	int err = 0;

	for (size_t i = 0; i < s->n && !err; i++) {
		const struct xp_proc *p = s->list[i];
		uint64_t step = proc_step(p, r->deterministic);

		if (step > r->step)
			r->step = step;
		for (size_t j = 0; j < p->ndecls && !err; j++)
			err = rows_fold(&hash, &p->decls[j], &p->hdr,
					r->by_exe ? p->hdr.exe_path : NULL);
	}
	if (!err)
		err = rows_settle(r, &hash);
	HASH_ITER(hh, hash, row, tmp)
	{
		HASH_DEL(hash, row);
		row_free(row);
		free(row);
	}
	if (err)
		return xp_err_set(e, err, "out of memory");
	return 0;
}

int xp_report_build(struct xp_report *r, const struct xp_procset *s, const struct xp_report_opts *o,
		    size_t skipped, struct xp_err *e)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->opts = *o;
	if (!s->n)
		return xp_err_set(e, -ENOENT, "no dumps to report on");
	err = xp_report_head(r, s, skipped, e);
	if (!err)
		err = xp_report_rows(r, s, e);
	if (err)
		xp_report_free(r);
	return err;
}

void xp_report_free(struct xp_report *r)
{
	for (size_t i = 0; i < r->nrows; i++)
		row_free(&r->rows[i]);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->rows);
	free(r->warnings);
	free(r->pids);
	free(r->incomplete_pids);
	for (size_t i = 0; i < r->nexes; i++)
		free(r->exes[i]);
	free(r->exes);
	memset(r, 0, sizeof(*r));
}
