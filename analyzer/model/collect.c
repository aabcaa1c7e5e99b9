// SPDX-License-Identifier: MIT
/* collect: turn a dump's raw records into per-declaration accumulators. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/collect.h"
#include "util/num.h"

/*
 * A process that did not finish (crash, signal, _exit) left its open
 * activations in "open": they never returned, so they are abandoned.
 */
static void collect_fields(struct xp_acc *a, const struct extprof_dump_decl *x, bool finished)
{
	*a = (struct xp_acc){
		.evaluations = x->evaluations,
		.floor = x->floor,
		.hits = x->floor_hits,
		.sum = x->sum,
		.max = x->max,
		.recursive = x->recursive,
		.abandoned = finished ? x->abandoned : xp_sat_add(x->abandoned, x->open),
		.outside = x->outside,
		.negative = x->negative,
	};
}

/*
 * A declaration flagged HIST_MEMORY (its row was in the shim's memory, and
 * this is the live file) or HIST_LOST (some deltas found no row) has fewer
 * deltas in its histogram than evaluations: the difference is said.
 */
static void collect_hist_lost(struct xp_acc *a, const struct extprof_dump_decl *x)
{
	uint64_t n = 0;

	if (!(x->flags & (EXTPROF_DECL_F_HIST_MEMORY | EXTPROF_DECL_F_HIST_LOST)))
		return;
	for (size_t i = 0; i < a->hist.n; i++)
		n = xp_sat_add(n, a->hist.bins[i].count);
	a->hist_lost = a->evaluations > n ? a->evaluations - n : 0;
}

