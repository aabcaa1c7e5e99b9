// SPDX-License-Identifier: MIT
/*
 * xlate_translate: a native address translated into a thread's cache, for
 * the dispatcher (xlate_dispatch.c) and the signal path (xlate_signal.c):
 * the arena near it (xlate_cache.c), the port's translator
 * (arch_xl_translate) writing the block's code at the arena's next free
 * byte, then its record after it, in the arena's index and the cache's
 * hash.  A full arena, or a hash 3/4 full, flushes the whole cache first.
 */
#include <stdbool.h>

#include "arch/arch.h"
#include "steps/xlate.h"

/* Translate @pc into arena @a: the block, or NULL (no room: @full set). */
static struct xl_block *xt_in(struct xl_cache *c, struct xl_arena *a, uint64_t pc, bool *full)
{
	struct xl_block tmp;
	struct xl_where w;
	long len;

	*full = xlate_cache_room(a) < XL_BLOCK_ROOM;
	if (*full)
		return NULL;
	w.out = a->next;
	w.room = XL_BLOCK_ROOM - sizeof(struct xl_block);
	w.lo = (uint64_t)a->base;
	w.hi = (uint64_t)a->base + a->size;
	w.r = &a->r;
	len = arch_xl_translate(pc, &w, &tmp);
	if (len < 0)
		return NULL;
	return xlate_cache_add(c, a, &tmp, len);
}

struct xl_block *xlate_translate(struct xl_cache *c, uint64_t pc)
{
	struct xl_arena *a;
	struct xl_block *b;
	bool full;

	if (c->nhash >= XL_HASH_SLOTS / 4 * 3)
		xlate_cache_flush(c);
	a = xlate_cache_arena_for(c, pc);
	if (!a)
		return NULL;
	b = xt_in(c, a, pc, &full);
	if (!b && full) {
		xlate_cache_flush(c);
		b = xt_in(c, a, pc, &full);
	}
	return b;
}
