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
	[XP_FLAG_IMBALANCE] = "imbalance",
	[XP_FLAG_NOT_WHOLE] = "not-whole",
};

void xp_row_free(struct xp_row *row)
{
	free(row->kind);
	free(row->symbol);
	free(row->object);
	free(row->exe);
	free(row->cpu);
	free(row->group);
	free(row->hkey);
	free(row->chains);
	xp_fin_free(&row->fin);
	xp_spread_free(&row->spread);
}

static char *strdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A row of @x, its partition (@exe, @cpu, @group, each NULL or kept), keyed by @hkey (taken). */
static struct xp_row *row_new(const char *kind, const char *symbol, const char *object,
			      const char *exe, const char *cpu, const char *group, char *hkey)
{
	struct xp_row *row = calloc(1, sizeof(*row));

	if (!row) {
		free(hkey);
		return NULL;
	}
	row->hkey = hkey;
	row->kind = strdup(kind);
	row->symbol = strdup(symbol);
	row->object = strdup(xp_base_name(object));
	row->exe = strdup_or_null(exe);
	row->cpu = strdup_or_null(cpu);
	row->group = strdup_or_null(group);
	row->fin = (struct xp_fin)XP_FIN_EMPTY; /* what a row starts from */
	row->group_at = -1;
	if (row->hkey && row->kind && row->symbol && row->object && (!exe || row->exe) &&
	    (!cpu || row->cpu) && (!group || row->group))
		return row;
	xp_row_free(row);
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

/*
 * The row of @hash keyed by the declaration and @part, made when new (its
 * partition @exe, @cpu, @group), into *@out.  0 or -ENOMEM.
 */
static int row_find(struct xp_row **hash, const char *kind, const char *symbol, const char *object,
		    const char *part, const char *exe, const char *cpu, const char *group,
		    struct xp_row **out)
{
	char buf[1024], *hkey;
	ssize_t n = xp_decl_key(buf, sizeof(buf), &hkey, kind, symbol, object, part);

	if (n < 0)
		return (int)n;
	HASH_FIND(hh, *hash, hkey, (size_t)n, *out);
	if (*out) {
		if (hkey != buf)
			free(hkey);
		return 0;
	}
	if (hkey == buf && !(hkey = strdup(buf)))
		return -ENOMEM;
	*out = row_new(kind, symbol, object, exe, cpu, group, hkey);
	if (!*out)
		return -ENOMEM;
	HASH_ADD_KEYPTR(hh, *hash, (*out)->hkey, (size_t)n, *out);
	return 0;
}

/* What a process brings to each of its rows: its partition and who it is. */
struct proc_share {
	const struct xp_proc *p;
	const char *part; /* "exe\x1fcpu\x1fgroup", the rows' key past the declaration */
	const char *group;
	struct xp_who who;
	struct xp_ident ident;
};

/*
 * Finalize one declaration of one process and fold it into its row: its
 * figures combined with the other processes', its per-eval and
 * evaluations into the row's spread.
 */
static int rows_fold(const struct xp_report *r, struct xp_row **hash, const struct xp_pdecl *x,
		     const struct proc_share *ps)
{
	const struct extprof_dump_header *h = &ps->p->hdr;
	struct xp_fin_scratch scratch;
	struct xp_row *row;
	struct xp_fin f;
	bool fresh, measured;
	int err = row_find(hash, x->kind, x->symbol, x->object, ps->part, h->exe_path, h->cpu_model,
			   ps->group, &row);

	if (err)
		return err;
	fresh = !row->spread.processes;
	err = xp_finalize_scratch(&f, &scratch, &x->acc, h->calibration, h->counter);
	if (err)
		return err;
	/* steps: a process none of whose evaluations was stepped has no per-eval */
	measured = f.evaluations && (!r->sampled || f.samples);
	err = xp_spread_add_process(&row->spread, measured, xp_fin_per_eval(&f, r->opts.stat),
				    xp_fin_slack(&f), f.evaluations, &ps->who);
	if (!err)
		err = xp_fin_add(&row->fin, &f);
	xp_fin_drop(&f, &scratch);
	if (fresh)
		row->ident = ps->ident;
	else
		xp_ident_add(&row->ident, &ps->ident);
	return err;
}

char *xp_row_part(char *buf, size_t size, const struct xp_row *row)
{
	snprintf(buf, size, "%s\x1f%s\x1f%s", row->exe ? row->exe : "", row->cpu ? row->cpu : "",
		 row->group ? row->group : "");
	return buf;
}

uint64_t xp_fin_per_eval(const struct xp_fin *f, enum xp_stat stat)
{
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

/* The processes of @row differ beyond the margin (report_spread.c). */
static unsigned xp_row_imbalance_flag(const struct xp_row *row, const struct xp_report *r)
{
	uint64_t margin;

	return xp_spread_imbalance(row, r, &margin) ? 1u << XP_FLAG_IMBALANCE : 0;
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
		       (f->hist_lost ? 1u << XP_FLAG_HIST_LOST : 0) | xp_row_imbalance_flag(row, r);
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
	return flags | xp_row_imbalance_flag(row, r);
}

uint64_t xp_row_weight(const struct xp_row *row)
{
	return row->flags & (1u << XP_FLAG_STATE_DEPENDENT) ? row->fin.observed : row->cost;
}

int xp_row_figures(struct xp_row *row, const struct xp_report *r)
{
	const struct xp_fin *f = &row->fin;

	row->per_eval = xp_fin_per_eval(f, r->opts.stat);
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
	if (!c && a->cpu && b->cpu)
		c = strcmp(a->cpu, b->cpu);
	if (!c && a->group && b->group)
		c = strcmp(a->group, b->group);
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

/* "exe\x1fcpu\x1fgroup" of process @p into @buf: the rows' key past the declaration. */
static void part_of(char *buf, size_t size, const struct xp_proc *p, const char *group)
{
	snprintf(buf, size, "%s\x1f%s\x1f%s", p->hdr.exe_path, p->hdr.cpu_model,
		 group ? group : "");
}

int xp_report_rows_add(struct xp_report *r, struct xp_row **hash, const struct xp_proc *p,
		       const char *group)
{
	char part[sizeof(p->hdr.exe_path) + sizeof(p->hdr.cpu_model) + XP_GROUP_LABEL + 4];
	struct proc_share ps = {.p = p, .part = part, .group = group};
	uint64_t step = proc_step(p, r->deterministic);
	int err = 0;

	if (step > r->step)
		r->step = step;
	part_of(part, sizeof(part), p, group);
	xp_who_of(&ps.who, p);
	xp_ident_of(&ps.ident, p);
	for (size_t j = 0; j < p->ndecls && !err; j++)
		err = rows_fold(r, hash, &p->decls[j], &ps);
	return err;
}

static void rows_free(struct xp_row **hash)
{
	struct xp_row *row, *tmp;

	HASH_ITER(hh, *hash, row, tmp)
	{
		HASH_DEL(*hash, row);
		xp_row_free(row);
		free(row);
	}
}

/* @src's figures and processes added into @dst, a row of the same declaration. */
static int row_merge(struct xp_row *dst, const struct xp_row *src)
{
	bool fresh = !dst->spread.processes;
	int err = xp_fin_add(&dst->fin, &src->fin) ?: xp_spread_add(&dst->spread, &src->spread);

	if (fresh)
		dst->ident = src->ident;
	else
		xp_ident_add(&dst->ident, &src->ident);
	return err;
}

/*
 * The rows of @in made into those the report shows, in @out: a row per
 * declaration and the partition the report keeps (executables when
 * by_exe, CPU models when by_cpu, --by's groups), the others merged.
 */
static int rows_collapse(const struct xp_report *r, struct xp_row **in, struct xp_row **out)
{
	struct xp_row *x, *tmp, *row;
	int err = 0;

	HASH_ITER(hh, *in, x, tmp)
	{
		char part[1024];
		const char *exe = r->by_exe ? xp_base_name(x->exe) : NULL;
		const char *cpu = r->by_cpu ? x->cpu : NULL;

		snprintf(part, sizeof(part), "%s\x1f%s\x1f%s", r->by_exe ? x->exe : "",
			 cpu ? cpu : "", x->group ? x->group : "");
		err = row_find(out, x->kind, x->symbol, x->object, part, exe, cpu, x->group, &row);
		if (!err)
			err = row_merge(row, x);
		if (err)
			break;
	}
	rows_free(in);
	return err;
}

int xp_report_rows_settle(struct xp_report *r, struct xp_row **hash)
{
	struct xp_row *shown = NULL, *row, *tmp;
	size_t n;
	int err = rows_collapse(r, hash, &shown);

	n = HASH_COUNT(shown);
	if (!err && !(r->rows = calloc(n + 1, sizeof(*r->rows))))
		err = -ENOMEM;
	HASH_ITER(hh, shown, row, tmp)
	{
		HASH_DEL(shown, row);
		if (err) {
			xp_row_free(row);
			free(row);
			continue;
		}
		r->rows[r->nrows] = *row;
		memset(&r->rows[r->nrows].hh, 0, sizeof(r->rows[r->nrows].hh));
		free(row);
		err = xp_row_figures(&r->rows[r->nrows], r);
		r->nrows++;
	}
	if (err)
		return err;
	xp_report_sort(r);
	return 0;
}

void xp_report_building_free(struct xp_report *r)
{
	struct xp_report_building *b = r->building;
	struct xp_group_index *g, *tmp;
	struct xp_row *row, *rtmp;

	if (!b)
		return;
	HASH_ITER(hh, b->rows, row, rtmp)
	{
		HASH_DEL(b->rows, row);
		xp_row_free(row);
		free(row);
	}
	HASH_ITER(hh, b->groups, g, tmp)
	{
		HASH_DEL(b->groups, g);
		free(g->label);
		free(g);
	}
	if (b->first.workers)
		free(b->first.workers[0].path);
	free(b->first.workers);
	xp_u64set_free(&b->pids);
	xp_u64set_free(&b->incomplete);
	free(b);
	r->building = NULL;
}

void xp_report_free(struct xp_report *r)
{
	for (size_t i = 0; i < r->nrows; i++)
		xp_row_free(&r->rows[i]);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->rows);
	free(r->warnings);
	free(r->pids);
	free(r->incomplete_pids);
	for (size_t i = 0; i < r->nexes; i++)
		free(r->exes[i]);
	free(r->exes);
	for (size_t i = 0; i < r->ncpus; i++)
		free(r->cpus[i]);
	free(r->cpus);
	for (size_t i = 0; i < r->ngroups; i++)
		free(r->groups[i]);
	free(r->groups);
	free(r->group_totals);
	xp_report_building_free(r);
	memset(r, 0, sizeof(*r));
}
