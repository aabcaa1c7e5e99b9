// SPDX-License-Identifier: MIT
/*
 * run_shim: find libextprof.so for the child's LD_PRELOAD, so that "extprof
 * run" works from the build tree and installed alike.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/run.h"

#ifndef EXTPROF_LIBDIR
#define EXTPROF_LIBDIR "/usr/local/lib"
#endif

/* The shim of the build tree: <build>/analyzer/extprof -> <build>/preload/. */
static char *shim_beside_us(void)
{
	char exe[PATH_MAX], *path = NULL, *real;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if (asprintf(&path, "%s/../preload/" XP_SHIM_NAME, dirname(exe)) < 0)
		return NULL;
	real = realpath(path, NULL);
	free(path);
	return real;
}

int xp_run_find_shim(char **out, struct xp_err *e)
{
	const char *env = getenv("EXTPROF_SHIM");
	char *path;

	if (env && *env) {
		/* absolute: the program may chdir before it execs a child */
		path = realpath(env, NULL);
		if (!path)
			return xp_err_set(e, -errno, "EXTPROF_SHIM=%s: %s", env, strerror(errno));
	} else if (!(path = shim_beside_us())) {
		if (access(EXTPROF_LIBDIR "/" XP_SHIM_NAME, R_OK) == 0)
			path = strdup(EXTPROF_LIBDIR "/" XP_SHIM_NAME);
		else
			path = strdup(XP_SHIM_NAME); /* the loader's own search */
	}
	if (!path)
		return xp_err_set(e, -ENOMEM, "out of memory");
	/* LD_PRELOAD splits on colons and blanks: such a path cannot be carried. */
	if (strpbrk(path, ": \t\n")) {
		xp_err_set(e, -EINVAL,
			   "shim path '%s' holds a colon or blank, which LD_PRELOAD cannot carry",
			   path);
		free(path);
		return -EINVAL;
	}
	*out = path;
	return 0;
}
