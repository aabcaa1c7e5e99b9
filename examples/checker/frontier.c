// SPDX-License-Identifier: MIT
/* A growable array of state refs; the search keeps two, this level and the next. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frontier.h"

/* Returns 0, or -1 with errno ENOMEM and the frontier unchanged. */
int frontier_append(struct frontier *f, const uint64_t *keys, size_t n)
{
	if (n > f->cap - f->len) {
		size_t cap = f->cap ? f->cap : 1024;
		uint64_t *grown;

		while (cap - f->len < n) {
			if (cap > SIZE_MAX / 2 / sizeof(*grown)) {
				errno = ENOMEM;
				return -1;
			}
			cap *= 2;
		}
		grown = realloc(f->keys, cap * sizeof(*grown));
		if (!grown)
			return -1;
		f->keys = grown;
		f->cap = cap;
	}
	memcpy(f->keys + f->len, keys, n * sizeof(*keys));
	f->len += n;
	return 0;
}

/* Keeps the memory: the next level will likely need as much. */
void frontier_clear(struct frontier *f)
{
	f->len = 0;
}

void frontier_release(struct frontier *f)
{
	free(f->keys);
	f->keys = NULL;
	f->len = 0;
	f->cap = 0;
}
