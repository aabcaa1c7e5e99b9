/* SPDX-License-Identifier: MIT */
/*
 * extprof names: what a user writes that the shim and the analyzer must
 * read alike, defined once for both: the KIND of a hook entry (and of a
 * dump's declaration).  Static inline only: the shim includes this without
 * linking anything of the analyzer's.
 */
#ifndef EXTPROF_NAMES_H
#define EXTPROF_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* A kind, as messages spell the rule. */
#define EXTPROF_KIND_SYNTAX "[a-z][a-z0-9_]*"

/*
 * Whether the @n bytes at @k are a kind: a label of the user's choosing
 * ("invariant", "guard", "function", ...), [a-z][a-z0-9_]*, never empty.
 * Plain ASCII ranges, not islower(): the program's locale must not change
 * what the shim accepts.
 */
static inline bool extprof_kind_valid(const char *k, size_t n)
{
	if (!n || k[0] < 'a' || k[0] > 'z')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return false;
	return true;
}

#endif /* EXTPROF_NAMES_H */
