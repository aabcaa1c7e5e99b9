/* SPDX-License-Identifier: MIT */
/*
 * dump: one dump file in memory (struct xp_dump), and what its readers ask
 * of it.  Once xp_dump_parse (dump_read.h) has accepted it, every offset,
 * count and index in it has been checked, so the pointers below may be used
 * without further checks.
 */
#ifndef XP_DUMP_H
#define XP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "extprof/dump.h"

/* A declaration of version 1: struct extprof_dump_decl up to negative. */
#define XP_DUMP_V1_DECL_SIZE 112u
/* A declaration of version 2: up to row, and 20 bytes reserved (0), where version 3's nesting is.
 */
#define XP_DUMP_V2_DECL_SIZE 136u

struct xp_dump {
	char *path; /* as named in messages */
	unsigned char *buf;
	size_t size;

	const struct extprof_dump_header *hdr;
	const struct extprof_dump_section *sections;
	const struct extprof_dump_decl *decls; /* versions 1 and 2: a copy in the current layout */
	uint64_t ndecls;
	uint32_t decl_size; /* in the file: XP_DUMP_V1_DECL_SIZE, _V2_ for versions 1, 2 */
	const char *strings;
	uint64_t nstrings;
	const uint64_t *dense; /* version 1's live dumps: ndecls * EXTPROF_HIST_BUCKETS, or NULL */
	const uint64_t *rows;  /* version 2's: HIST_ROWS, nrows * EXTPROF_HIST_BUCKETS, or NULL */
	uint64_t nrows;
	const struct extprof_dump_hist_entry *sparse;
	uint64_t nsparse;
	const struct extprof_dump_caller *callers;
	uint64_t ncallers;
	uint32_t *order; /* declarations by (kind, symbol, object), from the checks */
	struct extprof_dump_decl *decls_v1; /* the copy, owned */
};

/*
 * Did the image that wrote @h end cleanly: an exit (COMPLETE), or an exec
 * (EXEC: its counts are whole, the new image writes dumps of its own)?
 */
static inline bool xp_dump_finished(const struct extprof_dump_header *h)
{
	return h->flags & (EXTPROF_DUMP_F_COMPLETE | EXTPROF_DUMP_F_EXEC | EXTPROF_DUMP_F_EXIT_NOW);
}

/*
 * The histogram row of declaration @i in the file (version 2's live dumps),
 * or NULL: none yet, or one that is not in this file.
 */
static inline const uint64_t *xp_dump_row(const struct xp_dump *d, uint64_t i)
{
	uint32_t row = d->decls[i].row;

	return d->rows && row && row < d->nrows ? d->rows + (size_t)row * EXTPROF_HIST_BUCKETS
						: NULL;
}

/* A string of the STRINGS section, already checked by xp_dump_parse. */
static inline const char *xp_dump_str(const struct xp_dump *d, uint32_t off)
{
	return d->strings + off;
}

/* Is @off a NUL-terminated string inside STRINGS? */
static inline bool xp_dump_str_ok(const struct xp_dump *d, uint64_t off)
{
	return off < d->nstrings && memchr(d->strings + off, '\0', d->nstrings - off);
}

#endif
