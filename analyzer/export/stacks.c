// SPDX-License-Identifier: MIT
/*
 * stacks: the tree every export draws (export.h), from the report's
 * nesting (report/nest.h) and its caller chains.
 *
 *   root
 *    +- main@prog                 a caller, from the chains of the part
 *    |   +- compress@prog         a declaration's part at the top
 *    |       +- sort@prog         its callee's part inside it, spread over
 *    |                            compress's nodes in proportion to theirs
 *    +- (not hooked)              the run total less everything above
 *
 * A part of declaration D inside declaration P (or at the top) is placed
 * under every node of P (the root), each taking the share of the part that
 * node has of P, per figure; between them, the callers that D's chains
 * whose nearest declaration is P (none, for the top) name, farthest first,
 * each chain taking the share of the part its evaluations have among
 * theirs.  What a chain named as "(other callers)" goes under a frame of
 * that name.  A declaration already on the path (two hooked functions
 * that run inside each other in turn), a path past XP_STACKS_DEPTH frames
 * or a tree past XP_STACKS_MAX nodes stops there: what would lie below is
 * counted in the node's self.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/num.h"
#include "util/vec.h"

#define XP_STACKS_DEPTH 128
#define XP_STACKS_MAX	(1u << 20)

struct xp_stack_link {
	struct xp_stack_key {
		size_t parent;
		int64_t what; /* the row, or -(1 + the frame's name id) */
	} key;
	size_t node;
	UT_hash_handle hh;
};

/* What the build needs at hand. */
struct build {
	struct xp_stacks *s;
	const struct xp_report *r;
	struct xp_decl_index x;
	struct xp_nest *nest;
	ssize_t **chain_parent; /* per row and chain: its nearest declaration, or -1 */
	size_t **inside;	/* per row: the (row, part) pairs inside it, two words each */
	size_t *ninside;
	long double (*total)[XP_STACK_VALUES]; /* per row */
	long double (*self)[XP_STACK_VALUES];
};

/* The child of @parent that is row @row, or the frame (@fn, @obj): its index, made when new. */
static int stack_child(struct xp_stacks *s, size_t parent, ssize_t row, const char *fn,
		       size_t fn_len, const char *obj, size_t obj_len, size_t *out)
{
	struct xp_stack_key key;
	struct xp_stack_link *l;
	struct xp_stack_node *n;
	bool fresh;

	memset(&key, 0, sizeof(key));
	key.parent = parent;
	if (row >= 0) {
		key.what = row;
	} else {
		size_t id = xp_intern2(&s->names, fn, fn_len, obj, obj_len, &fresh);

		if (!id)
			return -ENOMEM;
		key.what = -(int64_t)id;
	}
	HASH_FIND(hh, s->by_key, &key, sizeof(key), l);
	if (l) {
		*out = l->node;
		return 0;
	}
	if (s->n >= XP_STACKS_MAX || s->v[parent].depth >= XP_STACKS_DEPTH)
		return -E2BIG;
	if (XP_GROW(&s->v, &s->cap, s->n, 256))
		return -ENOMEM;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->key = key;
	l->node = s->n;
	HASH_ADD(hh, s->by_key, key, sizeof(key), l);
	n = &s->v[s->n];
	memset(n, 0, sizeof(*n));
	*n = (struct xp_stack_node){.parent = parent,
				    .row = row,
				    .fn = fn,
				    .fn_len = fn_len,
				    .obj = obj,
				    .obj_len = obj_len,
				    .depth = s->v[parent].depth + 1};
	if (s->v[parent].last_child)
		s->v[s->v[parent].last_child].next_sibling = s->n;
	else
		s->v[parent].first_child = s->n;
	s->v[parent].last_child = s->n;
	*out = s->n++;
	return 0;
}

/* Is row @row on the path from @node up to the root? */
static bool on_path(const struct xp_stacks *s, size_t node, ssize_t row)
{
	for (; node; node = s->v[node].parent)
		if (s->v[node].row == row)
			return true;
	return false;
}

/* @share of @of, or of what @of's evaluations say when its own figure is 0. */
static long double share_of(const long double share[XP_STACK_VALUES],
			    const long double of[XP_STACK_VALUES], int k)
{
	return of[k] > 0 ? share[k] : share[XP_STACK_EVALUATIONS];
}

static int place(struct build *b, size_t parent, size_t row, const struct xp_nest_part *part,
		 const long double pshare[XP_STACK_VALUES], const long double pof[XP_STACK_VALUES]);

/*
 * Row @row's node under @at takes @share of the row; then what ran inside
 * it, under it.  What cannot be placed (a cycle, the limits) is counted in
 * @fold's self.
 */
