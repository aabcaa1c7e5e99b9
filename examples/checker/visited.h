/* SPDX-License-Identifier: MIT */
/* The set of states seen so far, shared by all workers. */
#ifndef CHECKER_VISITED_H
#define CHECKER_VISITED_H

#include <stddef.h>
#include <stdint.h>

struct visited;

/*
 * Keys are byte strings of key_len bytes. An 8-byte key is kept in the table itself and must
 * never be all ones; a longer one is copied into memory the set owns until it is destroyed.
 * Either way the set hands back a ref for each key: a 64-bit handle to keep (in a frontier,
 * say) and turn back into the key with visited_key.
 */
struct visited *visited_create(size_t key_len);
/* Returns 1 if the key is new and now in the set (*ref set), 0 if it was there, -1 on ENOMEM. */
int visited_insert(struct visited *v, const uint8_t *key, uint64_t *ref);
/* The key a ref stands for: in buf (8 bytes) for an 8-byte key, else in the set's memory. */
const uint8_t *visited_key(const struct visited *v, uint64_t ref, uint8_t *buf);
size_t visited_count(const struct visited *v);
void visited_destroy(struct visited *v);

#endif /* CHECKER_VISITED_H */
