/* SPDX-License-Identifier: MIT */
/* One breadth-first level: a growable array of states, as refs from the visited set. */
#ifndef CHECKER_FRONTIER_H
#define CHECKER_FRONTIER_H

#include <stddef.h>
#include <stdint.h>

struct frontier {
	uint64_t *keys;
	size_t len;
	size_t cap;
};

int frontier_append(struct frontier *f, const uint64_t *keys, size_t n);
void frontier_clear(struct frontier *f);
void frontier_release(struct frontier *f);

#endif /* CHECKER_FRONTIER_H */
