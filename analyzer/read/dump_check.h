/* SPDX-License-Identifier: MIT */
/*
 * dump_check: the validation steps xp_dump_parse takes, in order, each in a
 * dump_check_*.c of its own: the start of the file and the header
 * (dump_check_header.c), the section table (dump_check_sections.c), and
 * the sections' contents (dump_check_tables.c).
 */
#ifndef XP_DUMP_CHECK_H
#define XP_DUMP_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "read/dump.h"
#include "util/err.h"

/*
 * The start of a file of @size bytes, @have of which (the header's size, or
 * the whole file if shorter) are at @buf: is it a dump, whole, before it is
 * read whole?  0; XP_DUMP_JOB for the file of an MPI job; -EINPROGRESS for
 * a dump being created (empty, or no magic yet); -EINVAL.  @e set.
 */
int xp_dump_check_start(const void *buf, size_t have, uint64_t size, const char *path,
			struct xp_err *e);

/*
 * Validation steps, in dump_check_*.c; each returns 0 or -EINVAL with @e set
 * (-EINPROGRESS from the header's: a dump being created).
 */
/* The header: magic and version, sizes, strings and fields in range. */
int xp_dump_check_header(struct xp_dump *d, struct xp_err *e);
/*
 * The header of an MPI job's file (read/job.c): the same checks, its flags
 * those of a job, its file whole (@d->buf holds the header, @d->size is the
 * file's).
 */
int xp_dump_check_job_header(struct xp_dump *d, struct xp_err *e);
/* The section table: each section inside the file, each type once, none overlapping. */
int xp_dump_check_sections(struct xp_dump *d, struct xp_err *e);
/* A version 1 dump's declarations, copied into today's layout. */
int xp_dump_upgrade_decls(struct xp_dump *d, struct xp_err *e);
/* The declarations: names, rows and order checked; sets d->order. */
int xp_dump_check_decls(struct xp_dump *d, struct xp_err *e);
/* The histograms: each entry's declaration and bucket in range. */
int xp_dump_check_hist(const struct xp_dump *d, struct xp_err *e);
/* The caller chains: each one's declaration, depth and frame names in range. */
int xp_dump_check_callers(const struct xp_dump *d, struct xp_err *e);

/* Compare declarations @i and @j by (kind, symbol, object). */
int xp_dump_decl_cmp(const struct xp_dump *d, uint32_t i, uint32_t j);
/* Indices of the declarations sorted by (kind, symbol, object); free() it. */
int xp_dump_decl_order(const struct xp_dump *d, uint32_t **out);

#endif
