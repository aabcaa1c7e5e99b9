// SPDX-License-Identifier: MIT
/*
 * xlate_cache: the code cache's memory (preload/steps/xlate.h).  A thread's cache
 * is arenas of translated blocks, each near the code it translates (a block
 * must reach its rip-relative operands with a rel32), a hash of its blocks
 * by native address, the lookup table its translated code reads, and the
 * stack its dispatcher runs on.  Everything is mapped with mmap, at a
 * thread's first session, never allocated with malloc; nothing is shared
 * with another thread, so nothing is locked.
 *
 *   arena (XL_ARENA_BYTES, read-write-execute, within 1 GiB of its code)
 *   +-----------+-----------------------------------+-------+---------+
 *   | routines  | code | record | code | record ... | free  | index   |
 *   | (lookup,  |  of block 1   |  of block 2       |       | (block  |
 *   | ret_entry,|                                   |       | offsets,|
 *   | dispatch) |               -> grows up         |       | grows   |
 *   +-----------+-----------------------------------+-------+-down)---+
 *
 * A cache is bounded (EXTPROF_XLATE_CACHE_MB, all of its arenas): when an
 * arena is full, or the hash holds 3/4 of its slots, or code changed
 * (xl_code_epoch), the whole cache is flushed and filled again.  Only its
 * thread flushes it, in its dispatcher or at a session's start, when none
 * of its translated code is running; the stack holds only native return
 * addresses, and a signal handler that interrupted the cache finds where
 * to go on again after it (xlate_signal.c): nothing points into the old
 * translations.  A thread that ends gives its cache to the next thread
 * that needs one.  Under a seccomp filter (sandbox.c) no arena is added:
 * the calling thread's were made before it, near every object's code
 * (xlate_prepare_sandbox, xlate_setup.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "core/log.h"
#include "core/state.h"
#include "core/sys.h"
#include "steps/state.h"
#include "steps/xlate.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define XC_NEAR	      (1ull << 30) /* an arena serves code within 1 GiB of both its ends */
#define XC_MAX_CACHES 1024

/* Every cache made, for xlate_cache_clear_tables; each with its owner's thread id (0: free). */
static struct xl_cache *xc_all[XC_MAX_CACHES];
static uint64_t xc_owner[XC_MAX_CACHES];
static uint32_t xc_n;

