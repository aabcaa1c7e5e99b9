// SPDX-License-Identifier: MIT
/*
 * doubling_build: each input read, merged and finalized exactly as
 * "extprof report" does (xp_load_arg, xp_report_build), its rows matched
 * across sizes by (kind, symbol, object basename).  The repeats of a size
 * are combined as "extprof run --repeat" combines them: per-eval is the
 * --stat of the runs' (each already the --stat per-evaluation statistic),
 * as Alnoms picks its score from its repeats; evaluations the median.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "doubling/doubling.h"
#include "util/vec.h"
#include "model/load.h"
#include "util/num.h"

const char *const xp_dbl_value_keys[XP_DBL_NVALUES] = {"per_eval", "evaluations", "cost"};
const char *const xp_dbl_value_names[XP_DBL_NVALUES] = {"per-eval", "evaluations", "cost"};

/* A declaration while the sizes are read. */
struct pending {
	char *hkey;
	char *kind, *symbol, *object;
	struct xp_dbl_point *pts; /* nsizes */
	UT_hash_handle hh;
};

struct build {
	struct xp_doubling *d;
	struct pending *hash;
	const struct xp_dbl_input *first; /* whose counter the others must match */
};

static struct pending *pending_get(struct build *b, const struct xp_row *row)
{
	struct pending *p;
	char *hkey;

	if (xp_decl_key(NULL, 0, &hkey, row->kind, row->symbol, row->object, NULL) < 0)
		return NULL;
	HASH_FIND_STR(b->hash, hkey, p);
	if (p) {
		free(hkey);
		return p;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(hkey);
		return NULL;
	}
	p->hkey = hkey;
	p->kind = strdup(row->kind);
	p->symbol = strdup(row->symbol);
	p->object = strdup(row->object);
	p->pts = calloc(b->d->nsizes, sizeof(*p->pts));
	HASH_ADD_KEYPTR(hh, b->hash, p->hkey, strlen(p->hkey), p);
	if (!p->kind || !p->symbol || !p->object || !p->pts)
		return NULL; /* freed with the hash */
	return p;
}

static void pending_free(struct build *b)
{
	struct pending *p, *tmp;

	HASH_ITER(hh, b->hash, p, tmp)
	{
		HASH_DEL(b->hash, p);
		free(p->hkey);
		free(p->kind);
		free(p->symbol);
		free(p->object);
		free(p->pts);
		free(p);
	}
}

/* What the report of a size says about its runs as a whole. */
static int take_head(struct build *b, const struct xp_dbl_input *in, size_t k,
		     const struct xp_report *r, struct xp_dbl_size *sz, struct xp_err *e)
{
	struct xp_doubling *d = b->d;
	int err = 0;

	if (!b->first) {
		b->first = in;
		memcpy(d->counter_name, r->counter_name, sizeof(d->counter_name));
		memcpy(d->counter_unit, r->counter_unit, sizeof(d->counter_unit));
		d->deterministic = r->deterministic;
	} else if (strcmp(d->counter_name, r->counter_name) ||
		   strcmp(d->counter_unit, r->counter_unit)) {
		return xp_err_set(e, -EINVAL,
				  "%s: counter %s (%s) does not match counter %s (%s) of %s; "
				  "sizes measured with different counters cannot be compared",
				  in->dir, r->counter_name, r->counter_unit, d->counter_name,
				  d->counter_unit, b->first->dir);
	}
	if (r->resolution > d->resolution)
		d->resolution = r->resolution;
	if (r->step > d->step)
		d->step = r->step;
	sz->runs = k;
	sz->calibration = r->calibration;
	sz->calibration_max = r->calibration_max;
	sz->run_total = r->run_total;
	sz->complete = r->complete;
	for (size_t i = 0; i < r->nwarnings && !err; i++)
		err = k == 1 ? xp_strv_appendf(&d->warnings, &d->nwarnings, "N=%" PRIu64 ", %s: %s",
					       in->n, in->dir, r->warnings[i])
			     : xp_strv_appendf(&d->warnings, &d->nwarnings, "N=%" PRIu64 ": %s",
					       in->n, r->warnings[i]);
	if (!err && !r->complete)
		err = xp_strv_appendf(&d->warnings, &d->nwarnings,
				      "N=%" PRIu64 ": incomplete: a process did not finish cleanly",
				      in->n);
	return err ? xp_err_set(e, err, "out of memory") : 0;
}

