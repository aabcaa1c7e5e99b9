// SPDX-License-Identifier: MIT
/* u64set: open addressing, linear probing, grown at half full. */
#include <errno.h>
#include <stdlib.h>

#include "util/u64set.h"

static uint64_t mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ull;
	return v ^ (v >> 33);
}

uint64_t xp_hash64(const void *p, size_t len, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return mix(h);
}

/* The slot of stored value @k (v + 1) in @slots of @cap: where it is, or the empty one. */
static size_t find(const uint64_t *slots, size_t cap, uint64_t k)
{
	size_t i = (size_t)mix(k) & (cap - 1);

	while (slots[i] && slots[i] != k)
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow(struct xp_u64set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	uint64_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i])
			slots[find(slots, cap, s->slots[i])] = s->slots[i];
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

int xp_u64set_add(struct xp_u64set *s, uint64_t v)
{
	size_t i;

	if (v == UINT64_MAX) {
		if (s->has_max)
			return 0;
		s->has_max = true;
		return 1;
	}
	if (2 * (s->n + 1) > s->cap && grow(s))
		return -ENOMEM;
	i = find(s->slots, s->cap, v + 1);
	if (s->slots[i])
		return 0;
	s->slots[i] = v + 1;
	s->n++;
	return 1;
}

bool xp_u64set_has(const struct xp_u64set *s, uint64_t v)
{
	if (v == UINT64_MAX)
		return s->has_max;
	return s->cap && s->slots[find(s->slots, s->cap, v + 1)];
}

void xp_u64set_free(struct xp_u64set *s)
{
	free(s->slots);
	s->slots = NULL;
	s->cap = s->n = 0;
	s->has_max = false;
}
