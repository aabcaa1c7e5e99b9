// SPDX-License-Identifier: MIT
/*
 * The visited set: open addressing with linear probing, split into shards that each have
 * their own lock and grow on their own, so workers inserting at once rarely wait for each
 * other and no insert ever stalls the whole set for a rehash.
 *
 * An 8-byte key (a packed state) lives in its slot, and all ones marks a free slot. A longer
 * key is copied into its shard's arena, blocks that never move, and its slot holds its hash
 * and its address: the hash settles most probes and every rehash without touching the key,
 * and the address is the key's ref, valid until the set is destroyed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "visited.h"

#define VISITED_SHARD_BITS 8
#define VISITED_SHARDS	   (1u << VISITED_SHARD_BITS)
#define VISITED_MIN_SLOTS  64
#define VISITED_FREE	   UINT64_MAX
/* Arena blocks start small, so a small search stays small, and double up to this. */
#define VISITED_BLOCK_MIN 1024
#define VISITED_BLOCK_MAX (1u << 20)

struct visited_slot {
	uint64_t hash;
	const uint8_t *key; /* NULL: free */
};

struct visited_block {
	struct visited_block *next;
	size_t used, cap;
	uint8_t data[];
};

/* A cache line each, so two workers on neighbouring shards do not share one. */
struct visited_shard {
	pthread_mutex_t lock;
	uint64_t *keys;		    /* 8-byte keys: the keys themselves */
	struct visited_slot *slots; /* longer keys */
	size_t mask;		    /* slots - 1; the slot count is a power of two */
	size_t count;
	struct visited_block *arena; /* longer keys: the newest block first */
} __attribute__((aligned(64)));

struct visited {
	size_t key_len;
	struct visited_shard shard[VISITED_SHARDS];
};

/* splitmix64's finaliser: packed keys differ in few low bits, and this spreads them. */
static uint64_t visited_mix(uint64_t key)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return key;
}

static uint64_t visited_hash(const struct visited *v, const uint8_t *key)
{
	uint64_t h = v->key_len * 0x9e3779b97f4a7c15ull, word;
	size_t len = v->key_len;

	if (len == sizeof(word)) {
		memcpy(&word, key, sizeof(word));
		return visited_mix(word);
	}
	for (; len >= sizeof(word); key += sizeof(word), len -= sizeof(word)) {
		memcpy(&word, key, sizeof(word));
		h = (h ^ word) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 29;
	}
	if (len) {
		word = 0;
		memcpy(&word, key, len);
		h = (h ^ word) * 0x94d049bb133111ebull;
	}
	return visited_mix(h);
}

