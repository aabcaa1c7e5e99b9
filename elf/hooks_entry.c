// SPDX-License-Identifier: MIT
/* hooks_entry: split an entry's pattern, version and object; match a symbol. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "hooks_entry.h"

void hooks_want_parse(struct hooks_want *want, const struct spec_entry *entry)
{
	const char *obj = entry->object, *at;
	char *end;

	memset(want, 0, sizeof(*want));
	want->kind = entry->kind;
	want->pattern = entry->pattern;
	/* spec.c split at the first '@': what follows may hold a version */
	if (obj[0] == '@') {
		want->default_only = true;
		obj++;
	}
	at = strchr(obj, '@');
	if (at || want->default_only) {
		size_t n = at ? (size_t)(at - obj) : strlen(obj);

		if (n >= sizeof(want->version))
			n = sizeof(want->version) - 1;
		memcpy(want->version, obj, n);
		want->version[n] = '\0';
		obj = at ? at + 1 : "";
	}
	snprintf(want->object, sizeof(want->object), "%s", obj);
	want->glob = strpbrk(want->pattern, "*?[") != NULL;
	if (strncmp(want->pattern, "0x", 2))
		return;
	want->offset = true;
	want->off = strtoull(want->pattern + 2, &end, 16);
	if (*end == '!') {
		want->forced = true;
		end++;
	}
	want->bad_offset = end == want->pattern + 2 || *end;
}

/*
 * A version that is 0xOFFSET: one of several functions of the same name,
 * named as its declaration is (functab_sym_name): the one at that offset.
 */
static bool hooks_want_homonym(const struct hooks_want *w, const struct functab_sym *s,
			       bool *matches)
{
	char *end;
	unsigned long long off;

	if (strncmp(w->version, "0x", 2))
		return false;
	off = strtoull(w->version + 2, &end, 16);
	if (end == w->version + 2 || *end)
		return false;
	*matches = s->value == off;
	return true;
}

/* Whether @s may answer to @w whatever its name: its version or offset, and no .cold part. */
static bool hooks_want_admits(const struct hooks_want *w, const struct functab_sym *s)
{
	bool at;

	if (hooks_want_homonym(w, s, &at)) {
		if (!at)
			return false;
	} else if (w->version[0]) {
		if (!s->version || fnmatch(w->version, s->version, 0))
			return false;
		if (w->default_only && s->hidden)
			return false;
	} else if (s->hidden) {
		/* a plain name is the default version, as the dynamic linker binds it */
		return false;
	}
	/* a .cold part is a branch target of its function, not a function */
	return !strstr(s->name, ".cold");
}

/* C++: "ns::fn" of @name into @buf (the size every caller gives), or false. */
static bool hooks_qualified(const char *name, char buf[HOOKS_QUALIFIED_MAX])
{
	return name[0] == '_' && name[1] == 'Z' &&
	       demangle_qualified(name, buf, HOOKS_QUALIFIED_MAX);
}

bool hooks_want_matches(const struct hooks_want *want, const struct functab_sym *sym)
{
	char qualified[HOOKS_QUALIFIED_MAX];

	if (!hooks_want_admits(want, sym))
		return false;
	if (!fnmatch(want->pattern, sym->name, 0))
		return true;
	/* C++: "ns::fn" matches too; the symbol stays mangled, and unique */
	return hooks_qualified(sym->name, qualified) && !fnmatch(want->pattern, qualified, 0);
}

/* The same, with @s's qualified name known (@qualified, NULL when it has none). */
static bool hooks_want_matches_known(const struct hooks_want *w, const struct functab_sym *s,
				     const char *qualified)
{
	return hooks_want_admits(w, s) && (!fnmatch(w->pattern, s->name, 0) ||
					   (qualified && !fnmatch(w->pattern, qualified, 0)));
}

static int hooks_cmp_qualified(const void *a, const void *b, void *arg)
{
	const char *const *q = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(q[x], q[y]);

	return c ? c : (x > y) - (x < y);
}

