// SPDX-License-Identifier: MIT
/*
 * report_nest: where each declaration's evaluations ran.  The shim records
 * (dump format 3) which declaration's activation each evaluation ran
 * inside: per declaration its parent, or "several" once there were two,
 * with the evaluations and their sum; and per declaration its inner, the
 * evaluations that ran directly inside it.  A declaration's parts are:
 *
 *   inside its parent           as recorded
 *   inside one of several       split over the declarations named by its
 *                               caller chains, when it has some, else over
 *                               those whose inner the recorded parts leave
 *                               unexplained, in proportion
 *   at the top                  the rest
 *
 * Without the record (older dumps), each caller chain's nearest frame that
 * is a declaration is its parent.  The cost of a part is the row's cost
 * split by evaluations, so that the parts add up to the row; the observed
 * is what the part's evaluations took.  With a sampled counter (steps) the
 * counts are the stepped evaluations', scaled to all of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/nest.h"
#include "util/num.h"
#include "util/text_table.h"
#include "util/vec.h"

static uint64_t sub_floor0(uint64_t v, uint64_t minus)
{
	return v > minus ? v - minus : 0;
}

struct xp_decl_name {
	char *key;
	size_t len;
	size_t row;
	UT_hash_handle hh;
};

void xp_frame_split(const char *name, struct xp_frame *f)
{
	const char *at = strrchr(name, '@'), *plus;
	size_t n = at ? (size_t)(at - name) : strlen(name);

	f->fn = name;
	f->obj = at ? at + 1 : "";
	f->obj_len = at ? strlen(at + 1) : 0;
	/* "+0x..." after a name is the offset of the return address in it */
	plus = memrchr(name, '+', n);
	if (plus && plus > name && plus[1] == '0' && plus[2] == 'x')
		n = (size_t)(plus - name);
	f->fn_len = n;
}

/* Parts of a key, each followed by 0x1f but the last, into a malloc'd string. */
static char *key_join(size_t *len, const char *const *part, const size_t *part_len, size_t n)
{
	size_t total = 0, at = 0;
	char *k;

	for (size_t i = 0; i < n; i++)
		total += part_len[i] + 1;
	k = malloc(total);
	if (!k)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		memcpy(k + at, part[i], part_len[i]);
		at += part_len[i];
		k[at++] = i + 1 < n ? 0x1f : '\0';
	}
	*len = total - 1;
	return k;
}

/* Index @row under @key (taken), unless the key is there already. */
static int name_put(struct xp_decl_name **h, char *key, size_t len, size_t row)
{
	struct xp_decl_name *e;

	if (!key)
		return -ENOMEM;
	HASH_FIND(hh, *h, key, len, e);
	if (e) {
		free(key);
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		free(key);
		return -ENOMEM;
	}
	e->key = key;
	e->len = len;
	e->row = row;
	HASH_ADD_KEYPTR(hh, *h, e->key, e->len, e);
	return 0;
}

static ssize_t name_find(struct xp_decl_name *h, const char *const *part, const size_t *part_len,
			 size_t n)
{
	struct xp_decl_name *e;
	size_t len = 0;
	char *key = key_join(&len, part, part_len, n);

	if (!key)
		return -1;
	HASH_FIND(hh, h, key, len, e);
	free(key);
	return e ? (ssize_t)e->row : -1;
}

int xp_decl_index_build(struct xp_decl_index *x, const struct xp_report *r)
{
	int err = 0;

	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < r->nrows && !err; i++) {
		const struct xp_row *row = &r->rows[i];
		const char *exe = row->exe ? row->exe : "";
		const char *name[2] = {row->symbol, row->object};
		const char *key[4] = {row->kind, row->symbol, row->object, exe};
		size_t nlen[2] = {strlen(row->symbol), strlen(row->object)};
		size_t klen[4] = {strlen(row->kind), nlen[0], nlen[1], strlen(exe)};
		size_t len = 0;
		char *k = key_join(&len, name, nlen, 2);

		err = name_put(&x->by_name, k, len, i);
		if (!err) {
			k = key_join(&len, key, klen, 4);
			err = name_put(&x->by_key, k, len, i);
		}
	}
	if (err)
		xp_decl_index_free(x);
	return err;
}

