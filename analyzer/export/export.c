// SPDX-License-Identifier: MIT
/*
 * export: frame names split into function and object, the name tables,
 * and the nested costs the callgrind and pprof writers subtract.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/num.h"
#include "util/vec.h"

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

size_t xp_intern(struct xp_intern *t, const char *s, size_t len, bool *fresh)
{
	struct xp_intern_entry *e;

	*fresh = false;
	HASH_FIND(hh, t->hash, s, len, e);
	if (e)
		return e->id;
	if (XP_GROW(&t->v, &t->cap, t->n, 64))
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return 0;
	e->s = malloc(len + 1);
	if (!e->s) {
		free(e);
		return 0;
	}
	memcpy(e->s, s, len);
	e->s[len] = '\0';
	e->len = len;
	e->id = ++t->n;
	t->v[t->n - 1] = e;
	HASH_ADD_KEYPTR(hh, t->hash, e->s, e->len, e);
	*fresh = true;
	return e->id;
}

size_t xp_intern2(struct xp_intern *t, const char *a, size_t alen, const char *b, size_t blen,
		  bool *fresh)
{
	char buf[512], *key = alen + blen + 1 <= sizeof(buf) ? buf : malloc(alen + blen + 1);
	size_t id;

	*fresh = false;
	if (!key)
		return 0;
	memcpy(key, a, alen);
	key[alen] = 0x1f;
	memcpy(key + alen + 1, b, blen);
	id = xp_intern(t, key, alen + blen + 1, fresh);
	if (key != buf)
		free(key);
	return id;
}

void xp_intern_free(struct xp_intern *t)
{
	HASH_CLEAR(hh, t->hash);
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i]->s);
		free(t->v[i]);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int xp_decl_index_build(struct xp_decl_index *x, const struct xp_report *r)
{
	memset(x, 0, sizeof(*x));
	x->row_of = calloc(r->nrows + 1, sizeof(*x->row_of));
	if (!x->row_of)
		return -ENOMEM;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct xp_row *row = &r->rows[i];
		bool fresh;
		size_t id = xp_intern2(&x->names, row->symbol, strlen(row->symbol), row->object,
				       strlen(row->object), &fresh);

		if (!id)
			return -ENOMEM;
		if (fresh)
			x->row_of[id - 1] = i;
	}
	return 0;
}

ssize_t xp_decl_index_find(const struct xp_decl_index *x, const struct xp_frame *f)
{
	char buf[512], *key;
	size_t n = f->fn_len + 1 + f->obj_len;
	struct xp_intern_entry *e;

	if (!f->obj_len)
		return -1; /* a raw address names no declaration */
	key = n <= sizeof(buf) ? buf : malloc(n);
	if (!key)
		return -1;
	memcpy(key, f->fn, f->fn_len);
	key[f->fn_len] = 0x1f;
	memcpy(key + f->fn_len + 1, f->obj, f->obj_len);
	HASH_FIND(hh, x->names.hash, key, n, e);
	if (key != buf)
		free(key);
	return e ? (ssize_t)x->row_of[e->id - 1] : -1;
}

void xp_decl_index_free(struct xp_decl_index *x)
{
	xp_intern_free(&x->names);
	free(x->row_of);
	x->row_of = NULL;
}

int xp_export_nested(const struct xp_report *r, const struct xp_decl_index *x,
		     struct xp_nested **out)
{
	*out = calloc(r->nrows + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct xp_row *row = &r->rows[i];

		for (size_t k = 0; k < row->nchains; k++) {
			const struct xp_chain *c = row->chains[k];

			for (const char *fr = c->depth ? c->key : NULL; fr;
			     fr = xp_chain_next(c, fr)) {
				struct xp_frame f;
				ssize_t at;

				xp_frame_split(fr, &f);
				at = xp_decl_index_find(x, &f);
				if (at < 0 || (size_t)at == i)
					continue;
				(*out)[at].cost = xp_sat_add((*out)[at].cost, c->cost);
				(*out)[at].observed = xp_sat_add((*out)[at].observed, c->sum);
				break; /* the enclosing one holds it, and its own callers it */
			}
		}
	}
	return 0;
}
