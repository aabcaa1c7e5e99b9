// SPDX-License-Identifier: MIT
/* vec: growable arrays and lists of strings. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

int xp_grow(void *pv, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap * 2 : first;
	void *v;

	if (n < *cap)
		return 0;
	if (ncap < *cap || ncap > SIZE_MAX / size)
		return -ENOMEM;
	/* *pv is a T *: read and written as bytes, whatever T is */
	memcpy(&v, pv, sizeof(v));
	v = realloc(v, ncap * size);
	if (!v)
		return -ENOMEM;
	memcpy(pv, &v, sizeof(v));
	*cap = ncap;
	return 0;
}

int xp_strv_appendf(char ***v, size_t *n, const char *fmt, ...)
{
	char **w = realloc(*v, (*n + 1) * sizeof(*w));
	va_list ap;
	int r;

	if (!w)
		return -ENOMEM;
	*v = w;
	va_start(ap, fmt);
	r = vasprintf(&w[*n], fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}