/* The rows of size @si into its points: v, or with @mean the mean-based values. */
static int take_rows(struct build *b, size_t si, const struct xp_report *r, bool mean,
		     struct xp_err *e)
{
	for (size_t i = 0; i < r->nrows; i++) {
		const struct xp_row *row = &r->rows[i];
		struct pending *p = pending_get(b, row);
		struct xp_dbl_point *pt;
		uint64_t *v;

		if (!p)
			return xp_err_set(e, -ENOMEM, "out of memory");
		pt = &p->pts[si];
		pt->present = true;
		v = mean ? pt->mean : pt->v;
		v[XP_DBL_PER_EVAL] = row->per_eval;
		v[XP_DBL_EVALUATIONS] = row->fin.evaluations;
		v[XP_DBL_COST] = xp_sat_mul(row->per_eval, row->fin.evaluations);
		if (mean)
			continue;
		pt->state_dependent = row->flags & (1u << XP_FLAG_STATE_DEPENDENT);
		/* the runs' spread; cost's, from the extremes of its two factors */
		pt->lo[XP_DBL_PER_EVAL] = row->per_eval_lo;
		pt->hi[XP_DBL_PER_EVAL] = row->per_eval_hi;
		pt->lo[XP_DBL_EVALUATIONS] = row->evaluations_lo;
		pt->hi[XP_DBL_EVALUATIONS] = row->evaluations_hi;
		pt->lo[XP_DBL_COST] = xp_sat_mul(row->per_eval_lo, row->evaluations_lo);
		pt->hi[XP_DBL_COST] = xp_sat_mul(row->per_eval_hi, row->evaluations_hi);
	}
	return 0;
}

/*
 * Each run's rows again with per-eval the mean (for --stat auto).  Their
 * repeats are then combined as floors are, by the least: load only adds to
 * a mean as it does to a delta, and the least of the runs' means is that of
 * the run least disturbed.
 */
static int runs_as_mean(struct xp_report *runs, size_t k, struct xp_err *e)
{
	for (size_t i = 0; i < k; i++) {
		runs[i].opts.stat = XP_STAT_MEAN;
		for (size_t j = 0; j < runs[i].nrows; j++)
			if (xp_row_figures(&runs[i].rows[j], &runs[i]))
				return xp_err_set(e, -ENOMEM, "out of memory");
		runs[i].opts.stat = XP_STAT_MIN; /* for xp_report_repeat: the least */
	}
	return 0;
}

/* One input, merged and finalized as "extprof report DIR" would; auto reads as min. */
static int read_input(const struct xp_doubling *d, const struct xp_dbl_input *in,
		      struct xp_report *r, struct xp_err *e)
{
	struct xp_report_opts o = d->opts;
	struct xp_load l;
	int err;

	if (o.stat == XP_STAT_AUTO)
		o.stat = XP_STAT_MIN;
	xp_load_init(&l, d->opts.strict);
	err = xp_load_arg(&l, in->dir, e);
	if (!err && !l.files)
		err = xp_err_set(e, -ENOENT, "%s: no usable dump: all %zu were skipped", in->dir,
				 l.skipped);
	if (!err)
		err = xp_report_build(r, &l.set, &o, l.skipped, e);
	xp_load_free(&l);
	return err;
}

/*
 * The @k inputs of size @si: one report each, then, for repeats, one made
 * of them as "extprof run --repeat" makes it (xp_report_repeat): per-eval
 * the --stat of the runs', evaluations their median.
 */
static int take_size(struct build *b, size_t si, const struct xp_dbl_input *in, size_t k,
		     struct xp_err *e)
{
	struct xp_report *runs = calloc(k, sizeof(*runs)), agg;
	size_t built = 0;
	int err = runs ? 0 : xp_err_set(e, -ENOMEM, "out of memory");

	while (!err && built < k && !(err = read_input(b->d, &in[built], &runs[built], e)))
		built++;
	if (!err && k > 1)
		err = xp_report_repeat(&agg, runs, k, 0, e);
	if (!err) {
		const struct xp_report *r = k > 1 ? &agg : &runs[0];

		err = take_head(b, in, k, r, &b->d->sizes[si], e);
		if (!err)
			err = take_rows(b, si, r, false, e);
		if (k > 1)
			xp_report_free(&agg);
	}
	/* --stat auto: the mean beside the floor, its repeats combined by their least */
	if (!err && b->d->opts.stat == XP_STAT_AUTO) {
		err = runs_as_mean(runs, k, e);
		if (!err && k > 1)
			err = xp_report_repeat(&agg, runs, k, 0, e);
		if (!err)
			err = take_rows(b, si, k > 1 ? &agg : &runs[0], true, e);
		if (!err && k > 1)
			xp_report_free(&agg);
	}
	for (size_t i = 0; i < built; i++)
		xp_report_free(&runs[i]);
	free(runs);
	return err;
}

static int sizes_make(struct xp_doubling *d, const struct xp_dbl_input *in, size_t nin)
{
	d->sizes = calloc(nin, sizeof(*d->sizes));
	if (!d->sizes)
		return -ENOMEM;
	for (size_t i = 0; i < nin; i++) {
		if (d->nsizes && d->sizes[d->nsizes - 1].n == in[i].n)
			continue;
		d->sizes[d->nsizes].n = in[i].n;
		d->sizes[d->nsizes++].complete = true;
	}
	return 0;
}

/* The order of the declarations: --sort at the largest size each was seen at. */
static const struct xp_dbl_point *last_point(const struct xp_dbl_decl *x, size_t nsizes)
{
	static const struct xp_dbl_point none;

	for (size_t i = nsizes; i-- > 0;)
		if (x->pts[i].present)
			return &x->pts[i];
	return &none;
}

