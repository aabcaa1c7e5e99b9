// SPDX-License-Identifier: MIT
/*
 * diff_build: the rows of two reports matched by (kind, symbol, object
 * basename), their changes, the threshold, and the warnings a reader needs
 * before trusting the comparison.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "diff/diff.h"
#include "util/vec.h"
#include "util/num.h"
#include "util/path.h"

const char *const xp_diff_metric_keys[XP_DIFF_NMETRICS] = {"per_eval", "evaluations", "cost"};
const char *const xp_diff_metric_names[XP_DIFF_NMETRICS] = {"per-eval", "evaluations", "cost"};
const char *const xp_diff_status_names[4] = {"changed", "same", "appeared", "vanished"};

void xp_diff_opts_init(struct xp_diff_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = XP_FORMAT_TEXT;
	o->metric = XP_DIFF_COST;
	o->fail_above = -1.0;
}

int xp_diff_opt_metric(struct xp_diff_opts *o, const char *v, struct xp_err *e)
{
	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		if (!strcmp(v, xp_diff_metric_names[m])) {
			o->metric = (enum xp_diff_metric)m;
			return 0;
		}
	}
	return xp_err_set(e, -EINVAL, "--metric %s: expected per-eval, evaluations or cost", v);
}

int xp_diff_opt_fail_above(struct xp_diff_opts *o, const char *v, struct xp_err *e)
{
	size_t n = strlen(v);
	char num[64];

	/* "10" and "10%" alike */
	if (n && n < sizeof(num) && v[n - 1] == '%')
		n--;
	if (!n || n >= sizeof(num))
		return xp_err_set(e, -EINVAL, "--fail-above %s: expected a percentage >= 0", v);
	memcpy(num, v, n);
	num[n] = '\0';
	if (xp_parse_ratio(num, &o->fail_above))
		return xp_err_set(e, -EINVAL, "--fail-above %s: expected a percentage >= 0", v);
	return 0;
}

static double change_of(uint64_t a, uint64_t b)
{
	if (a == b)
		return 0.0;
	if (!a)
		return INFINITY;
	return (double)(((long double)b - (long double)a) / (long double)a * 100.0L);
}

/* What makes the two sides measure different things. */
static int diff_warnings(struct xp_diff *d)
{
	const struct xp_report *a = d->base, *b = d->next;
	int err = 0;

	if (strcmp(a->counter_name, b->counter_name) || strcmp(a->counter_unit, b->counter_unit))
		err = xp_strv_appendf(
			&d->warnings, &d->nwarnings,
			"counters differ: base %s (%s), new %s (%s); the figures are not "
			"comparable",
			a->counter_name, a->counter_unit, b->counter_name, b->counter_unit);
	if (!err && strcmp(a->cpu_model, b->cpu_model))
		err = xp_strv_appendf(&d->warnings, &d->nwarnings,
				      "CPU models differ: base \"%s\", new \"%s\"", a->cpu_model,
				      b->cpu_model);
	if (!err && (strcmp(a->build_id, b->build_id) ||
		     (!strcmp(a->build_id, "none") && strcmp(a->exe_path, b->exe_path))))
		err = xp_strv_appendf(
			&d->warnings, &d->nwarnings,
			"executables differ: base %s (build-id %s), new %s (build-id %s)",
			a->exe_path, a->build_id, b->exe_path, b->build_id);
	for (size_t i = 0; !err && i < a->nwarnings; i++)
		err = xp_strv_appendf(&d->warnings, &d->nwarnings, "base: %s", a->warnings[i]);
	for (size_t i = 0; !err && i < b->nwarnings; i++)
		err = xp_strv_appendf(&d->warnings, &d->nwarnings, "new: %s", b->warnings[i]);
	return err;
}

struct keyed {
	char *key;
	const struct xp_row *row;
	bool matched;
	UT_hash_handle hh;
};

/*
 * (kind, symbol, object basename) and the row's group and CPU model (when
 * the sides keep them apart: --by); a declaration of the executable itself
 * is keyed by (kind, symbol) alone, so that "checker" and "checker-slow"
 * compare.
 */
static char *row_key(const struct xp_row *r, const struct xp_report *side)
{
	const char *obj = r->object;
	char part[1024], *k;

	if (side->exe_path[0] && !strcmp(obj, xp_base_name(side->exe_path)))
		obj = "\x01";
	snprintf(part, sizeof(part), "%s\x1f%s", r->cpu ? r->cpu : "", r->group ? r->group : "");
	return xp_decl_key(NULL, 0, &k, r->kind, r->symbol, obj, part) < 0 ? NULL : k;
}

static void keyed_free(struct keyed **h)
{
	struct keyed *k, *tmp;

	HASH_ITER(hh, *h, k, tmp)
	{
		HASH_DEL(*h, k);
		free(k->key);
		free(k);
	}
}

static int keyed_index(struct keyed **h, const struct xp_report *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		struct keyed *k = calloc(1, sizeof(*k));

		if (!k || !(k->key = row_key(&r->rows[i], r))) {
			free(k);
			return -ENOMEM;
		}
		k->row = &r->rows[i];
		HASH_ADD_KEYPTR(hh, *h, k->key, strlen(k->key), k);
	}
	return 0;
}

