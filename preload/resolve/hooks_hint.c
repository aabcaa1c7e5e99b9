// SPDX-License-Identifier: MIT
/*
 * hooks_hint: why an entry found nothing, in the one line that says so.
 * Start-up code, and only for entries that missed: it may read every
 * loaded object's table.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "resolve/hooks_hint.h"
#include "resolve/hooks_table.h"
#include "core/log.h"

#define HINT_NEAREST 3

struct hint_near {
	const char *name[HINT_NEAREST];
	unsigned dist[HINT_NEAREST];
	unsigned n;
};

/* Edit distance (insertions, deletions, substitutions), or > @max when above it. */
static unsigned hint_distance(const char *a, const char *b, unsigned max)
{
	unsigned row[257], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	if (la > 256 || lb > 256 || (la > lb ? la - lb : lb - la) > max)
		return max + 1;
	for (unsigned j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = row[0], least;

		row[0] = i;
		least = row[0];
		for (unsigned j = 1; j <= lb; j++) {
			unsigned up = row[j], v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < least)
				least = v;
		}
		if (least > max)
			return max + 1;
	}
	return row[lb];
}

static void hint_consider(struct hint_near *h, const char *pattern, const char *name, unsigned max)
{
	unsigned d;
	unsigned i;

	for (i = 0; i < h->n; i++) {
		if (!strcmp(h->name[i], name))
			return;
	}
	d = hint_distance(pattern, name, max);
	if (d > max)
		return;
	for (i = h->n; i > 0 && h->dist[i - 1] > d; i--) {
		if (i < HINT_NEAREST) {
			h->name[i] = h->name[i - 1];
			h->dist[i] = h->dist[i - 1];
		}
	}
	if (i < HINT_NEAREST) {
		h->name[i] = name;
		h->dist[i] = d;
		if (h->n < HINT_NEAREST)
			h->n++;
	}
}

/* Which of the loaded objects @w's name is in, when it names none of those searched. */
static const char *hint_other_object(const struct hooks_want *w, const struct elf_object *objs,
				     int n, const struct hooks_table **found)
{
	struct hooks_want any = *w;

	any.object[0] = '\0';
	for (int i = 0; i < n; i++) {
		const struct hooks_table *tab;

		if (w->object[0] && !fnmatch(w->object, objs[i].name, 0))
			continue;
		tab = hooks_table_of(i, &objs[i]);
		for (size_t k = 0; tab && k < tab->tab.nsyms; k++) {
			if (hooks_want_matches(&any, &tab->tab.syms[k])) {
				*found = tab;
				return objs[i].name;
			}
		}
	}
	return NULL;
}

/* The versions @name has in @tab, into @buf ("GLIBC_2.14 (the default), GLIBC_2.2.5"). */
static unsigned hint_versions(const struct functab *t, const char *name, char *buf, size_t len)
{
	unsigned n = 0;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < t->nsyms; k++) {
		const struct functab_sym *s = &t->syms[k];
		int w;

		if (strcmp(s->name, name) || !s->version)
			continue;
		w = snprintf(buf + used, len - used, "%s%s%s", n ? ", " : "", s->version,
			     s->hidden ? "" : " (the default)");
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
		n++;
	}
	return n;
}

void hooks_hint_no_match(const struct hooks_want *want, const struct elf_object *objs, int nobjs)
{
	char text[700], where[600], extra[700] = "", versions[400];
	struct hint_near near = {{NULL}, {0}, 0};
	unsigned max = (unsigned)strlen(want->pattern) / 3 + 1, searched = 0;
	const struct hooks_table *other = NULL;
	const char *in_other;
	size_t used = 0;

	hooks_want_text(want, text, sizeof(text));
	where[0] = '\0';
	for (int i = 0; i < nobjs; i++) {
		const struct hooks_table *tab;
		unsigned nv;

		if (want->object[0] ? fnmatch(want->object, objs[i].name, 0) : objs[i].is_shim)
			continue;
		if (searched < 6)
			used += (size_t)snprintf(where + used, sizeof(where) - used, "%s%s",
						 searched ? ", " : "", objs[i].name);
		else if (searched == 6)
			used += (size_t)snprintf(where + used, sizeof(where) - used, ", ...");
		if (used >= sizeof(where))
			used = sizeof(where) - 1;
		searched++;
		tab = hooks_table_of(i, &objs[i]);
		if (!tab)
			continue;
		/* the name is there, under versions the entry did not ask for */
		if (!want->glob && !extra[0] &&
		    (nv = hint_versions(&tab->tab, want->pattern, versions, sizeof(versions))))
			snprintf(extra, sizeof(extra),
				 "; %s has version%s %s: name one as %s@VERSION@%s", want->pattern,
				 nv > 1 ? "s" : "", versions, want->pattern, objs[i].name);
		for (size_t k = 0; !want->glob && k < tab->tab.nsyms; k++)
			hint_consider(&near, want->pattern, tab->tab.syms[k].name, max);
	}
	if (!extra[0] && want->object[0] &&
	    (in_other = hint_other_object(want, objs, nobjs, &other))) {
		snprintf(extra, sizeof(extra), "; it is in %s: %s:%s@%s", in_other, want->kind,
			 want->pattern, in_other);
	}
	if (!extra[0] && near.n) {
		used = (size_t)snprintf(extra, sizeof(extra), "; nearest:");
		for (unsigned i = 0; i < near.n && used < sizeof(extra); i++)
			used += (size_t)snprintf(extra + used, sizeof(extra) - used, "%s %s",
						 i ? "," : "", near.name[i]);
	}
	(void)other;
	log_msg("hook %s: no function matches in %s%s%s", text,
		want->object[0] ? ""
		: searched > 1	? "the program and its objects: "
				: "",
		where, extra);
}