static void *xc_map(size_t size, int prot)
{
	void *p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static uint64_t xc_dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* An arena's first free byte, past its routines. */
static uint8_t *xc_arena_start(const struct xl_arena *a)
{
	return a->base + ((a->r.len + 63) & ~63u);
}

/* A new arena near @pc, with its routines: NULL when none fits the limit or the address space. */
static struct xl_arena *xc_arena_new(struct xl_cache *c, uint64_t pc)
{
	uint64_t page = pc & ~((uint64_t)XL_ARENA_BYTES - 1), size = XL_ARENA_BYTES;
	struct xl_arena *a;
	void *p = NULL;

	/* under a seccomp filter, no mmap: the code runs natively (sandbox.c) */
	if (c->narenas == XL_MAX_ARENAS || c->mapped + size > c->limit ||
	    __atomic_load_n(&xp.sandboxed, __ATOMIC_ACQUIRE))
		return NULL;
	/* below first (a program's heap grows up from its end), then above */
	for (uint64_t d = 16ull << 20; d < XC_NEAR - size && !p; d += 16ull << 20) {
		uint64_t at[2] = {page > d ? page - d : 0, page + d};

		for (int i = 0; i < 2 && !p; i++) {
			void *q;

			if (!at[i] || at[i] + size < at[i] || at[i] + size > (1ull << 47))
				continue;
			q = mmap((void *)at[i], size, PROT_READ | PROT_WRITE | PROT_EXEC,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
				 -1, 0);
			if (q == MAP_FAILED)
				continue;
			if ((uint64_t)q != at[i]) {
				sys_munmap(q, size);
				continue;
			}
			p = q;
		}
	}
	if (!p)
		return NULL;
	a = &c->arena[c->narenas];
	memset(a, 0, sizeof(*a));
	a->base = p;
	a->size = size;
	arch_xl_routines(a->base, &a->r);
	a->next = xc_arena_start(a);
	a->index = (uint32_t *)(a->base + a->size);
	a->nblocks = 0;
	c->mapped += size;
	/* published whole: the signal path of this thread reads the arenas */
	__atomic_store_n(&c->narenas, c->narenas + 1, __ATOMIC_RELEASE);
	return a;
}

struct xl_arena *xlate_cache_arena_for(struct xl_cache *cache, uint64_t pc)
{
	for (uint32_t i = 0; i < cache->narenas; i++) {
		struct xl_arena *arena = &cache->arena[i];

		if (xc_dist(pc, (uint64_t)arena->base) < XC_NEAR &&
		    xc_dist(pc, (uint64_t)arena->base + arena->size) < XC_NEAR)
			return arena;
	}
	return xc_arena_new(cache, pc);
}

/* A new cache, with an arena near @pc. */
static struct xl_cache *xc_new(uint64_t pc)
{
	struct xl_cache *c = xc_map(sizeof(*c), PROT_READ | PROT_WRITE);

	if (!c)
		return NULL;
	c->hash = xc_map(XL_HASH_SLOTS * sizeof(*c->hash), PROT_READ | PROT_WRITE);
	c->table = xc_map(sizeof(*c->table) << XL_TABLE_BITS, PROT_READ | PROT_WRITE);
	c->dstack = xc_map(XL_DSTACK_BYTES, PROT_READ | PROT_WRITE);
	c->limit = xl_cfg.cache_bytes;
	c->epoch = __atomic_load_n(&xl_code_epoch, __ATOMIC_ACQUIRE);
	if (!c->hash || !c->table || !c->dstack || !xlate_cache_arena_for(c, pc)) {
		/* not used again: the address space is given back */
		if (c->hash)
			sys_munmap(c->hash, XL_HASH_SLOTS * sizeof(*c->hash));
		if (c->table)
			sys_munmap(c->table, sizeof(*c->table) << XL_TABLE_BITS);
		if (c->dstack)
			sys_munmap(c->dstack, XL_DSTACK_BYTES);
		for (uint32_t i = 0; i < c->narenas; i++)
			sys_munmap(c->arena[i].base, c->arena[i].size);
		sys_munmap(c, sizeof(*c));
		return NULL;
	}
	return c;
}

/*
 * Whether cache @i may be taken by thread @me: free, or its owner gone (a
 * thread that ended inside a session keeps its cache until it is gone, as
 * its last instructions may be translated ones).
 */
static bool xc_take(uint32_t i, uint64_t me)
{
	uint64_t owner = __atomic_load_n(&xc_owner[i], __ATOMIC_ACQUIRE);

	if (owner &&
	    (owner == me || arch_syscall4(SYS_tgkill, getpid(), (long)owner, 0, 0) != -ESRCH))
		return false;
	return __atomic_compare_exchange_n(&xc_owner[i], &owner, me, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

struct xl_cache *xlate_cache_get(struct xp_thread *thread, uint64_t near)
{
	uint64_t me = (uint64_t)arch_syscall4(SYS_gettid, 0, 0, 0, 0);
	struct xl_cache *c = NULL;
	uint32_t n = __atomic_load_n(&xc_n, __ATOMIC_ACQUIRE), i;

	(void)thread;
	/* one a thread left */
	for (i = 0; i < n && !c; i++)
		if (__atomic_load_n(&xc_all[i], __ATOMIC_ACQUIRE) && xc_take(i, me))
			c = xc_all[i];
	if (!c) {
		c = xc_new(near);
		if (!c) {
			log_once(LOG_ONCE_XLATE, "steps: no memory for a thread's code cache; its "
						 "calls run natively, not counted");
			return NULL;
		}
		i = __atomic_fetch_add(&xc_n, 1, __ATOMIC_ACQ_REL);
		if (i >= XC_MAX_CACHES) {
			/* kept, but not listed: its table is not emptied with the others' */
			__atomic_fetch_sub(&xc_n, 1, __ATOMIC_ACQ_REL);
		} else {
			xc_owner[i] = me;
			__atomic_store_n(&xc_all[i], c, __ATOMIC_RELEASE);
		}
	}
	if (c->epoch != __atomic_load_n(&xl_code_epoch, __ATOMIC_ACQUIRE))
		xlate_cache_flush(c);
	return c;
}

void xlate_cache_put(struct xl_cache *cache)
{
	uint32_t n = __atomic_load_n(&xc_n, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++)
		if (xc_all[i] == cache)
			__atomic_store_n(&xc_owner[i], 0, __ATOMIC_RELEASE);
}

static uint32_t xc_hash(uint64_t pc)
{
	return (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 40) & (XL_HASH_SLOTS - 1);
}

struct xl_block *xlate_cache_find(struct xl_cache *cache, uint64_t pc)
{
	for (uint32_t h = xc_hash(pc), k = 0; k < XL_HASH_SLOTS;
	     k++, h = (h + 1) & (XL_HASH_SLOTS - 1)) {
		struct xl_block *b = cache->hash[h];

		if (!b)
			return NULL;
		if (b->pc == pc)
			return b;
	}
	return NULL;
}

static void xc_hash_add(struct xl_cache *c, struct xl_block *b)
{
	uint32_t h = xc_hash(b->pc);

	while (c->hash[h])
		h = (h + 1) & (XL_HASH_SLOTS - 1);
	c->hash[h] = b;
	c->nhash++;
}

void xlate_cache_flush(struct xl_cache *cache)
{
	for (uint32_t i = 0; i < cache->narenas; i++) {
		struct xl_arena *a = &cache->arena[i];

		a->nblocks = 0;
		a->next = xc_arena_start(a);
	}
	memset(cache->hash, 0, XL_HASH_SLOTS * sizeof(*cache->hash));
	memset(cache->table, 0, sizeof(*cache->table) << XL_TABLE_BITS);
	cache->nhash = 0;
	cache->epoch = __atomic_load_n(&xl_code_epoch, __ATOMIC_ACQUIRE);
	cache->flushes++;
}

uint64_t xlate_cache_room(const struct xl_arena *arena)
{
	uint8_t *bottom = (uint8_t *)(arena->index - arena->nblocks - 1);

	return bottom > arena->next ? (uint64_t)(bottom - arena->next) : 0;
}

struct xl_block *xlate_cache_add(struct xl_cache *cache, struct xl_arena *arena,
				 const struct xl_block *block, long len)
{
	struct xl_block *at;
	size_t rec;

	/* the record after its code, with as many instructions as it has */
	at = (struct xl_block *)(((uint64_t)arena->next + (uint64_t)len + 15) & ~15ull);
	rec = offsetof(struct xl_block, insn) + ((size_t)block->ninsn + 1) * sizeof(block->insn[0]);
	memcpy(at, block, rec);
	arena->next = (uint8_t *)(((uint64_t)at + rec + 15) & ~15ull);
	arena->index[-(int64_t)arena->nblocks - 1] = (uint32_t)((uint8_t *)at - arena->base);
	__atomic_store_n(&arena->nblocks, arena->nblocks + 1, __ATOMIC_RELEASE);
	xc_hash_add(cache, at);
	return at;
}

void xlate_cache_publish(struct xl_cache *cache, const struct xl_block *block)
{
	struct xl_entry *e = &cache->table[block->pc & ((1u << XL_TABLE_BITS) - 1)];

	/* the code first: another thread emptying the table writes pc only */
	e->code = (uint64_t)block->code;
	__atomic_store_n(&e->pc, block->pc, __ATOMIC_RELEASE);
}

void xlate_cache_clear_tables(void)
{
	uint32_t n = __atomic_load_n(&xc_n, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++) {
		struct xl_cache *c = __atomic_load_n(&xc_all[i], __ATOMIC_ACQUIRE);

		for (uint32_t k = 0; c && k < (1u << XL_TABLE_BITS); k++)
			__atomic_store_n(&c->table[k].pc, 0, __ATOMIC_RELAXED);
	}
}

bool xlate_cache_owns(const struct xl_cache *cache, uint64_t addr)
{
	uint32_t n = cache ? __atomic_load_n(&cache->narenas, __ATOMIC_ACQUIRE) : 0;

	for (uint32_t i = 0; i < n; i++)
		if (addr - (uint64_t)cache->arena[i].base < cache->arena[i].size)
			return true;
	return false;
}

struct xl_block *xlate_cache_block_at(struct xl_cache *cache, uint64_t addr,
				      const struct xl_routines **routines)
{
	uint32_t n = cache ? __atomic_load_n(&cache->narenas, __ATOMIC_ACQUIRE) : 0;

	if (routines)
		*routines = NULL;
	for (uint32_t i = 0; i < n; i++) {
		const struct xl_arena *a = &cache->arena[i];
		uint32_t lo = 0, hi = a->nblocks;

		if (addr - (uint64_t)a->base >= a->size)
			continue;
		if (addr < (uint64_t)a->base + a->r.len) {
			if (routines)
				*routines = &a->r;
			return NULL;
		}
		/* the last block whose code starts at or before addr */
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			struct xl_block *b =
				(struct xl_block *)(a->base + a->index[-(int64_t)mid - 1]);

			if ((uint64_t)b->code <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo) {
			struct xl_block *b = (struct xl_block *)(a->base + a->index[-(int64_t)lo]);

			if (addr - (uint64_t)b->code < b->code_len)
				return b;
		}
		return NULL;
	}
	return NULL;
}

void xlate_cache_reach(uint64_t lo, uint64_t hi, void *cache)
{
	struct xl_cache *c = cache;

	if (lo < hi && xlate_cache_arena_for(c, lo))
		xlate_cache_arena_for(c, hi - 1);
}

void xlate_cache_ready(void *arg)
{
	struct xl_ready *g = arg;
	struct xl_thread *x = &xl_self;
	int saved = errno;
	sigset_t all, old;

	/*
	 * Signals wait: a handler that longjmps would leave a cache half made
	 * (its mmaps near the code take a while), and the thread busy.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (!x->cache)
		x->cache = xlate_cache_get(g->t, g->near);
	else if (x->cache->epoch != __atomic_load_n(&xl_code_epoch, __ATOMIC_ACQUIRE))
		xlate_cache_flush(x->cache);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
}
