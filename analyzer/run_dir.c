// SPDX-License-Identifier: MIT
/*
 * run_dir: the dump directory of "extprof run".  Created 0700 when missing;
 * when it exists it must hold only extprof files, so that dumps are never
 * mixed into somebody's directory.  Dumps already there are kept untouched,
 * and the report reads only those this run added.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

static int dir_open(const char *dir, struct xp_err *e)
{
	int fd;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return xp_err_set(e, -errno, "%s: cannot create the dump directory: %s", dir,
				  strerror(errno));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return xp_err_set(e, -errno, "%s: %s", dir,
				  errno == ENOTDIR ? "exists and is not a directory"
						   : strerror(errno));
	if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) < 0) {
		xp_err_set(e, -errno, "%s: the dump directory is not writable: %s", dir,
			   strerror(errno));
		close(fd);
		return -EACCES;
	}
	return fd;
}

int xp_run_dir_prepare(const char *dir, char **abs, struct xp_names *before, struct xp_err *e)
{
	struct xp_names others;
	int fd = dir_open(dir, e), err;

	if (fd < 0)
		return fd;
	err = xp_dir_names(fd, dir, before, &others, e);
	close(fd);
	if (err)
		return err;
	if (others.n)
		err = xp_err_set(e, -EEXIST,
				 "%s: holds '%s', which is not an extprof dump; refusing to mix "
				 "dumps into it (choose another directory with -o)",
				 dir, others.v[0]);
	xp_names_free(&others);
	if (!err && !(*abs = realpath(dir, NULL)))
		err = xp_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	if (err)
		xp_names_free(before);
	return err;
}

int xp_run_dir_new(const char *dir, const struct xp_names *before, struct xp_names *out,
		   struct xp_err *e)
{
	struct xp_names after;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	size_t k = 0;

	if (fd < 0)
		return xp_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	err = xp_dir_names(fd, dir, &after, NULL, e);
	close(fd);
	if (err)
		return err;
	/* Keep the new names in place, free the old ones: @after becomes @out. */
	for (size_t i = 0; i < after.n; i++) {
		if (xp_names_has(before, after.v[i]))
			free(after.v[i]);
		else
			after.v[k++] = after.v[i];
	}
	after.n = k;
	*out = after;
	return 0;
}
