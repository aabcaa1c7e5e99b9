/* SPDX-License-Identifier: MIT */
/* The set of states seen so far, shared by all workers. */
#ifndef CHECKER_VISITED_H
#define CHECKER_VISITED_H

#include <stddef.h>
#include <stdint.h>

struct visited;

struct visited *visited_create(void);
int visited_insert(struct visited *v, uint64_t key);
size_t visited_count(const struct visited *v);
void visited_destroy(struct visited *v);

#endif /* CHECKER_VISITED_H */
