// SPDX-License-Identifier: MIT
/*
 * The visited set: open addressing with linear probing, split into shards that each have
 * their own lock and grow on their own, so workers inserting at once rarely wait for each
 * other and no insert ever stalls the whole set for a rehash.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "state.h"
#include "visited.h"

#define VISITED_SHARD_BITS 8
#define VISITED_SHARDS	   (1u << VISITED_SHARD_BITS)
#define VISITED_MIN_SLOTS  64

/* A cache line each, so two workers on neighbouring shards do not share one. */
struct visited_shard {
	pthread_mutex_t lock;
	uint64_t *slots; /* STATE_KEY_NONE marks a free slot */
	size_t mask;	 /* slots - 1; the slot count is a power of two */
	size_t count;
} __attribute__((aligned(64)));

struct visited {
	struct visited_shard shard[VISITED_SHARDS];
};

/* splitmix64's finaliser: packed keys differ in few low bits, and this spreads them. */
static uint64_t visited_hash(uint64_t key)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return key;
}

static uint64_t *visited_alloc_slots(size_t n)
{
	uint64_t *slots;
	size_t i;

	if (n > SIZE_MAX / sizeof(*slots)) {
		errno = ENOMEM;
		return NULL;
	}
	slots = malloc(n * sizeof(*slots));
	if (!slots)
		return NULL;
	for (i = 0; i < n; i++)
		slots[i] = STATE_KEY_NONE;
	return slots;
}

/* The shard is picked by the top bits of the hash, the slot by the low ones. */
static void visited_place(uint64_t *slots, size_t mask, uint64_t key, uint64_t hash)
{
	size_t at = hash & mask;

	while (slots[at] != STATE_KEY_NONE)
		at = (at + 1) & mask;
	slots[at] = key;
}

static int visited_grow(struct visited_shard *sh)
{
	size_t old_n = sh->mask + 1, i;
	uint64_t *slots;

	if (old_n > SIZE_MAX / 2) {
		errno = ENOMEM;
		return -1;
	}
	slots = visited_alloc_slots(old_n * 2);
	if (!slots)
		return -1;
	for (i = 0; i < old_n; i++) {
		uint64_t key = sh->slots[i];

		if (key != STATE_KEY_NONE)
			visited_place(slots, old_n * 2 - 1, key, visited_hash(key));
	}
	free(sh->slots);
	sh->slots = slots;
	sh->mask = old_n * 2 - 1;
	return 0;
}

struct visited *visited_create(void)
{
	struct visited *v;
	unsigned i;

	v = aligned_alloc(64, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < VISITED_SHARDS; i++) {
		struct visited_shard *sh = &v->shard[i];

		sh->slots = visited_alloc_slots(VISITED_MIN_SLOTS);
		if (!sh->slots || pthread_mutex_init(&sh->lock, NULL)) {
			free(sh->slots);
			while (i--) {
				pthread_mutex_destroy(&v->shard[i].lock);
				free(v->shard[i].slots);
			}
			free(v);
			errno = ENOMEM;
			return NULL;
		}
		sh->mask = VISITED_MIN_SLOTS - 1;
		sh->count = 0;
	}
	return v;
}

/* Returns 1 if the key is new and now in the set, 0 if it was there, -1 on ENOMEM. */
int visited_insert(struct visited *v, uint64_t key)
{
	uint64_t hash = visited_hash(key);
	struct visited_shard *sh = &v->shard[hash >> (64 - VISITED_SHARD_BITS)];
	int ret = 1;
	size_t at;

	pthread_mutex_lock(&sh->lock);
	for (at = hash & sh->mask; sh->slots[at] != STATE_KEY_NONE; at = (at + 1) & sh->mask) {
		if (sh->slots[at] == key) {
			ret = 0;
			goto out;
		}
	}
	/* Keep the load under 3/4: linear probing slows down sharply past it. */
	if ((sh->count + 1) * 4 > (sh->mask + 1) * 3) {
		if (visited_grow(sh)) {
			ret = -1;
			goto out;
		}
		visited_place(sh->slots, sh->mask, key, hash);
	} else {
		sh->slots[at] = key;
	}
	sh->count++;
out:
	pthread_mutex_unlock(&sh->lock);
	return ret;
}

/* Only meaningful once no worker inserts any more. */
size_t visited_count(const struct visited *v)
{
	size_t n = 0;
	unsigned i;

	for (i = 0; i < VISITED_SHARDS; i++)
		n += v->shard[i].count;
	return n;
}

void visited_destroy(struct visited *v)
{
	unsigned i;

	if (!v)
		return;
	for (i = 0; i < VISITED_SHARDS; i++) {
		pthread_mutex_destroy(&v->shard[i].lock);
		free(v->shard[i].slots);
	}
	free(v);
}