int hooks_names_make(struct hooks_names *names, struct functab *table)
{
	char qualified[HOOKS_QUALIFIED_MAX];
	int err = 0;

	if (names->made)
		return names->err;
	names->made = true;
	names->qualified = calloc(table->nsyms + 1, sizeof(*names->qualified));
	names->by_qualified = malloc((table->nsyms + 1) * sizeof(*names->by_qualified));
	if (!names->qualified || !names->by_qualified)
		err = -ENOMEM;
	for (size_t k = 0; !err && k < table->nsyms; k++) {
		if (!hooks_qualified(table->syms[k].name, qualified))
			continue;
		names->qualified[k] = functab_intern(table, qualified, &err);
		names->by_qualified[names->nqualified++] = (uint32_t)k;
	}
	if (err) {
		hooks_names_free(names);
		names->made = true;
		names->err = err;
		return err;
	}
	qsort_r(names->by_qualified, names->nqualified, sizeof(*names->by_qualified),
		hooks_cmp_qualified, names->qualified);
	return 0;
}

void hooks_names_free(struct hooks_names *names)
{
	free(names->qualified);
	free(names->by_qualified);
	memset(names, 0, sizeof(*names));
}

/* The first position of t->syms whose name is not below @name. */
static size_t hooks_name_lower(const struct functab *t, const char *name)
{
	size_t lo = 0, hi = t->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first index of n->by_qualified whose qualified name is not below @name. */
static size_t hooks_qualified_lower(const struct hooks_names *n, const char *name)
{
	size_t lo = 0, hi = n->nqualified;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(n->qualified[n->by_qualified[mid]], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every symbol of @t in turn. */
static int hooks_want_scan(const struct hooks_want *w, const struct functab *t,
			   const struct hooks_names *n,
			   int (*fn)(const struct functab_sym *s, void *arg), void *arg)
{
	bool indexed = n->made && !n->err;
	int ret = 0;

	for (size_t k = 0; k < t->nsyms && !ret; k++) {
		const struct functab_sym *s = &t->syms[k];

		if (indexed ? hooks_want_matches_known(w, s, n->qualified[k])
			    : hooks_want_matches(w, s))
			ret = fn(s, arg);
	}
	return ret;
}

static int hooks_cmp_pos(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * A plain name: the symbols of that name (a range of t->syms, which is in
 * order of name) and of that qualified name (a range of n->by_qualified),
 * visited in the table's order, as a pass over every symbol would.
 */
static int hooks_want_each_named(const struct hooks_want *w, const struct functab *t,
				 const struct hooks_names *n,
				 int (*fn)(const struct functab_sym *s, void *arg), void *arg)
{
	size_t a = hooks_name_lower(t, w->pattern), b = a,
	       qa = hooks_qualified_lower(n, w->pattern), qb = qa, k = 0;
	uint32_t *pos;
	int ret = 0;

	while (b < t->nsyms && !strcmp(t->syms[b].name, w->pattern))
		b++;
	while (qb < n->nqualified && !strcmp(n->qualified[n->by_qualified[qb]], w->pattern))
		qb++;
	if (a == b && qa == qb)
		return 0;
	pos = malloc((b - a + qb - qa) * sizeof(*pos));
	if (!pos)
		return hooks_want_scan(w, t, n, fn, arg);
	for (size_t i = a; i < b; i++)
		pos[k++] = (uint32_t)i;
	for (size_t i = qa; i < qb; i++)
		pos[k++] = n->by_qualified[i];
	qsort(pos, k, sizeof(*pos), hooks_cmp_pos);
	for (size_t i = 0; i < k && !ret; i++) {
		if (i && pos[i] == pos[i - 1])
			continue;
		if (hooks_want_matches_known(w, &t->syms[pos[i]], n->qualified[pos[i]]))
			ret = fn(&t->syms[pos[i]], arg);
	}
	free(pos);
	return ret;
}

int hooks_want_each(const struct hooks_want *want, const struct functab *table,
		    const struct hooks_names *names,
		    int (*fn)(const struct functab_sym *sym, void *arg), void *arg)
{
	/* fnmatch takes a pattern without *, ?, [ or \\ as the very string */
	if (names->made && !names->err && !strpbrk(want->pattern, "*?[\\"))
		return hooks_want_each_named(want, table, names, fn, arg);
	return hooks_want_scan(want, table, names, fn, arg);
}

const char *hooks_want_text(const struct hooks_want *want, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s%s%s%s%s%s", want->kind, want->pattern,
		 want->version[0] ? "@" : "", want->default_only ? "@" : "", want->version,
		 want->object[0] ? "@" : "", want->object);
	return buf;
}