static int cmp_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int cmp_decls(const void *pa, const void *pb, void *arg)
{
	const struct xp_doubling *d = arg;
	const struct xp_dbl_decl *a = pa, *b = pb;
	const struct xp_dbl_point *x = last_point(a, d->nsizes), *y = last_point(b, d->nsizes);
	int c = 0;

	if (d->opts.sort == XP_SORT_EVALUATIONS)
		c = cmp_desc(x->v[XP_DBL_EVALUATIONS], y->v[XP_DBL_EVALUATIONS]);
	else if (d->opts.sort == XP_SORT_PER_EVAL)
		c = cmp_desc(x->v[XP_DBL_PER_EVAL], y->v[XP_DBL_PER_EVAL]);
	if (!c && d->opts.sort != XP_SORT_NAME)
		c = cmp_desc(x->v[XP_DBL_COST], y->v[XP_DBL_COST]);
	if (!c && d->opts.sort != XP_SORT_NAME)
		c = cmp_desc(x->v[XP_DBL_EVALUATIONS], y->v[XP_DBL_EVALUATIONS]);
	if (!c)
		c = strcmp(a->symbol, b->symbol);
	if (!c)
		c = strcmp(a->object, b->object);
	return c ? c : strcmp(a->kind, b->kind);
}

/*
 * The statistic of a declaration's points, and, for --stat auto, its
 * points made of it: the mean where it is state-dependent at most of the
 * sizes it was called at, the floor elsewhere.  A function whose calls
 * really differ does so at every size; a burst of load can flag one size.
 */
static enum xp_stat stat_of(const struct xp_doubling *d, struct xp_dbl_decl *x)
{
	size_t sd = 0, called = 0;

	if (d->opts.stat != XP_STAT_AUTO)
		return d->opts.stat;
	for (size_t i = 0; i < d->nsizes; i++) {
		called += x->pts[i].present && x->pts[i].v[XP_DBL_EVALUATIONS];
		sd += x->pts[i].present && x->pts[i].state_dependent;
	}
	if (2 * sd <= called)
		return XP_STAT_MIN;
	for (size_t i = 0; i < d->nsizes; i++)
		memcpy(x->pts[i].v, x->pts[i].mean, sizeof(x->pts[i].v));
	return XP_STAT_MEAN;
}

/* Move the pending declarations into the sorted array. */
static int decls_settle(struct build *b)
{
	struct xp_doubling *d = b->d;
	struct pending *p, *tmp;
	size_t n = HASH_COUNT(b->hash), i = 0;

	d->decls = calloc(n + 1, sizeof(*d->decls));
	if (!d->decls)
		return -ENOMEM;
	HASH_ITER(hh, b->hash, p, tmp)
	{
		struct xp_dbl_decl *x = &d->decls[i];

		/* ownership moves to the array */
		x->pts = p->pts;
		x->hkey = p->hkey;
		x->kind = p->kind;
		x->symbol = p->symbol;
		x->object = p->object;
		x->stat = stat_of(d, x);
		p->pts = NULL;
		p->hkey = p->kind = p->symbol = p->object = NULL;
		d->ndecls = ++i;
	}
	qsort_r(d->decls, d->ndecls, sizeof(*d->decls), cmp_decls, d);
	return 0;
}

int xp_dbl_build(struct xp_doubling *d, const struct xp_dbl_input *in, size_t nin,
		 const struct xp_report_opts *o, struct xp_err *e)
{
	struct build b = {.d = d};
	size_t i = 0, si = 0;
	int err;

	memset(d, 0, sizeof(*d));
	d->opts = *o;
	d->inputs = in;
	d->ninputs = nin;
	if (!nin)
		return xp_err_set(e, -EINVAL, "no runs to compare");
	err = sizes_make(d, in, nin) ? xp_err_set(e, -ENOMEM, "out of memory") : 0;
	/* the inputs are sorted: those of one size are together */
	while (!err && i < nin) {
		size_t k = 1;

		while (i + k < nin && in[i + k].n == in[i].n)
			k++;
		err = take_size(&b, si++, &in[i], k, e);
		i += k;
	}
	if (!err && decls_settle(&b))
		err = xp_err_set(e, -ENOMEM, "out of memory");
	if (!err && xp_dbl_grow(d))
		err = xp_err_set(e, -ENOMEM, "out of memory");
	pending_free(&b);
	if (err)
		xp_dbl_free(d);
	return err;
}

void xp_dbl_free(struct xp_doubling *d)
{
	for (size_t i = 0; i < d->ndecls; i++) {
		struct xp_dbl_decl *x = &d->decls[i];

		free(x->kind);
		free(x->symbol);
		free(x->object);
		free(x->hkey);
		free(x->pts);
		for (int v = 0; v < XP_DBL_NVALUES; v++) {
			free(x->g[v].ratio);
			free(x->g[v].per_dbl);
			free(x->g[v].cls);
		}
	}
	for (size_t i = 0; i < d->nwarnings; i++)
		free(d->warnings[i]);
	free(d->decls);
	free(d->sizes);
	free(d->warnings);
	memset(d, 0, sizeof(*d));
}