ssize_t xp_decl_index_find(const struct xp_decl_index *x, const struct xp_frame *f)
{
	const char *part[2] = {f->fn, f->obj};
	size_t len[2] = {f->fn_len, f->obj_len};

	if (!f->obj_len)
		return -1; /* a raw address names no declaration */
	return name_find(x->by_name, part, len, 2);
}

ssize_t xp_decl_index_key(const struct xp_decl_index *x, const char *key, size_t len,
			  const char *exe)
{
	const char *part[2] = {key, exe ? exe : ""};
	size_t plen[2] = {len, strlen(part[1])};

	return name_find(x->by_key, part, plen, 2);
}

static void names_free(struct xp_decl_name **h)
{
	struct xp_decl_name *e, *tmp;

	HASH_ITER(hh, *h, e, tmp)
	{
		HASH_DEL(*h, e);
		free(e->key);
		free(e);
	}
}

void xp_decl_index_free(struct xp_decl_index *x)
{
	names_free(&x->by_name);
	names_free(&x->by_key);
}

/* A part while the parts are gathered: counts as recorded (stepped ones with steps). */
#define NEST_SEVERAL (-2) /* inside one of several declarations, not known which */

static int part_add(struct xp_nest *n, ssize_t parent, uint64_t evaluations, uint64_t observed)
{
	struct xp_nest_part *p;

	for (size_t i = 0; i < n->nparts; i++)
		if (n->parts[i].parent == parent) {
			p = &n->parts[i];
			p->evaluations = xp_sat_add(p->evaluations, evaluations);
			p->observed = xp_sat_add(p->observed, observed);
			return 0;
		}
	if (XP_GROW(&n->parts, &n->cap, n->nparts, 4))
		return -ENOMEM;
	n->parts[n->nparts++] = (struct xp_nest_part){parent, evaluations, 0, observed};
	return 0;
}

/* The row of the nearest frame of chain @c that is a declaration other than @self, or -1. */
static ssize_t chain_parent(const struct xp_decl_index *x, const struct xp_chain *c, size_t self)
{
	for (const char *fr = c->depth ? c->key : NULL; fr; fr = xp_chain_next(c, fr)) {
		struct xp_frame f;
		ssize_t at;

		xp_frame_split(fr, &f);
		at = xp_decl_index_find(x, &f);
		if (at >= 0 && (size_t)at != self)
			return at;
	}
	return -1;
}

/* The recorded nesting of row @i: its parents, and what ran in several. */
static int nest_recorded(const struct xp_report *r, const struct xp_decl_index *x, size_t i,
			 struct xp_nest *n)
{
	const struct xp_row *row = &r->rows[i];
	const struct xp_chain *c, *tmp;
	int err = 0;

	HASH_ITER(hh, row->fin.parents, c, tmp)
	{
		ssize_t at = c->keylen ? xp_decl_index_key(x, c->key, c->keylen, row->exe)
				       : NEST_SEVERAL;

		/* a parent that is no row (the window function) is the top */
		if (!err && at != XP_NEST_TOP && at != (ssize_t)i)
			err = part_add(n, at, c->evaluations, c->sum);
	}
	return err;
}

/* Without a record: each chain's nearest declaration. */
static int nest_chains(const struct xp_report *r, const struct xp_decl_index *x, size_t i,
		       struct xp_nest *n)
{
	const struct xp_row *row = &r->rows[i];
	int err = 0;

	for (size_t k = 0; k < row->nchains && !err; k++) {
		ssize_t at = chain_parent(x, row->chains[k], i);

		if (at >= 0)
			err = part_add(n, at, row->chains[k]->evaluations, row->chains[k]->sum);
	}
	return err;
}

