// SPDX-License-Identifier: MIT
/* dir_list: list a directory's dump files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/dir_list.h"
#include "extprof/dump.h"
#include "util/vec.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

bool xp_name_is_dump(const char *name)
{
	return ends_with(name, EXTPROF_DUMP_SUFFIX);
}

bool xp_name_is_tmp(const char *name)
{
	return ends_with(name, EXTPROF_DUMP_SUFFIX ".tmp");
}

static int names_add(struct xp_names *names, const char *name)
{
	if (XP_GROW(&names->v, &names->cap, names->n, 64))
		return -ENOMEM;
	names->v[names->n] = strdup(name);
	if (!names->v[names->n])
		return -ENOMEM;
	names->n++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int dir_read(DIR *dir, struct xp_names *dumps, struct xp_names *others)
{
	struct dirent *de;
	int err = 0;

	errno = 0;
	while (!err && (de = readdir(dir))) {
		const char *n = de->d_name;

		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (xp_name_is_dump(n))
			err = names_add(dumps, n);
		else if (!xp_name_is_tmp(n) && others)
			err = names_add(others, n);
		errno = 0;
	}
	if (!err && errno)
		err = -errno;
	return err;
}

int xp_dir_names(int dirfd, const char *path, struct xp_names *dumps, struct xp_names *others,
		 struct xp_err *e)
{
	int fd = dup(dirfd);
	DIR *dir;
	int err;

	memset(dumps, 0, sizeof(*dumps));
	if (others)
		memset(others, 0, sizeof(*others));
	if (fd < 0 || !(dir = fdopendir(fd))) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return xp_err_set(e, err, "%s: %s", path, strerror(-err));
	}
	rewinddir(dir);
	err = dir_read(dir, dumps, others);
	closedir(dir);
	if (err) {
		xp_names_free(dumps);
		if (others)
			xp_names_free(others);
		return xp_err_set(e, err, "%s: %s", path, strerror(-err));
	}
	if (dumps->n)
		qsort(dumps->v, dumps->n, sizeof(char *), cmp_name);
	if (others && others->n)
		qsort(others->v, others->n, sizeof(char *), cmp_name);
	return 0;
}

bool xp_names_has(const struct xp_names *names, const char *name)
{
	return names->n && bsearch(&name, names->v, names->n, sizeof(char *), cmp_name);
}

void xp_names_free(struct xp_names *names)
{
	for (size_t i = 0; i < names->n; i++)
		free(names->v[i]);
	free(names->v);
	memset(names, 0, sizeof(*names));
}
