/* SPDX-License-Identifier: MIT */
/* path: file names as the analyzer shows and matches them. */
#ifndef XP_PATH_H
#define XP_PATH_H

#include <string.h>

/* What follows @path's last '/': its file name ("libc.so.6" of "/lib/libc.so.6"). */
static inline const char *xp_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

#endif
