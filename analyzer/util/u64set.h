/* SPDX-License-Identifier: MIT */
/*
 * u64set: a set of 64-bit values, open addressing in one array: a value
 * costs 16 bytes at most, so that the pids of a fleet's processes, or
 * their fingerprints, stay small beside what the report keeps.
 */
#ifndef XP_U64SET_H
#define XP_U64SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xp_u64set {
	uint64_t *slots; /* value + 1 (0: empty); UINT64_MAX itself is has_max */
	size_t cap;	 /* a power of two, or 0 */
	size_t n;
	bool has_max;
};

/* Add @v: 1 when it is new, 0 when it was there, -ENOMEM. */
int xp_u64set_add(struct xp_u64set *s, uint64_t v);
/* Whether @v is in @s. */
bool xp_u64set_has(const struct xp_u64set *s, uint64_t v);
/* Free the set and empty it. */
void xp_u64set_free(struct xp_u64set *s);

/* A 64-bit hash of @len bytes at @p (FNV-1a, then mixed), seeded with @seed. */
uint64_t xp_hash64(const void *p, size_t len, uint64_t seed);

#endif