static uint64_t part_of(uint64_t whole, uint64_t num, uint64_t den)
{
	unsigned __int128 v;

	if (!den)
		return 0;
	v = (unsigned __int128)whole * num / den;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/*
 * Row @i's evaluations that ran inside one of several declarations, over
 * the declarations its chains name, else over @loose (per row: the inner
 * evaluations and observed the recorded parts leave unexplained).
 */
static int nest_spread(const struct xp_report *r, const struct xp_decl_index *x, size_t i,
		       struct xp_nest *n, const uint64_t (*loose)[2])
{
	const struct xp_row *row = &r->rows[i];
	uint64_t evals = 0, obs = 0, total = 0, *w;
	size_t at_several = n->nparts;
	bool chains;
	int err = 0;

	for (size_t k = 0; k < n->nparts; k++)
		if (n->parts[k].parent == NEST_SEVERAL) {
			evals = n->parts[k].evaluations;
			obs = n->parts[k].observed;
			at_several = k;
		}
	if (at_several == n->nparts)
		return 0;
	w = calloc(r->nrows + 1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (size_t k = 0; k < row->nchains; k++) {
		ssize_t at = chain_parent(x, row->chains[k], i);

		if (at >= 0)
			w[at] = xp_sat_add(w[at], row->chains[k]->evaluations);
	}
	for (size_t p = 0; p < r->nrows; p++)
		total = xp_sat_add(total, w[p]);
	chains = total > 0;
	for (size_t p = 0; !chains && p < r->nrows; p++)
		if (p != i)
			total = xp_sat_add(total, w[p] = loose[p][0]);
	/* the rest of the parts move down: the top takes what is not spread */
	memmove(&n->parts[at_several], &n->parts[at_several + 1],
		(n->nparts - at_several - 1) * sizeof(*n->parts));
	n->nparts--;
	for (size_t p = 0; p < r->nrows && !err && total; p++)
		if (w[p])
			err = part_add(n, (ssize_t)p, part_of(evals, w[p], total),
				       part_of(obs, w[p], total));
	free(w);
	return err;
}

/*
 * The parts of row @i made whole: scaled to all evaluations (steps), held
 * within the row's figures, its cost split, and the top given the rest.
 */
static int nest_settle(const struct xp_report *r, size_t i, struct xp_nest *n)
{
	const struct xp_row *row = &r->rows[i];
	uint64_t evals = row->fin.evaluations, obs = row->fin.observed;
	uint64_t seen = 0, seen_obs = 0, cost = 0;
	int err;

	for (size_t k = 0; k < n->nparts; k++) {
		struct xp_nest_part *p = &n->parts[k];

		if (r->sampled) {
			/* steps: the stepped evaluations, scaled; observed is an estimate */
			p->evaluations = part_of(evals, p->evaluations, row->fin.samples);
			p->observed = part_of(obs, p->evaluations, evals);
		}
		if (p->evaluations > evals - seen)
			p->evaluations = evals - seen;
		if (p->observed > obs - seen_obs)
			p->observed = obs - seen_obs;
		seen += p->evaluations;
		seen_obs += p->observed;
		p->cost = part_of(row->cost, p->evaluations, evals);
		cost += p->cost;
	}
	if (seen == evals && seen_obs == obs && n->nparts) {
		/* what the split rounded off goes to the largest part */
		size_t big = 0;

		for (size_t k = 1; k < n->nparts; k++)
			if (n->parts[k].evaluations > n->parts[big].evaluations)
				big = k;
		n->parts[big].cost += row->cost - cost;
		return 0;
	}
	err = part_add(n, XP_NEST_TOP, evals - seen, obs - seen_obs);
	if (err)
		return err;
	/* the top first */
	memmove(&n->parts[1], &n->parts[0], (n->nparts - 1) * sizeof(*n->parts));
	n->parts[0] =
		(struct xp_nest_part){XP_NEST_TOP, evals - seen, row->cost - cost, obs - seen_obs};
	return 0;
}

/* Per row, the inner the recorded parts leave unexplained (evaluations, observed). */
static uint64_t (*nest_loose(const struct xp_report *r, const struct xp_nest *v))[2]
{
	uint64_t(*loose)[2] = calloc(r->nrows + 1, sizeof(*loose));

	if (!loose)
		return NULL;
	for (size_t i = 0; i < r->nrows; i++) {
		loose[i][0] = r->rows[i].fin.inner;
		loose[i][1] = r->rows[i].fin.inner_observed;
	}
	for (size_t i = 0; i < r->nrows; i++)
		for (size_t k = 0; k < v[i].nparts; k++) {
			const struct xp_nest_part *p = &v[i].parts[k];

			if (p->parent < 0)
				continue;
			loose[p->parent][0] = sub_floor0(loose[p->parent][0], p->evaluations);
			loose[p->parent][1] = sub_floor0(loose[p->parent][1], p->observed);
		}
	return loose;
}

int xp_report_nest(const struct xp_report *r, const struct xp_decl_index *x, struct xp_nest **out)
{
	struct xp_nest *v = calloc(r->nrows + 1, sizeof(*v));
	uint64_t(*loose)[2] = NULL;
	int err = v ? 0 : -ENOMEM;

	for (size_t i = 0; i < r->nrows && !err; i++)
		err = r->nesting ? nest_recorded(r, x, i, &v[i]) : nest_chains(r, x, i, &v[i]);
	if (!err && r->nesting && !(loose = nest_loose(r, v)))
		err = -ENOMEM;
	for (size_t i = 0; i < r->nrows && !err && loose; i++)
		err = nest_spread(r, x, i, &v[i], (const uint64_t(*)[2])loose);
	for (size_t i = 0; i < r->nrows && !err; i++)
		err = nest_settle(r, i, &v[i]);
	free(loose);
	for (size_t i = 0; i < r->nrows && !err; i++)
		for (size_t k = 0; k < v[i].nparts; k++) {
			const struct xp_nest_part *p = &v[i].parts[k];
			struct xp_nest *in;

			if (p->parent < 0)
				continue;
			in = &v[p->parent];
			in->callees_cost = xp_sat_add(in->callees_cost, p->cost);
			in->callees_observed = xp_sat_add(in->callees_observed, p->observed);
		}
	for (size_t i = 0; i < r->nrows && !err; i++) {
		v[i].self_cost = sub_floor0(r->rows[i].cost, v[i].callees_cost);
		v[i].self_observed = sub_floor0(r->rows[i].fin.observed, v[i].callees_observed);
	}
	if (err) {
		xp_nest_free(v, v ? r->nrows : 0);
		return err;
	}
	*out = v;
	return 0;
}

void xp_nest_free(struct xp_nest *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].parts);
	free(v);
}

