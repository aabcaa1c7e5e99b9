// SPDX-License-Identifier: MIT
/*
 * demangle: the qualified name of a C++ function, "ns::cls::fn", from its
 * Itanium mangled symbol ("_ZN2ns3cls2fnEi"), so that a hook entry can name
 * a C++ function as a person writes it.  Only plain and nested names (no
 * templates, operators or special names): anything else is left mangled and
 * can still be named that way.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "demangle.h"

/* <length><identifier>, appended to @out; returns the rest or NULL. */
static const char *demangle_source_name(const char *p, char *out, size_t *used, size_t size)
{
	size_t len = 0;

	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		len = len * 10 + (size_t)(*p++ - '0');
	if (!len || strnlen(p, len) < len || *used + len + 3 > size)
		return NULL;
	if (*used) {
		memcpy(out + *used, "::", 2);
		*used += 2;
	}
	memcpy(out + *used, p, len);
	*used += len;
	out[*used] = '\0';
	return p + len;
}

bool demangle_qualified(const char *sym, char *out, size_t size)
{
	const char *p = sym;
	size_t used = 0;

	if (strncmp(p, "_Z", 2) || size < 2)
		return false;
	p += 2;
	out[0] = '\0';
	if (*p != 'N')
		return demangle_source_name(p, out, &used, size) != NULL;
	p++;
	while (*p == 'K' || *p == 'V' || *p == 'r')
		p++; /* cv-qualifiers of a member function */
	while (*p && *p != 'E') {
		if (!strncmp(p, "St", 2)) {
			p = demangle_source_name("3std", out, &used, size) ? p + 2 : NULL;
			if (!p)
				return false;
			continue;
		}
		p = demangle_source_name(p, out, &used, size);
		if (!p)
			return false;
	}
	return *p == 'E' && used;
}
