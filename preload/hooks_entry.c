// SPDX-License-Identifier: MIT
/* hooks_entry: split an entry's pattern, version and object; match a symbol. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "hooks_entry.h"

void hooks_want_parse(struct hooks_want *w, const struct spec_entry *e)
{
	const char *obj = e->object, *at;
	char *end;

	memset(w, 0, sizeof(*w));
	w->kind = e->kind;
	w->pattern = e->pattern;
	/* spec.c split at the first '@': what follows may hold a version */
	if (obj[0] == '@') {
		w->default_only = true;
		obj++;
	}
	at = strchr(obj, '@');
	if (at || w->default_only) {
		size_t n = at ? (size_t)(at - obj) : strlen(obj);

		if (n >= sizeof(w->version))
			n = sizeof(w->version) - 1;
		memcpy(w->version, obj, n);
		w->version[n] = '\0';
		obj = at ? at + 1 : "";
	}
	snprintf(w->object, sizeof(w->object), "%s", obj);
	w->glob = strpbrk(w->pattern, "*?[") != NULL;
	if (strncmp(w->pattern, "0x", 2))
		return;
	w->offset = true;
	w->off = strtoull(w->pattern + 2, &end, 16);
	if (*end == '!') {
		w->forced = true;
		end++;
	}
	w->bad_offset = end == w->pattern + 2 || *end;
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

bool hooks_want_matches(const struct hooks_want *w, const struct functab_sym *s)
{
	char qualified[256];
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
	if (strstr(s->name, ".cold"))
		return false;
	if (!fnmatch(w->pattern, s->name, 0))
		return true;
	/* C++: "ns::fn" matches too; the symbol stays mangled, and unique */
	return s->name[0] == '_' && s->name[1] == 'Z' &&
	       demangle_qualified(s->name, qualified, sizeof(qualified)) &&
	       !fnmatch(w->pattern, qualified, 0);
}

const char *hooks_want_text(const struct hooks_want *w, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s%s%s%s%s%s", w->kind, w->pattern, w->version[0] ? "@" : "",
		 w->default_only ? "@" : "", w->version, w->object[0] ? "@" : "", w->object);
	return buf;
}
