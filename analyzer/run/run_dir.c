// SPDX-License-Identifier: MIT
/*
 * run_dir: the dump directory of "extprof run".  Created 0700 when missing;
 * when it exists it must hold only extprof files, so that dumps are never
 * mixed into somebody's directory.  Dumps already there are kept untouched,
 * and the report reads only those this run added.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/repeat_dirs.h"
#include "run/run.h"

static int dir_open(const char *dir, struct xp_err *e)
{
	int fd;

	/* 0700 whatever the umask (0277 would leave it unwritable) */
	if (mkdir(dir, 0700) == 0 ? chmod(dir, 0700) < 0 : errno != EEXIST)
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

/* Names that are neither dumps nor repeat-N subdirectories of earlier runs. */
static const char *dir_foreign(int fd, const struct xp_names *others)
{
	for (size_t i = 0; i < others->n; i++)
		if (!xp_repeat_dir_is(fd, others->v[i], NULL))
			return others->v[i];
	return NULL;
}

int xp_run_dir_prepare(const char *dir, char **abs, struct xp_names *before, struct xp_err *e)
{
	struct xp_names others;
	const char *foreign;
	int fd = dir_open(dir, e), err;

	if (fd < 0)
		return fd;
	err = xp_dir_names(fd, dir, before, &others, e);
	if (err) {
		close(fd);
		return err;
	}
	foreign = dir_foreign(fd, &others);
	close(fd);
	if (foreign)
		err = xp_err_set(e, -EEXIST,
				 "%s: holds '%s', which is not an extprof dump; refusing to mix "
				 "dumps into it (choose another directory with -o)",
				 dir, foreign);
	xp_names_free(&others);
	if (!err && !(*abs = realpath(dir, NULL)))
		err = xp_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	if (err)
		xp_names_free(before);
	return err;
}

int xp_run_dir_next_repeat(const char *dir, unsigned *next, struct xp_err *e)
{
	struct xp_names dumps, others;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	unsigned n, top = 0;

	if (fd < 0)
		return xp_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	err = xp_dir_names(fd, dir, &dumps, &others, e);
	if (!err) {
		for (size_t i = 0; i < others.n; i++)
			if (xp_repeat_dir_is(fd, others.v[i], &n) && n > top)
				top = n;
		xp_names_free(&dumps);
		xp_names_free(&others);
		*next = top + 1;
	}
	close(fd);
	return err;
}

int xp_run_dir_remove(const char *dir, struct xp_err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return xp_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	if (rmdir(dir) < 0)
		return xp_err_set(e, -errno, "%s: cannot remove: %s", dir, strerror(errno));
	return 0;
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