static int place_node(struct build *b, size_t at, size_t fold, size_t row,
		      const long double share[XP_STACK_VALUES])
{
	struct xp_stacks *s = b->s;
	const struct xp_row *x = &b->r->rows[row];
	size_t node;
	int err;

	err = on_path(s, at, (ssize_t)row)
		      ? -E2BIG
		      : stack_child(s, at, (ssize_t)row, x->symbol, strlen(x->symbol), x->object,
				    strlen(x->object), &node);
	if (err == -E2BIG) {
		for (int k = 0; k < XP_STACK_VALUES; k++)
			if (k != XP_STACK_EVALUATIONS)
				s->v[fold].acc[k] += share[k] * b->total[row][k];
		return 0;
	}
	if (err)
		return err;
	for (int k = 0; k < XP_STACK_VALUES; k++)
		s->v[node].acc[k] += share[k] * b->self[row][k];
	for (size_t i = 0; i < b->ninside[row] && !err; i++) {
		size_t in = b->inside[row][2 * i], p = b->inside[row][2 * i + 1];

		err = place(b, node, in, &b->nest[in].parts[p], share, b->total[row]);
	}
	return err;
}

/*
 * Row @row's part @part under node @parent, which holds @pshare of its
 * own row (figures @pof; the root: all of everything), through the callers
 * of the chains that lead there.
 */
static int place(struct build *b, size_t parent, size_t row, const struct xp_nest_part *part,
		 const long double pshare[XP_STACK_VALUES], const long double pof[XP_STACK_VALUES])
{
	const struct xp_row *x = &b->r->rows[row];
	long double share[XP_STACK_VALUES], part_of[XP_STACK_VALUES] = {
						    [XP_STACK_COST] = part->cost,
						    [XP_STACK_EVALUATIONS] = part->evaluations,
						    [XP_STACK_OBSERVED] = part->observed,
					    };
	long double weight = 0, small = 0;
	int err = 0;

	for (int k = 0; k < XP_STACK_VALUES; k++) {
		long double of = b->total[row][k] > 0 ? b->total[row][k]
						      : b->total[row][XP_STACK_EVALUATIONS];
		long double mine =
			b->total[row][k] > 0 ? part_of[k] : part_of[XP_STACK_EVALUATIONS];

		share[k] = share_of(pshare, pof, k) * (of > 0 ? mine / of : 1);
		small += share[k] * b->total[row][k];
	}
	/* nothing to draw, but a row never called, at the top, is shown at 0 */
	if (small < 0.5L && (parent || x->fin.evaluations))
		return 0;
	for (size_t k = 0; k < x->nchains; k++)
		if (b->chain_parent[row][k] == part->parent)
			weight += x->chains[k]->evaluations;
	if (weight <= 0)
		return place_node(b, parent, parent, row, share);
	for (size_t k = 0; k < x->nchains && !err; k++) {
		const struct xp_chain *c = x->chains[k];
		const char *frames[EXTPROF_CALLERS_MAX_DEPTH + 1];
		long double w[XP_STACK_VALUES];
		size_t nf = 0, at = parent;

		if (b->chain_parent[row][k] != part->parent || !c->evaluations)
			continue;
		for (const char *fr = c->depth ? c->key : NULL;
		     fr && nf < EXTPROF_CALLERS_MAX_DEPTH; fr = xp_chain_next(c, fr)) {
			struct xp_frame f;
			ssize_t d;

			xp_frame_split(fr, &f);
			d = xp_decl_index_find(&b->x, &f);
			if (d >= 0 && d != (ssize_t)row)
				break; /* the declaration it ran inside: the node above */
			frames[nf++] = fr;
		}
		if (!c->depth)
			frames[nf++] = NULL; /* "(other callers)" */
		while (nf && !err) {
			const char *fr = frames[--nf];
			struct xp_frame f = {XP_STACK_OTHER, strlen(XP_STACK_OTHER), "", 0};

			if (fr)
				xp_frame_split(fr, &f);
			err = stack_child(b->s, at, -1, f.fn, f.fn_len, f.obj, f.obj_len, &at);
		}
		for (int v = 0; v < XP_STACK_VALUES; v++)
			w[v] = share[v] * c->evaluations / weight;
		if (err == -E2BIG)
			err = place_node(b, parent, parent, row, w);
		else if (!err)
			err = place_node(b, at, parent, row, w);
	}
	return err;
}

/* Per row: its figures and self, its chains' nearest declarations, what ran inside it. */
static int build_index(struct build *b)
{
	const struct xp_report *r = b->r;
	size_t n = r->nrows + 1;

	b->chain_parent = calloc(n, sizeof(*b->chain_parent));
	b->inside = calloc(n, sizeof(*b->inside));
	b->ninside = calloc(n, sizeof(*b->ninside));
	b->total = calloc(n, sizeof(*b->total));
	b->self = calloc(n, sizeof(*b->self));
	if (!b->chain_parent || !b->inside || !b->ninside || !b->total || !b->self)
		return -ENOMEM;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct xp_row *x = &r->rows[i];

		b->total[i][XP_STACK_COST] = x->cost;
		b->total[i][XP_STACK_EVALUATIONS] = x->fin.evaluations;
		b->total[i][XP_STACK_OBSERVED] = x->fin.observed;
		b->self[i][XP_STACK_COST] = b->nest[i].self_cost;
		b->self[i][XP_STACK_EVALUATIONS] = x->fin.evaluations;
		b->self[i][XP_STACK_OBSERVED] = b->nest[i].self_observed;
		b->chain_parent[i] = calloc(x->nchains + 1, sizeof(**b->chain_parent));
		if (!b->chain_parent[i])
			return -ENOMEM;
		for (size_t k = 0; k < x->nchains; k++) {
			b->chain_parent[i][k] = -1;
			for (const char *fr = x->chains[k]->depth ? x->chains[k]->key : NULL; fr;
			     fr = xp_chain_next(x->chains[k], fr)) {
				struct xp_frame f;
				ssize_t d;

				xp_frame_split(fr, &f);
				d = xp_decl_index_find(&b->x, &f);
				if (d >= 0 && (size_t)d != i) {
					b->chain_parent[i][k] = d;
					break;
				}
			}
		}
	}
	for (size_t i = 0; i < r->nrows; i++)
		for (size_t p = 0; p < b->nest[i].nparts; p++) {
			ssize_t in = b->nest[i].parts[p].parent;
			size_t *v;

			if (in < 0)
				continue;
			v = realloc(b->inside[in], (b->ninside[in] + 1) * 2 * sizeof(*v));
			if (!v)
				return -ENOMEM;
			b->inside[in] = v;
			v[2 * b->ninside[in]] = i;
			v[2 * b->ninside[in] + 1] = p;
			b->ninside[in]++;
		}
	return 0;
}

