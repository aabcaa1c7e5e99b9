// SPDX-License-Identifier: MIT
/*
 * dump_check_tables: the contents of the sections.  Every string offset
 * lands inside STRINGS on a NUL-terminated string, every declaration,
 * bucket and row index is in range, and no declaration, nor row, appears
 * twice.
 *
 * Cross-field consistency (floor against evaluations, hits against
 * evaluations) is deliberately not checked: a live dump is read while the
 * shim increments its fields one at a time, and a compact one is a copy
 * taken while other threads may still count, so such a mismatch is a race,
 * not corruption.  The merge copes with it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "extprof/names.h"

#include "read/dump_check.h"

static uint64_t sec_offset(const struct xp_dump *d, uint32_t type)
{
	for (uint32_t i = 0; i < d->hdr->nsections; i++)
		if (d->sections[i].type == type)
			return d->sections[i].offset;
	return 0;
}

#define DECL_OFF(i, f)                                                                             \
	(base + (uint64_t)(i) * d->decl_size + offsetof(struct extprof_dump_decl, f))

static int check_decl(const struct xp_dump *d, uint64_t i, uint64_t base, struct xp_err *e)
{
	const struct extprof_dump_decl *x = &d->decls[i];

	if (!xp_dump_str_ok(d, x->kind))
		return xp_err_at(
			e, d->path, DECL_OFF(i, kind),
			"decls[%llu].kind: string offset %u outside STRINGS or unterminated",
			(unsigned long long)i, x->kind);
	if (!xp_dump_str_ok(d, x->symbol))
		return xp_err_at(
			e, d->path, DECL_OFF(i, symbol),
			"decls[%llu].symbol: string offset %u outside STRINGS or unterminated",
			(unsigned long long)i, x->symbol);
	if (!xp_dump_str_ok(d, x->object))
		return xp_err_at(
			e, d->path, DECL_OFF(i, object),
			"decls[%llu].object: string offset %u outside STRINGS or unterminated",
			(unsigned long long)i, x->object);
	if (!extprof_kind_valid(xp_dump_str(d, x->kind), strlen(xp_dump_str(d, x->kind))))
		return xp_err_at(e, d->path, DECL_OFF(i, kind),
				 "decls[%llu].kind is not a kind name (" EXTPROF_KIND_SYNTAX ")",
				 (unsigned long long)i);
	if (!xp_dump_str(d, x->symbol)[0])
		return xp_err_at(e, d->path, DECL_OFF(i, symbol), "decls[%llu].symbol is empty",
				 (unsigned long long)i);
	return 0;
}

static int cmp_decl_key(const void *a, const void *b, void *arg)
{
	return xp_dump_decl_cmp(arg, *(const uint32_t *)a, *(const uint32_t *)b);
}

int xp_dump_decl_cmp(const struct xp_dump *d, uint32_t i, uint32_t j)
{
	const struct extprof_dump_decl *x = &d->decls[i], *y = &d->decls[j];
	int c = strcmp(xp_dump_str(d, x->kind), xp_dump_str(d, y->kind));

	if (!c)
		c = strcmp(xp_dump_str(d, x->symbol), xp_dump_str(d, y->symbol));
	if (!c)
		c = strcmp(xp_dump_str(d, x->object), xp_dump_str(d, y->object));
	return c;
}

int xp_dump_decl_order(const struct xp_dump *d, uint32_t **out)
{
	uint32_t *idx = malloc((d->ndecls + 1) * sizeof(*idx));

	if (!idx)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->ndecls; i++)
		idx[i] = i;
	qsort_r(idx, d->ndecls, sizeof(*idx), cmp_decl_key, (void *)d);
	*out = idx;
	return 0;
}

/*
 * Declarations are keyed by (kind, symbol, object): a repeat would double
 * count.  The order found is kept for the merge (d->order).
 */
static int check_unique(struct xp_dump *d, uint64_t base, struct xp_err *e)
{
	uint32_t *idx;
	int err = xp_dump_decl_order(d, &idx);

	if (err)
		return xp_err_set(e, err, "%s: out of memory", d->path);
	for (uint64_t i = 1; i < d->ndecls && !err; i++) {
		uint32_t lo = idx[i - 1] < idx[i] ? idx[i - 1] : idx[i];
		uint32_t hi = idx[i - 1] < idx[i] ? idx[i] : idx[i - 1];

		if (!xp_dump_decl_cmp(d, lo, hi))
			err = xp_err_at(e, d->path, DECL_OFF(hi, kind),
					"decls[%u] repeats the declaration of decls[%u]", hi, lo);
	}
	if (err)
		free(idx);
	else
		d->order = idx;
	return err;
}

