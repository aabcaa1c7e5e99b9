// SPDX-License-Identifier: MIT
/* repeat_dirs: DIR/repeat-K, the runs of "extprof run --repeat". */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/dir_list.h"
#include "read/repeat_dirs.h"

bool xp_repeat_dir_is(int dirfd, const char *name, unsigned *n)
{
	unsigned long v;
	struct stat st;
	char *end;

	if (strncmp(name, XP_REPEAT_PREFIX, strlen(XP_REPEAT_PREFIX)))
		return false;
	name += strlen(XP_REPEAT_PREFIX);
	if (*name < '1' || *name > '9')
		return false;
	errno = 0;
	v = strtoul(name, &end, 10);
	if (errno || *end || v > UINT_MAX - 1)
		return false;
	if (fstatat(dirfd, name - strlen(XP_REPEAT_PREFIX), &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode))
		return false;
	if (n)
		*n = (unsigned)v;
	return true;
}

static int cmp_repeat(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* The K of DIR/repeat-K, ascending, when DIR holds no dumps of its own. */
static size_t repeats_of(const char *dir, unsigned **ks)
{
	struct xp_names dumps, others;
	struct xp_err e;
	size_t n = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	*ks = NULL;
	if (fd < 0)
		return 0;
	if (xp_dir_names(fd, dir, &dumps, &others, &e)) {
		close(fd);
		return 0;
	}
	if (!dumps.n && others.n && (*ks = calloc(others.n, sizeof(**ks))))
		for (size_t i = 0; i < others.n; i++)
			n += xp_repeat_dir_is(fd, others.v[i], &(*ks)[n]);
	close(fd);
	xp_names_free(&dumps);
	xp_names_free(&others);
	if (n)
		qsort(*ks, n, sizeof(**ks), cmp_repeat);
	return n;
}

int xp_repeat_dirs(const char *dir, char ***subs, size_t *n)
{
	unsigned *ks;
	size_t k = repeats_of(dir, &ks);

	*subs = NULL;
	*n = 0;
	if (k && !(*subs = calloc(k, sizeof(**subs)))) {
		free(ks);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k; i++) {
		if (asprintf(&(*subs)[i], "%s/" XP_REPEAT_PREFIX "%u", dir, ks[i]) < 0) {
			xp_repeat_dirs_free(*subs, i);
			*subs = NULL;
			free(ks);
			return -ENOMEM;
		}
	}
	*n = k;
	free(ks);
	return 0;
}

void xp_repeat_dirs_free(char **subs, size_t n)
{
	for (size_t i = 0; subs && i < n; i++)
		free(subs[i]);
	free(subs);
}