static void *visited_alloc_table(size_t n, size_t size)
{
	if (n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return malloc(n * size);
}

static int visited_alloc_slots(const struct visited *v, struct visited_shard *sh, size_t n)
{
	size_t i;

	if (v->key_len == sizeof(uint64_t)) {
		uint64_t *keys = visited_alloc_table(n, sizeof(*keys));

		if (!keys)
			return -1;
		for (i = 0; i < n; i++)
			keys[i] = VISITED_FREE;
		sh->keys = keys;
	} else {
		struct visited_slot *slots = visited_alloc_table(n, sizeof(*slots));

		if (!slots)
			return -1;
		for (i = 0; i < n; i++)
			slots[i].key = NULL;
		sh->slots = slots;
	}
	sh->mask = n - 1;
	return 0;
}

/* The shard is picked by the top bits of the hash, the slot by the low ones. */
static int visited_grow(const struct visited *v, struct visited_shard *sh)
{
	uint64_t *old_keys = sh->keys;
	struct visited_slot *old_slots = sh->slots;
	size_t old_n = sh->mask + 1, i, at;

	if (old_n > SIZE_MAX / 2) {
		errno = ENOMEM;
		return -1;
	}
	if (visited_alloc_slots(v, sh, old_n * 2))
		return -1;
	for (i = 0; i < old_n; i++) {
		if (v->key_len == sizeof(uint64_t)) {
			uint64_t key = old_keys[i];

			if (key == VISITED_FREE)
				continue;
			for (at = visited_mix(key) & sh->mask; sh->keys[at] != VISITED_FREE;
			     at = (at + 1) & sh->mask)
				;
			sh->keys[at] = key;
		} else {
			if (!old_slots[i].key)
				continue;
			for (at = old_slots[i].hash & sh->mask; sh->slots[at].key;
			     at = (at + 1) & sh->mask)
				;
			sh->slots[at] = old_slots[i];
		}
	}
	free(old_keys);
	free(old_slots);
	return 0;
}

static void visited_free_shard(struct visited_shard *sh)
{
	struct visited_block *b, *next;

	free(sh->keys);
	free(sh->slots);
	for (b = sh->arena; b; b = next) {
		next = b->next;
		free(b);
	}
}

struct visited *visited_create(size_t key_len)
{
	struct visited *v;
	unsigned i;

	if (key_len < sizeof(uint64_t)) {
		errno = EINVAL;
		return NULL;
	}
	v = aligned_alloc(64, sizeof(*v));
	if (!v)
		return NULL;
	v->key_len = key_len;
	for (i = 0; i < VISITED_SHARDS; i++) {
		struct visited_shard *sh = &v->shard[i];

		sh->keys = NULL;
		sh->slots = NULL;
		sh->arena = NULL;
		sh->count = 0;
		if (visited_alloc_slots(v, sh, VISITED_MIN_SLOTS) ||
		    pthread_mutex_init(&sh->lock, NULL)) {
			visited_free_shard(sh);
			while (i--) {
				pthread_mutex_destroy(&v->shard[i].lock);
				visited_free_shard(&v->shard[i]);
			}
			free(v);
			errno = ENOMEM;
			return NULL;
		}
	}
	return v;
}

/* A copy of a long key in the shard's arena, or NULL. */
static const uint8_t *visited_keep(const struct visited *v, struct visited_shard *sh,
				   const uint8_t *key)
{
	struct visited_block *b = sh->arena;
	uint8_t *copy;

	if (!b || b->cap - b->used < v->key_len) {
		size_t cap = b ? b->cap * 2 : VISITED_BLOCK_MIN;

		if (cap > VISITED_BLOCK_MAX)
			cap = VISITED_BLOCK_MAX;
		if (cap < v->key_len)
			cap = v->key_len;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = sh->arena;
		b->used = 0;
		b->cap = cap;
		sh->arena = b;
	}
	copy = b->data + b->used;
	memcpy(copy, key, v->key_len);
	b->used += v->key_len;
	return copy;
}

/* Keep the load under 3/4: linear probing slows down sharply past it. */
static bool visited_full(const struct visited_shard *sh)
{
	return (sh->count + 1) * 4 > (sh->mask + 1) * 3;
}

static int visited_insert_packed(struct visited_shard *sh, const struct visited *v, uint64_t key,
				 uint64_t hash)
{
	size_t at;

	for (at = hash & sh->mask; sh->keys[at] != VISITED_FREE; at = (at + 1) & sh->mask)
		if (sh->keys[at] == key)
			return 0;
	if (visited_full(sh)) {
		if (visited_grow(v, sh))
			return -1;
		for (at = hash & sh->mask; sh->keys[at] != VISITED_FREE; at = (at + 1) & sh->mask)
			;
	}
	sh->keys[at] = key;
	sh->count++;
	return 1;
}

static int visited_insert_long(struct visited_shard *sh, const struct visited *v,
			       const uint8_t *key, uint64_t hash, const uint8_t **kept)
{
	struct visited_slot *slot;
	size_t at;

	for (at = hash & sh->mask; sh->slots[at].key; at = (at + 1) & sh->mask) {
		slot = &sh->slots[at];
		if (slot->hash == hash && !memcmp(slot->key, key, v->key_len))
			return 0;
	}
	if (visited_full(sh)) {
		if (visited_grow(v, sh))
			return -1;
		for (at = hash & sh->mask; sh->slots[at].key; at = (at + 1) & sh->mask)
			;
	}
	*kept = visited_keep(v, sh, key);
	if (!*kept)
		return -1;
	sh->slots[at].hash = hash;
	sh->slots[at].key = *kept;
	sh->count++;
	return 1;
}

int visited_insert(struct visited *v, const uint8_t *key, uint64_t *ref)
{
	uint64_t hash = visited_hash(v, key);
	struct visited_shard *sh = &v->shard[hash >> (64 - VISITED_SHARD_BITS)];
	const uint8_t *kept = NULL;
	uint64_t packed = 0;
	int ret;

	pthread_mutex_lock(&sh->lock);
	if (v->key_len == sizeof(packed)) {
		memcpy(&packed, key, sizeof(packed));
		ret = visited_insert_packed(sh, v, packed, hash);
	} else {
		ret = visited_insert_long(sh, v, key, hash, &kept);
	}
	pthread_mutex_unlock(&sh->lock);
	if (ret == 1)
		*ref = kept ? (uint64_t)(uintptr_t)kept : packed;
	return ret;
}

const uint8_t *visited_key(const struct visited *v, uint64_t ref, uint8_t *buf)
{
	if (v->key_len == sizeof(ref)) {
		memcpy(buf, &ref, sizeof(ref));
		return buf;
	}
	return (const uint8_t *)(uintptr_t)ref;
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
		visited_free_shard(&v->shard[i]);
	}
	free(v);
}
