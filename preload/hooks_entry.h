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
#include "spec.h"

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

/* Split @e into @w (which points into @e). */
void hooks_want_parse(struct hooks_want *w, const struct spec_entry *e);

/* Whether @s answers to @w: name (or qualified C++ name) and version. */
bool hooks_want_matches(const struct hooks_want *w, const struct functab_sym *s);

/* The entry as written, for messages: "function:memcpy@GLIBC_2.2.5@libc.so.6". */
const char *hooks_want_text(const struct hooks_want *w, char *buf, size_t len);

#endif
