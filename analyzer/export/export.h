/* SPDX-License-Identifier: MIT */
/*
 * export: what the callgrind and pprof writers share.  Both name functions
 * by (function, object), the declarations' and their callers' alike, and
 * both must not count a declaration's callees twice: a declaration's cost
 * already holds what the hooked functions it calls cost (a delta is
 * measured around the whole call), and the callees' own chains name it as
 * a caller.
 */
#ifndef XP_EXPORT_H
#define XP_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uthash.h>

#include "report/report.h"

/* A frame of a caller chain, split: views into its name. */
struct xp_frame {
	const char *fn; /* "search" of "search+0x1d@checker", "0x2724a" of "0x2724a@libc.so.6" */
	size_t fn_len;
	const char *obj; /* "checker"; "" when the frame names no object (a raw address) */
	size_t obj_len;
};

/* Split a frame name, "function+0xoffset@object" or a raw "0x55d4c3a0b1d". */
void xp_frame_split(const char *name, struct xp_frame *f);

/*
 * Strings interned to ids 1, 2, ... in the order first seen, each kept
 * once: the name tables of both formats.
 */
struct xp_intern_entry {
	char *s; /* NUL-terminated, may hold 0x1f separators */
	size_t len;
	size_t id;
	UT_hash_handle hh;
};

struct xp_intern {
	struct xp_intern_entry *hash;
	struct xp_intern_entry **v; /* v[id - 1] */
	size_t n;
	size_t cap;
};

/* The id of @s (@len bytes), a new one when @fresh is set; 0 when out of memory. */
size_t xp_intern(struct xp_intern *t, const char *s, size_t len, bool *fresh);
/* The id of "@a\x1f@b"; 0 when out of memory. */
size_t xp_intern2(struct xp_intern *t, const char *a, size_t alen, const char *b, size_t blen,
		  bool *fresh);
/* Free the table and its strings. */
void xp_intern_free(struct xp_intern *t);

/* The declarations by (function, object), to tell which frames are hooked. */
struct xp_decl_index {
	struct xp_intern names; /* "symbol\x1fobject" */
	size_t *row_of;		/* per name: its first row (a function hooked under two kinds) */
};

/* Index the rows of @r by (symbol, object): 0 or -ENOMEM. */
int xp_decl_index_build(struct xp_decl_index *x, const struct xp_report *r);
/* The row of the declaration frame @f is in, or -1 when it is not one. */
ssize_t xp_decl_index_find(const struct xp_decl_index *x, const struct xp_frame *f);
/* Free what xp_decl_index_build made. */
void xp_decl_index_free(struct xp_decl_index *x);

/* What the declarations called beneath one declaration cost, by their chains. */
struct xp_nested {
	uint64_t cost;
	uint64_t observed;
};

/*
 * For each row of @r (@out[i] for rows[i], calloc'd): the cost and
 * observed of the chains whose nearest enclosing declaration (the first
 * frame that is one) it is: what it calls, which its own cost holds.  All
 * 0 when no callers were recorded.  0 or -ENOMEM.
 */
int xp_export_nested(const struct xp_report *r, const struct xp_decl_index *x,
		     struct xp_nested **out);

/* @v less @minus, at least 0. */
static inline uint64_t xp_sub_floor0(uint64_t v, uint64_t minus)
{
	return v > minus ? v - minus : 0;
}

/* callgrind's format (report_callgrind.c), for callgrind_annotate and KCachegrind. */
int xp_report_callgrind(const struct xp_report *r, FILE *out);
/* pprof's profile.proto, gzipped (report_pprof.c), for go tool pprof. */
int xp_report_pprof(const struct xp_report *r, FILE *out);

#endif
