/* SPDX-License-Identifier: MIT */
/*
 * hooks_entry: what an entry asks for, its PATTERN[@OBJECT] split the way
 * the docs say (docs/hooking.md, "Versions"):
 *
 *   memcpy                      the default version (memcpy@@GLIBC_2.14)
 *   memcpy@libc.so.6            the same, in libc.so.6 only
 *   memcpy@GLIBC_2.2.5@libc.so.6   that version, in libc.so.6
 *   memcpy@@GLIBC_2.14          that version, which must be the default
 *   memcpy@GLIBC_2.2.5@*        that version, in any object
 *   0x1a2b30@libc.so.6          the function that starts there
 *   0x1a2b35!@libc.so.6         there, though no function starts there
 *   round_and_return@0x43770@libc.so.6   of several functions of that name
 *                               (statics), the one at 0x43770: the name its
 *                               declaration has
 *
 * The object is always last, so a plain name@X is name in object X.
 */
#ifndef EXTPROF_PRELOAD_HOOKS_ENTRY_H
#define EXTPROF_PRELOAD_HOOKS_ENTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "functab.h"

/* One hook entry, KIND:PATTERN[@OBJECT], as the shim's spec.c reads it. */
struct spec_entry {
	char kind[32];
	char pattern[256]; /* a symbol, a glob, or 0xOFFSET */
	char object[256];  /* "" for the default search */
};

struct hooks_want {
	const char *kind;
	const char *pattern;
	char version[128]; /* "" for the default */
	bool default_only; /* @@VERSION: it must be the default */
	char object[256];  /* "" for the default search */
	bool offset;	   /* 0xOFFSET */
	bool forced;	   /* 0xOFFSET!: not a function's start, and meant */
	uint64_t off;
	bool bad_offset; /* 0x... that is not a number */
	bool glob;	 /* the pattern has glob characters */
};

/*
 * One table's names as entries look them up, made once (at the first entry
 * that looks in it) so that an entry costs a lookup, not a pass over every
 * symbol: each C++ symbol's qualified name, demangled once, and the
 * symbols in order of it (the table's syms are already in order of name).
 */
#define HOOKS_QUALIFIED_MAX 256 /* the longest qualified name matched, and its NUL */

struct hooks_names {
	const char **qualified; /* by position in the table's syms: "ns::fn", or NULL */
	uint32_t *by_qualified; /* the positions that have one, by qualified name */
	size_t nqualified;
	bool made;
	int err; /* -ENOMEM: entries look at every symbol, as before */
};

/* Split @entry into @want (which points into @entry). */
void hooks_want_parse(struct hooks_want *want, const struct spec_entry *entry);

/* Whether @sym answers to @want: name (or qualified C++ name) and version. */
bool hooks_want_matches(const struct hooks_want *want, const struct functab_sym *sym);

/* Make @names for @table (its names kept with @table's), once: 0, or -ENOMEM (then lookups scan).
 */
int hooks_names_make(struct hooks_names *names, struct functab *table);
/* Free what hooks_names_make made. */
void hooks_names_free(struct hooks_names *names);

/*
 * @fn for every symbol of @table that answers to @want, in the table's order
 * (hooks_want_matches' verdict, the qualified names read from @names): for a
 * plain name, the symbols of that name or qualified name, found in @names
 * (O(log n)); for a glob, each symbol in turn.  Stops at @fn's first
 * non-zero return, and returns it.
 */
int hooks_want_each(const struct hooks_want *want, const struct functab *table,
		    const struct hooks_names *names,
		    int (*fn)(const struct functab_sym *sym, void *arg), void *arg);

/* The entry as written, for messages: "function:memcpy@GLIBC_2.2.5@libc.so.6". */
const char *hooks_want_text(const struct hooks_want *want, char *buf, size_t len);

#endif
