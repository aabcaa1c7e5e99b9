/* SPDX-License-Identifier: MIT */
/*
 * dump_read: one dump file read into memory whole and validated, step by
 * step (dump_check.h), before anything else looks at it.
 */
#ifndef XP_DUMP_READ_H
#define XP_DUMP_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "read/dump.h"
#include "util/err.h"

/* Refuse files larger than this: no dump is, and we read it whole. */
#define XP_DUMP_MAX_SIZE (1ull << 31)

/*
 * Read @name relative to @dirfd (AT_FDCWD for a path) into @d and validate
 * it.  @nofollow refuses a symbolic link.  @path is what messages call it.
 * 0; XP_DUMP_JOB (read/dump_check.h) when it is the file of an MPI job,
 * which read/job.h reads; or -errno with @e describing the defect.
 */
int xp_dump_read(struct xp_dump *d, int dirfd, const char *name, const char *path, bool nofollow,
		 struct xp_err *e);

/*
 * Open @name relative to @dirfd for reading, without blocking on a FIFO;
 * @nofollow refuses a symbolic link.  The descriptor, or -errno with @e set.
 */
int xp_dump_open(int dirfd, const char *name, const char *path, bool nofollow, struct xp_err *e);

/* Validate @size bytes at @buf, which @d takes over (freed by xp_dump_free). */
int xp_dump_parse(struct xp_dump *d, void *buf, size_t size, const char *path, struct xp_err *e);

/* Free what xp_dump_read or xp_dump_parse left in @d. */
void xp_dump_free(struct xp_dump *d);

#endif