static void row_set(struct xp_diff *d, struct xp_diff_row *x)
{
	bool same = true;

	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		if (!x->base || !x->next) {
			x->change[m] = NAN;
			continue;
		}
		x->change[m] = change_of(xp_diff_value(x->base, (enum xp_diff_metric)m),
					 xp_diff_value(x->next, (enum xp_diff_metric)m));
		same = same && x->change[m] == 0.0;
	}
	x->status = !x->base   ? XP_DIFF_APPEARED
		    : !x->next ? XP_DIFF_VANISHED
		    : same     ? XP_DIFF_SAME
			       : XP_DIFF_CHANGED;
	xp_diff_margins(d, x);
	x->over = d->opts.fail_above >= 0 && x->real[d->opts.metric] &&
		  x->change[d->opts.metric] > d->opts.fail_above;
	d->nover += x->over;
	d->nnoise += xp_diff_within_margin(d, x);
}

/* New rows in the new report's order; the base's rows follow, vanished or not. */
static int diff_match(struct xp_diff *d)
{
	struct keyed *h = NULL, *k;
	size_t n = 0;
	int err;

	d->rows = calloc(d->base->nrows + d->next->nrows + 1, sizeof(*d->rows));
	if (!d->rows)
		return -ENOMEM;
	err = keyed_index(&h, d->base);
	for (size_t i = 0; !err && i < d->next->nrows; i++) {
		char *key = row_key(&d->next->rows[i], d->next);

		if (!key) {
			err = -ENOMEM;
			break;
		}
		HASH_FIND_STR(h, key, k);
		free(key);
		d->rows[n].next = &d->next->rows[i];
		if (k) {
			d->rows[n].base = k->row;
			k->matched = true;
		}
		n++;
	}
	/* in insertion order: the base's */
	for (k = h; !err && k; k = k->hh.next)
		if (!k->matched)
			d->rows[n++].base = k->row;
	keyed_free(&h);
	d->nrows = n;
	for (size_t i = 0; i < n; i++)
		row_set(d, &d->rows[i]);
	return err;
}

static int cmp_double_desc(double a, double b)
{
	return (a < b) - (a > b);
}

static const struct xp_row *row_any(const struct xp_diff_row *x)
{
	return x->next ? x->next : x->base;
}

/* The change a row is ordered by: 0 for one within its margin. */
static double change_real(const struct xp_diff_row *x, enum xp_diff_metric m)
{
	return x->real[m] ? x->change[m] : 0.0;
}

/*
 * Changed and unchanged rows first, the most grown (in --metric, beyond
 * its margin) first, the changes within their margin among the unchanged;
 * then the declarations that appeared, then those that vanished, most
 * expensive first; ties by name.
 */
static int cmp_diff_rows(const void *pa, const void *pb, void *arg)
{
	const struct xp_diff_row *a = pa, *b = pb;
	enum xp_diff_metric m = *(const enum xp_diff_metric *)arg;
	int ga = a->status >= XP_DIFF_APPEARED ? (int)a->status : 0;
	int gb = b->status >= XP_DIFF_APPEARED ? (int)b->status : 0;
	const struct xp_row *ra = row_any(a), *rb = row_any(b);
	int c = (ga > gb) - (ga < gb);

	if (!c && !ga)
		c = cmp_double_desc(change_real(a, m), change_real(b, m));
	if (!c && !ga)
		c = cmp_double_desc(a->change[m], b->change[m]);
	if (!c)
		c = (ra->cost < rb->cost) - (ra->cost > rb->cost);
	if (!c)
		c = strcmp(ra->symbol, rb->symbol);
	if (!c)
		c = strcmp(ra->object, rb->object);
	if (!c)
		c = strcmp(ra->kind, rb->kind);
	return c;
}

int xp_diff_build(struct xp_diff *d, const struct xp_report *base, const struct xp_report *next,
		  const struct xp_diff_opts *o, struct xp_err *e)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->opts = *o;
	d->base = base;
	d->next = next;
	d->base_name = "BASE";
	d->next_name = "NEW";
	d->deterministic = base->deterministic && next->deterministic;
	d->step = base->step > next->step ? base->step : next->step;
	err = diff_warnings(d);
	if (!err)
		err = diff_match(d);
	if (err) {
		xp_diff_free(d);
		return xp_err_set(e, err, "out of memory");
	}
	qsort_r(d->rows, d->nrows, sizeof(*d->rows), cmp_diff_rows, &d->opts.metric);
	return 0;
}

void xp_diff_free(struct xp_diff *d)
{
	for (size_t i = 0; i < d->nwarnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

char *xp_diff_fmt_change(char *buf, size_t size, double change)
{
	if (isnan(change))
		snprintf(buf, size, "-");
	else if (isinf(change))
		snprintf(buf, size, "+inf%%");
	else if (change > -0.05 && change < 0.05)
		snprintf(buf, size, "%s0.0%%", change > 0 ? "+" : change < 0 ? "-" : "");
	else
		snprintf(buf, size, "%+.1f%%", change);
	return buf;
}