/* A live dump's rows: version 1's, one per declaration; version 2's, those given. */
static int collect_rows(const struct xp_dump *d, struct xp_acc *accs)
{
	for (uint64_t i = 0; i < d->ndecls; i++) {
		const uint64_t *row =
			d->dense ? d->dense + i * EXTPROF_HIST_BUCKETS : xp_dump_row(d, i);
		struct xp_hist *h = &accs[i].hist;
		size_t n = 0;

		for (uint32_t b = 0; row && b < EXTPROF_HIST_BUCKETS; b++)
			n += row[b] != 0;
		if (!n)
			continue;
		h->bins = malloc(n * sizeof(*h->bins));
		if (!h->bins)
			return -ENOMEM;
		for (uint32_t b = 0; b < EXTPROF_HIST_BUCKETS; b++)
			if (row[b])
				h->bins[h->n++] = (struct xp_hbin){b, row[b]};
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct extprof_dump_hist_entry *x = *(const struct extprof_dump_hist_entry *const *)a;
	const struct extprof_dump_hist_entry *y = *(const struct extprof_dump_hist_entry *const *)b;

	if (x->decl != y->decl)
		return x->decl < y->decl ? -1 : 1;
	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* Append one entry to its declaration's histogram, adding to a repeated bucket. */
static void collect_entry(struct xp_acc *accs, const struct extprof_dump_hist_entry *e)
{
	struct xp_hist *h = &accs[e->decl].hist;

	if (h->n && h->bins[h->n - 1].bucket == e->bucket)
		h->bins[h->n - 1].count = xp_sat_add(h->bins[h->n - 1].count, e->count);
	else
		h->bins[h->n++] = (struct xp_hbin){e->bucket, e->count};
}

static int collect_sparse(const struct xp_dump *d, struct xp_acc *accs)
{
	const struct extprof_dump_hist_entry **e;
	size_t n = 0, *per = calloc(d->ndecls + 1, sizeof(*per));
	int err = -ENOMEM;

	e = malloc((d->nsparse + 1) * sizeof(*e));
	if (!e || !per)
		goto out;
	for (uint64_t i = 0; i < d->nsparse; i++)
		if (d->sparse[i].count) {
			e[n++] = &d->sparse[i];
			per[d->sparse[i].decl]++;
		}
	/* the shim writes them in order: sort only when they are not */
	for (size_t i = 1; i < n; i++)
		if (cmp_entry(&e[i - 1], &e[i]) > 0) {
			qsort(e, n, sizeof(*e), cmp_entry);
			break;
		}
	for (uint64_t i = 0; i < d->ndecls; i++) {
		if (per[i] && !(accs[i].hist.bins = malloc(per[i] * sizeof(struct xp_hbin))))
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		collect_entry(accs, e[i]);
	err = 0;
out:
	free(e);
	free(per);
	return err;
}

/*
 * One frame's name: what a compact dump named it ("fn+0x1d@obj"), or, in a
 * live dump (symbol 0), its raw address.
 */
static int chain_frame(char *buf, size_t size, const struct xp_dump *d,
		       const struct extprof_dump_caller *c, uint32_t k)
{
	const char *name = xp_dump_str(d, c->symbol[k]);

	if (c->symbol[k] && name[0])
		return snprintf(buf, size, "%s", name);
	return snprintf(buf, size, "0x%llx", (unsigned long long)c->pc[k]);
}

/* The key of a chain: its frames' names, each NUL-terminated, one after another. */
static int chain_key(const struct xp_dump *d, const struct extprof_dump_caller *c, char **key,
		     size_t *len)
{
	size_t n = 0, total = 0;
	char *k;

	for (uint32_t i = 0; i < c->depth; i++)
		total += (size_t)chain_frame(NULL, 0, d, c, i) + 1;
	k = malloc(total + 1);
	if (!k)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->depth; i++)
		n += (size_t)chain_frame(k + n, total + 1 - n, d, c, i) + 1;
	k[n] = '\0';
	*key = k;
	*len = n;
	return 0;
}

/* Slots without evaluations are free (or being filled in a live dump): skipped. */
static int collect_callers(const struct xp_dump *d, struct xp_acc *accs)
{
	int err = 0;

	for (uint64_t i = 0; i < d->ncallers && !err; i++) {
		const struct extprof_dump_caller *c = &d->callers[i];
		struct xp_chain x = {
			.depth = c->depth,
			.evaluations = c->evaluations,
			.floor = c->floor,
			.hits = c->floor_hits,
			.sum = c->sum,
		};

		if (!c->evaluations)
			continue;
		err = chain_key(d, c, &x.key, &x.keylen);
		if (!err)
			err = xp_chains_put(&accs[c->decl].chains, &x);
		free(x.key);
	}
	return err;
}

/*
 * Version 3's nesting: the declaration its nested evaluations ran in, as a
 * chain of one frame named by its key (kind, symbol, object), or of none
 * when they ran in several (or the index is not one of this dump's: a
 * declaration a live dump had not published yet).
 */
static int collect_nesting(const struct xp_dump *d, uint64_t i, struct xp_acc *a)
{
	const struct extprof_dump_decl *x = &d->decls[i], *p;
	struct xp_chain c = {
		.evaluations = x->nested, .floor = EXTPROF_FLOOR_NONE, .sum = x->nested_sum};
	char buf[1024];
	int n, err;

	a->inner = x->inner;
	a->inner_sum = x->inner_sum;
	if (!x->nested)
		return 0;
	if (x->parent && x->parent != EXTPROF_PARENT_SEVERAL && x->parent - 1 < d->ndecls &&
	    x->parent - 1 != i) {
		p = &d->decls[x->parent - 1];
		n = snprintf(buf, sizeof(buf), "%s\x1f%s\x1f%s", xp_dump_str(d, p->kind),
			     xp_dump_str(d, p->symbol), xp_dump_str(d, p->object));
		c.key = (size_t)n < sizeof(buf) ? buf : NULL;
		if (!c.key && asprintf(&c.key, "%s\x1f%s\x1f%s", xp_dump_str(d, p->kind),
				       xp_dump_str(d, p->symbol), xp_dump_str(d, p->object)) < 0)
			return -ENOMEM;
		c.keylen = (size_t)n;
		c.depth = 1;
	} else {
		c.key = buf;
		buf[0] = '\0';
	}
	err = xp_chains_put(&a->parents, &c);
	if (c.key != buf)
		free(c.key);
	return err;
}

int xp_collect(const struct xp_dump *d, struct xp_acc *accs)
{
	int err = 0;

	for (uint64_t i = 0; i < d->ndecls; i++) {
		collect_fields(&accs[i], &d->decls[i], xp_dump_finished(d->hdr));
		/* a deterministic counter's floor is exact as it is */
		if (!(d->hdr->counter_flags & EXTPROF_COUNTER_F_DETERMINISTIC))
			accs[i].step = d->hdr->resolution;
	}
	for (uint64_t i = 0; i < d->ndecls && !err && d->hdr->version >= 3; i++)
		err = collect_nesting(d, i, &accs[i]);
	if (!err)
		err = d->dense || d->rows ? collect_rows(d, accs) : collect_sparse(d, accs);
	for (uint64_t i = 0; !err && i < d->ndecls; i++)
		collect_hist_lost(&accs[i], &d->decls[i]);
	if (!err)
		err = collect_callers(d, accs);
	if (err)
		for (uint64_t i = 0; i < d->ndecls; i++)
			xp_acc_free(&accs[i]);
	return err;
}