bool xp_nest_any(const struct xp_nest *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].nparts; k++)
			if (v[i].parts[k].parent >= 0 && v[i].parts[k].evaluations)
				return true;
	return false;
}

/* "(12.3%)" of the run total, or "" without one. */
static void nest_share(char *buf, size_t size, const struct xp_report *r, uint64_t v)
{
	double share = r->run_total ? (double)v / (double)r->run_total : 0;

	if (!r->run_total)
		buf[0] = '\0';
	else if (share > 0 && share < 0.0005)
		snprintf(buf, size, " (<0.1%%)");
	else
		snprintf(buf, size, " (%.1f%%)", share * 100.0);
}

int xp_nest_notes(struct xp_table *t, const struct xp_report *r, const struct xp_nest *v, size_t i)
{
	const struct xp_nest *n = &v[i];
	char a[XP_U64_BUF], b[XP_U64_BUF], c[XP_U64_BUF], sa[16], sb[16], *line;
	bool inside = false;

	for (size_t k = 0; k < n->nparts; k++)
		inside = inside || (n->parts[k].parent >= 0 && n->parts[k].evaluations);
	if (n->callees_cost || n->callees_observed) {
		nest_share(sa, sizeof(sa), r, n->self_cost);
		nest_share(sb, sizeof(sb), r, n->self_observed);
		if (asprintf(&line,
			     "    self   cost %s%s  observed %s%s: less the hooked functions that "
			     "ran inside it",
			     xp_fmt_u64(a, n->self_cost), sa, xp_fmt_u64(b, n->self_observed),
			     sb) < 0)
			return -ENOMEM;
		xp_table_note(t, line);
		free(line);
	}
	for (size_t k = 0; inside && k < n->nparts; k++) {
		const struct xp_nest_part *p = &n->parts[k];
		const struct xp_row *in = p->parent >= 0 ? &r->rows[p->parent] : NULL;

		if (asprintf(&line, "    %s%s%s%s   evaluations %s  cost %s  observed %s",
			     in ? "in " : "in no hooked function", in ? in->symbol : "",
			     in && in->object[0] ? "@" : "", in ? in->object : "",
			     xp_fmt_u64(a, p->evaluations), xp_fmt_u64(b, p->cost),
			     xp_fmt_u64(c, p->observed)) < 0)
			return -ENOMEM;
		xp_table_note(t, line);
		free(line);
	}
	return t->err;
}
