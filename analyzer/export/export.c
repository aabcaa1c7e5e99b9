// SPDX-License-Identifier: MIT
/* export: the name tables the writers share. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/num.h"
#include "util/vec.h"

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