int xp_dump_upgrade_decls(struct xp_dump *d, struct xp_err *e)
{
	const unsigned char *from = (const unsigned char *)d->decls;

	if (d->decl_size == sizeof(struct extprof_dump_decl))
		return 0;
	/* an older version's is the current one without its last fields: those are 0 */
	d->decls_v1 = calloc(d->ndecls + 1, sizeof(*d->decls_v1));
	if (!d->decls_v1)
		return xp_err_set(e, -ENOMEM, "%s: out of memory", d->path);
	for (uint64_t i = 0; i < d->ndecls; i++)
		memcpy(&d->decls_v1[i], from + i * d->decl_size, d->decl_size);
	d->decls = d->decls_v1;
	return 0;
}

int xp_dump_check_decls(struct xp_dump *d, struct xp_err *e)
{
	uint64_t base = sec_offset(d, EXTPROF_SECTION_DECLS);
	int err;

	for (uint64_t i = 0; i < d->ndecls; i++) {
		err = check_decl(d, i, base, e);
		if (err)
			return err;
	}
	return check_unique(d, base, e);
}

/*
 * Rows: a live dump's declaration has none (0), one in HIST_ROWS, its own,
 * or one past them, which this file does not hold: the shim's memory
 * (EXTPROF_DECL_F_HIST_MEMORY), or a row being given while the file was
 * read.  A compact dump has no rows.
 */
static int check_rows(const struct xp_dump *d, struct xp_err *e)
{
	uint64_t base = sec_offset(d, EXTPROF_SECTION_DECLS);
	uint64_t *taken;
	int err = 0;

	if (!d->rows) {
		for (uint64_t i = 0; i < d->ndecls; i++)
			if (d->decls[i].row)
				return xp_err_at(e, d->path, DECL_OFF(i, row),
						 "decls[%llu].row %u in a dump without rows",
						 (unsigned long long)i, d->decls[i].row);
		return 0;
	}
	taken = calloc(d->nrows / 64 + 1, sizeof(*taken));
	if (!taken)
		return xp_err_set(e, -ENOMEM, "%s: out of memory", d->path);
	for (uint64_t i = 0; i < d->ndecls && !err; i++) {
		uint32_t row = d->decls[i].row;

		if (!row || row >= d->nrows)
			continue;
		if (taken[row / 64] & (1ull << (row % 64)))
			err = xp_err_at(e, d->path, DECL_OFF(i, row),
					"decls[%llu].row %u is another declaration's too",
					(unsigned long long)i, row);
		taken[row / 64] |= 1ull << (row % 64);
	}
	free(taken);
	return err;
}

int xp_dump_check_hist(const struct xp_dump *d, struct xp_err *e)
{
	uint64_t base = sec_offset(d, EXTPROF_SECTION_HIST_SPARSE);
	int err = check_rows(d, e);

	if (err)
		return err;

	for (uint64_t i = 0; i < d->nsparse; i++) {
		const struct extprof_dump_hist_entry *h = &d->sparse[i];
		uint64_t at = base + i * sizeof(*h);

		/* Entries with count 0 are padding the writer may leave. */
		if (!h->count)
			continue;
		if (h->decl >= d->ndecls)
			return xp_err_at(
				e, d->path, at + offsetof(struct extprof_dump_hist_entry, decl),
				"hist[%llu].decl %u out of range (%llu declarations)",
				(unsigned long long)i, h->decl, (unsigned long long)d->ndecls);
		if (h->bucket >= EXTPROF_HIST_BUCKETS)
			return xp_err_at(e, d->path,
					 at + offsetof(struct extprof_dump_hist_entry, bucket),
					 "hist[%llu].bucket %u out of range (%u buckets)",
					 (unsigned long long)i, h->bucket, EXTPROF_HIST_BUCKETS);
	}
	return 0;
}

int xp_dump_check_callers(const struct xp_dump *d, struct xp_err *e)
{
	uint64_t base = sec_offset(d, EXTPROF_SECTION_CALLERS);

	for (uint64_t i = 0; i < d->ncallers; i++) {
		const struct extprof_dump_caller *c = &d->callers[i];
		uint64_t at = base + i * sizeof(*c);

		if (c->decl >= d->ndecls)
			return xp_err_at(
				e, d->path, at + offsetof(struct extprof_dump_caller, decl),
				"callers[%llu].decl %u out of range (%llu declarations)",
				(unsigned long long)i, c->decl, (unsigned long long)d->ndecls);
		if (c->depth > EXTPROF_CALLERS_MAX_DEPTH)
			return xp_err_at(
				e, d->path, at + offsetof(struct extprof_dump_caller, depth),
				"callers[%llu].depth %u larger than %u", (unsigned long long)i,
				c->depth, EXTPROF_CALLERS_MAX_DEPTH);
		for (uint32_t k = 0; k < c->depth; k++)
			if (!xp_dump_str_ok(d, c->symbol[k]))
				return xp_err_at(e, d->path,
						 at + offsetof(struct extprof_dump_caller, symbol) +
							 k * sizeof(uint32_t),
						 "callers[%llu].symbol[%u]: string offset %u "
						 "outside STRINGS or unterminated",
						 (unsigned long long)i, k, c->symbol[k]);
	}
	return 0;
}
