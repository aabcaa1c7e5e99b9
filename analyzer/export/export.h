/* SPDX-License-Identifier: MIT */
/*
 * export: what the writers of other tools' formats share (callgrind,
 * pprof, folded stacks, the HTML page).  All of them name functions by
 * (function, object), the declarations' and their callers' alike, and all
 * draw the same stacks (stacks.c), so that each shows the share of the run
 * the text report shows: a declaration's cost holds what the hooked
 * functions it calls cost (a delta is measured around the whole call),
 * and those are drawn under it, not beside it.
 */
#ifndef XP_EXPORT_H
#define XP_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uthash.h>

#include "report/nest.h"
#include "report/report.h"

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

/*
 * The stacks the exports draw: a tree whose root has no frame, whose
 * nodes are declarations (a row of the report) and the callers the chains
 * recorded between them, built from the report's nesting (report/nest.h).
 * A declaration's node lies under the node of the declaration it ran
 * inside (or under the root), with the callers its chains name between;
 * its figures are the part of the row that ran there, spread over that
 * parent's nodes in proportion to theirs.  So a node's total (with its
 * descendants) is inclusive, its self what it did outside the hooked
 * functions under it, every row's nodes add up to its figures, and a
 * last child of the root, "(not hooked)", holds what the run spent
 * outside every hooked function: the totals are the run total's.  With
 * --by, each group is a frame under the root ("alpha@host"), its rows'
 * tree under it, with a "(not hooked)" of its own: what its processes
 * spent outside.
 */
#define XP_STACK_VALUES 3 /* cost, evaluations, observed */
enum { XP_STACK_COST, XP_STACK_EVALUATIONS, XP_STACK_OBSERVED };

struct xp_stack_node {
	size_t parent;	/* the root is node 0, its own parent */
	ssize_t row;	/* the declaration, or -1: a caller from the chains, or a pseudo frame */
	ssize_t group;	/* its --by group (an index of the report's groups), -1: none */
	const char *fn; /* the frame's function and object: views, not NUL-terminated */
	size_t fn_len;
	const char *obj;
	size_t obj_len;
	size_t depth;			  /* frames from the root */
	uint64_t self[XP_STACK_VALUES];	  /* evaluations: the declaration's own, here */
	uint64_t total[XP_STACK_VALUES];  /* self and every descendant's */
	long double acc[XP_STACK_VALUES]; /* self, while it is built */
	size_t first_child, next_sibling; /* 0: none */
	size_t last_child;
};

struct xp_stack_link;

struct xp_stacks {
	struct xp_stack_node *v; /* v[0] the root; a node comes after its parent */
	size_t n, cap;
	struct xp_stack_link *by_key; /* children by (parent, what they are) */
	struct xp_intern names;	      /* "function\x1fobject" of callers' frames */
};

/* The stacks of @r: 0 or -ENOMEM. */
int xp_stacks_build(struct xp_stacks *s, const struct xp_report *r);
/* Free what xp_stacks_build made. */
void xp_stacks_free(struct xp_stacks *s);

#define XP_STACK_NOT_HOOKED "(not hooked)"
#define XP_STACK_OTHER	    "(other callers)"

/* callgrind's format (report_callgrind.c), for callgrind_annotate and KCachegrind. */
int xp_report_callgrind(const struct xp_report *r, FILE *out);
/* pprof's profile.proto, gzipped (report_pprof.c), for go tool pprof. */
int xp_report_pprof(const struct xp_report *r, FILE *out);
/* Collapsed stacks (report_folded.c), for flamegraph.pl and speedscope. */
int xp_report_folded(const struct xp_report *r, FILE *out);
/* One self-contained HTML page (report_html.c): the table and a flame graph. */
int xp_report_html(const struct xp_report *r, FILE *out);

/* Print @r onto @out in the format its options name (colour only for a terminal). */
int xp_report_print(const struct xp_report *r, FILE *out);
/* Print @r onto @dflt, or into o->output once whole (util/out.h): 0 or -errno with @e set. */
int xp_report_write(const struct xp_report *r, const struct xp_report_opts *o, FILE *dflt,
		    struct xp_err *e);

#endif
