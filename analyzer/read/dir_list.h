/* SPDX-License-Identifier: MIT */
/* dir_list: the names in a dump directory, sorted, sorted into kinds. */
#ifndef XP_DIR_LIST_H
#define XP_DIR_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

struct xp_names {
	char **v;
	size_t n;
	size_t cap;
};

/*
 * List directory @dirfd (@path in messages): names ending in ".xpd" into
 * @dumps, names that are neither that nor ".xpd.tmp" (a dump being
 * rewritten) into @others (may be NULL).  Both sorted.  0 or -errno.
 */
int xp_dir_names(int dirfd, const char *path, struct xp_names *dumps, struct xp_names *others,
		 struct xp_err *e);
/* Whether @name is one of @names. */
bool xp_names_has(const struct xp_names *names, const char *name);
/* Free the names and empty the list. */
void xp_names_free(struct xp_names *names);

/* Whether @name ends in ".xpd", the dumps' suffix. */
bool xp_name_is_dump(const char *name);
/* Whether @name is a dump being written (".xpd.tmp"). */
bool xp_name_is_tmp(const char *name);

#endif