static void build_free(struct build *b)
{
	for (size_t i = 0; i < b->r->nrows; i++) {
		if (b->chain_parent)
			free(b->chain_parent[i]);
		if (b->inside)
			free(b->inside[i]);
	}
	free(b->chain_parent);
	free(b->inside);
	free(b->ninside);
	free(b->total);
	free(b->self);
	xp_nest_free(b->nest, b->nest ? b->r->nrows : 0);
	xp_decl_index_free(&b->x);
}

static uint64_t round_u64(long double v)
{
	if (!(v > 0))
		return 0;
	return v >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)llroundl(v);
}

/*
 * Selves rounded, totals added up from the leaves, and "(not hooked)".  A
 * row's nodes are rounded together, each the rounded sum so far less the
 * rounded sum before it, so that they add up to the row's own figures.
 */
static int stacks_settle(struct xp_stacks *s, const struct xp_report *r)
{
	long double(*sofar)[XP_STACK_VALUES] = calloc(r->nrows + 1, sizeof(*sofar));
	size_t rest;
	int err;

	if (!sofar)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < XP_STACK_VALUES; k++) {
			long double *at = s->v[i].row >= 0 ? &sofar[s->v[i].row][k] : NULL;
			uint64_t before = at ? round_u64(*at) : 0;

			if (at)
				*at += s->v[i].acc[k];
			s->v[i].self[k] = at ? round_u64(*at) - before : round_u64(s->v[i].acc[k]);
			s->v[i].total[k] = s->v[i].self[k];
		}
	free(sofar);
	/* a node comes after its parent: from the last, each adds into its parent */
	for (size_t i = s->n; i-- > 1;)
		for (int k = 0; k < XP_STACK_VALUES; k++)
			s->v[s->v[i].parent].total[k] =
				xp_sat_add(s->v[s->v[i].parent].total[k], s->v[i].total[k]);
	if (!r->run_total)
		return 0;
	err = stack_child(s, 0, -1, XP_STACK_NOT_HOOKED, strlen(XP_STACK_NOT_HOOKED), "", 0, &rest);
	if (err)
		return err == -E2BIG ? 0 : err;
	for (int k = 0; k < XP_STACK_VALUES; k++) {
		if (k == XP_STACK_EVALUATIONS)
			continue;
		s->v[rest].self[k] = s->v[rest].total[k] =
			r->run_total > s->v[0].total[k] ? r->run_total - s->v[0].total[k] : 0;
		s->v[0].total[k] = xp_sat_add(s->v[0].total[k], s->v[rest].total[k]);
	}
	return 0;
}

int xp_stacks_build(struct xp_stacks *s, const struct xp_report *r)
{
	struct build b = {.s = s, .r = r};
	long double all[XP_STACK_VALUES] = {1, 1, 1};
	int err;

	memset(s, 0, sizeof(*s));
	err = XP_GROW(&s->v, &s->cap, 0, 256);
	if (err)
		return err;
	memset(&s->v[0], 0, sizeof(s->v[0]));
	s->n = 1;
	err = xp_decl_index_build(&b.x, r);
	if (!err)
		err = xp_report_nest(r, &b.x, &b.nest);
	if (!err)
		err = build_index(&b);
	for (size_t i = 0; i < r->nrows && !err; i++)
		for (size_t p = 0; p < b.nest[i].nparts && !err; p++)
			if (b.nest[i].parts[p].parent == XP_NEST_TOP)
				err = place(&b, 0, i, &b.nest[i].parts[p], all, all);
	if (!err)
		err = stacks_settle(s, r);
	build_free(&b);
	if (err)
		xp_stacks_free(s);
	return err;
}

void xp_stacks_free(struct xp_stacks *s)
{
	struct xp_stack_link *l, *tmp;

	HASH_ITER(hh, s->by_key, l, tmp)
	{
		HASH_DEL(s->by_key, l);
		free(l);
	}
	xp_intern_free(&s->names);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
