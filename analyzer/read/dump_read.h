/* SPDX-License-Identifier: MIT */
/*
 * dump_read: one dump file read into memory and validated.  After a
 * successful read every offset, count and index in it has been checked, so
 * the pointers below may be used without further checks.
 */
#ifndef XP_DUMP_READ_H
#define XP_DUMP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extprof/dump.h"
#include "util/err.h"

/* Refuse files larger than this: no dump is, and we read it whole. */
#define XP_DUMP_MAX_SIZE (1ull << 31)

/* A declaration of version 1: struct extprof_dump_decl up to negative. */
#define XP_DUMP_V1_DECL_SIZE 112u

struct xp_dump {
	char *path; /* as named in messages */
	unsigned char *buf;
	size_t size;

	const struct extprof_dump_header *hdr;
	const struct extprof_dump_section *sections;
	const struct extprof_dump_decl *decls; /* version 1: a copy in version 2's layout */
	uint64_t ndecls;
	uint32_t decl_size; /* in the file: XP_DUMP_V1_DECL_SIZE for version 1 */
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
 * Read @name relative to @dirfd (AT_FDCWD for a path) into @d and validate
 * it.  @nofollow refuses a symbolic link.  @path is what messages call it.
 * 0, or -errno with @e describing the defect.
 */
int xp_dump_read(struct xp_dump *d, int dirfd, const char *name, const char *path, bool nofollow,
		 struct xp_err *e);

/*
 * Did the image that wrote @h end cleanly: an exit (COMPLETE), or an exec
 * (EXEC: its counts are whole, the new image writes dumps of its own)?
 */
static inline bool xp_dump_finished(const struct extprof_dump_header *h)
{
	return h->flags & (EXTPROF_DUMP_F_COMPLETE | EXTPROF_DUMP_F_EXEC | EXTPROF_DUMP_F_EXIT_NOW);
}

/* Validate @size bytes at @buf, which @d takes over (freed by xp_dump_free). */
int xp_dump_parse(struct xp_dump *d, void *buf, size_t size, const char *path, struct xp_err *e);

void xp_dump_free(struct xp_dump *d);

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

/*
 * The start of a file of @size bytes, @have of which (the header's size, or
 * the whole file if shorter) are at @buf: is it a dump, whole, before it is
 * read whole?  0; -EINPROGRESS for a dump being created (empty, or no magic
 * yet); -EINVAL.  @e set.
 */
int xp_dump_check_start(const void *buf, size_t have, uint64_t size, const char *path,
			struct xp_err *e);

/*
 * Validation steps, in dump_check_*.c; each returns 0 or -EINVAL with @e set
 * (-EINPROGRESS from the header's: a dump being created).
 */
int xp_dump_check_header(struct xp_dump *d, struct xp_err *e);
int xp_dump_check_sections(struct xp_dump *d, struct xp_err *e);
int xp_dump_upgrade_decls(struct xp_dump *d, struct xp_err *e); /* version 1's, copied */
int xp_dump_check_decls(struct xp_dump *d, struct xp_err *e);	/* sets d->order */
int xp_dump_check_hist(const struct xp_dump *d, struct xp_err *e);
int xp_dump_check_callers(const struct xp_dump *d, struct xp_err *e);

/* Compare declarations @i and @j by (kind, symbol, object). */
int xp_dump_decl_cmp(const struct xp_dump *d, uint32_t i, uint32_t j);
/* Indices of the declarations sorted by (kind, symbol, object); free() it. */
int xp_dump_decl_order(const struct xp_dump *d, uint32_t **out);

/* Is @off a NUL-terminated string inside STRINGS? */
bool xp_dump_str_ok(const struct xp_dump *d, uint64_t off);

#endif
