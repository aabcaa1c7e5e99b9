/* SPDX-License-Identifier: MIT */
/*
 * nest: where each declaration of a report ran, inside which declaration's
 * activation (its parent) or inside none (the top), and what it did
 * outside the declarations that ran inside it (its self): what the text
 * report says under a row, and what the exports draw as stacks
 * (report_nest.c).  Also the frames of caller chains, split into function
 * and object, and the rows by name, which both need.
 */
#ifndef XP_NEST_H
#define XP_NEST_H

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

/* The rows of a report by name: (symbol, object), and (kind, symbol, object, executable). */
struct xp_decl_index {
	struct xp_decl_name *by_name; /* "symbol\x1fobject": the first row of that name */
	struct xp_decl_name *by_key;  /* "kind\x1fsymbol\x1fobject\x1fexecutable" */
};

/* Index the rows of @r: 0 or -ENOMEM. */
int xp_decl_index_build(struct xp_decl_index *x, const struct xp_report *r);
/* The row of the declaration frame @f is in, or -1 when it is not one. */
ssize_t xp_decl_index_find(const struct xp_decl_index *x, const struct xp_frame *f);
/* The row of nesting key @key ("kind\x1fsymbol\x1fobject") run by executable @exe, or -1. */
ssize_t xp_decl_index_key(const struct xp_decl_index *x, const char *key, size_t len,
			  const char *exe);
/* Free what xp_decl_index_build made. */
void xp_decl_index_free(struct xp_decl_index *x);

#define XP_NEST_TOP (-1) /* xp_nest_part.parent: inside no declaration */

/* Where some of a declaration's evaluations ran, and what they took. */
struct xp_nest_part {
	ssize_t parent; /* the row whose activations they ran inside, or XP_NEST_TOP */
	uint64_t evaluations;
	uint64_t cost; /* the row's cost, split by evaluations */
	uint64_t observed;
};

/* One row's nesting. */
struct xp_nest {
	struct xp_nest_part *parts; /* the top first (when it has any), then by parent */
	size_t nparts;
	size_t cap;
	uint64_t callees_cost; /* the parts of other rows inside this one */
	uint64_t callees_observed;
	uint64_t self_cost; /* cost less callees_cost, at least 0 */
	uint64_t self_observed;
};

/*
 * The nesting of every row of @r into @out[i] (calloc'd, for rows[i]):
 * from the nesting the shim recorded when @r has it (r->nesting), else
 * from the caller chains, else every evaluation at the top.  The parts of
 * a row add up to its evaluations, cost and observed.  0 or -ENOMEM.
 */
int xp_report_nest(const struct xp_report *r, const struct xp_decl_index *x, struct xp_nest **out);
/* Free the @n nestings of @v, and @v. */
void xp_nest_free(struct xp_nest *v, size_t n);
/* Whether any row of @v (@n of them) ran inside another. */
bool xp_nest_any(const struct xp_nest *v, size_t n);

struct xp_table;
/*
 * The text report's lines under row @i of @v: its self, when hooked
 * functions ran inside it; where it ran, when that was inside another.
 * 0 or -ENOMEM.
 */
int xp_nest_notes(struct xp_table *t, const struct xp_report *r, const struct xp_nest *v, size_t i);

#endif
