/* SPDX-License-Identifier: MIT */
/*
 * repeat_dirs: the runs a directory stands for.  A directory that
 * "extprof run --repeat" filled holds DIR/repeat-K subdirectories and no
 * dumps of its own; each is one run, read by "extprof diff" and "extprof
 * doubling" as a run of its own.
 */
#ifndef XP_REPEAT_DIRS_H
#define XP_REPEAT_DIRS_H

#include <stdbool.h>
#include <stddef.h>

#define XP_REPEAT_PREFIX "repeat-" /* DIR/repeat-K: one run of --repeat */

/*
 * The paths "@dir/repeat-K", K ascending, into @subs (malloc'd, each
 * malloc'd) when @dir is such a directory; *@n = 0 otherwise (a file, a
 * directory of dumps, or missing: said when it is read).  0 or -ENOMEM.
 */
int xp_repeat_dirs(const char *dir, char ***subs, size_t *n);
/* Free what xp_repeat_dirs returned. */
void xp_repeat_dirs_free(char **subs, size_t n);

/* Is @name (in directory @dirfd) a repeat-K subdirectory?  Its K in *@n (if not NULL). */
bool xp_repeat_dir_is(int dirfd, const char *name, unsigned *n);

#endif
