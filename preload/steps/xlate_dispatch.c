// SPDX-License-Identifier: MIT
/*
 * xlate_dispatch: where translated code goes when it meets a native address
 * it has no translation of yet (an exit stub of a block, or a miss of the
 * lookup table), on the thread's dispatcher stack, its registers and
 * extended state kept (the port's xlate_entry.S):
 *
 *   from an exit stub (arg)        its native target; linked to the target's
 *                                  translation once there is one
 *   from the lookup (tgt)          the native target
 *   no session any more            natively (a longjmp or an exception left
 *                                  the outermost hooked call)
 *   code changed since (epoch)     the cache flushed first
 *   translated before, or now      into the lookup table; on in the cache
 *   cannot be translated           natively: the hooked calls in progress
 *                                  will not be counted whole
 *
 * It runs "busy" (hooked functions it calls, Zydis's and libc's, pass
 * uncounted) and leaves errno as it was.
 */
#include <errno.h>

#include "arch/arch.h"
#include "core/state.h"
#include "steps/state.h"
#include "steps/xlate.h"

/* Called through xp_call_preserving by xlate_dispatch_entry: sets xl_self.jmp. */
void xlate_dispatch(void *unused);

void xlate_dispatch(void *unused)
{
	struct xl_thread *x = &xl_self;
	struct xp_thread *t = &xp_self;
	struct xl_cache *c = x->cache;
	struct xl_block *from = NULL, *b;
	const struct xl_exit *e = NULL;
	uint64_t tgt = x->tgt, flushes;
	int saved = errno;

	(void)unused;
	t->busy++;
	x->disp_busy = 1;
	if (x->arg) {
		from = xlate_cache_block_at(c, x->arg, NULL);
		for (uint32_t i = 0; from && i < from->nexits; i++)
			if (from->code + from->exit[i].stub_off == (uint8_t *)x->arg)
				e = &from->exit[i];
		if (!e)
			from = NULL;
		else
			tgt = e->target;
	}
	x->jmp = tgt;
	/* no session: the outermost hooked call is gone (a longjmp, an exception) */
	if (!x->active || !t->step.depth)
		goto out;
	if (c->epoch != __atomic_load_n(&xl_code_epoch, __ATOMIC_ACQUIRE)) {
		xlate_cache_flush(c);
		from = NULL;
	}
	b = xlate_cache_find(c, tgt);
	if (!b) {
		flushes = c->flushes;
		b = xlate_translate(c, tgt);
		if (c->flushes != flushes)
			from = NULL;
	}
	if (!b)
		goto out;
	xlate_cache_publish(c, b);
	if (from)
		arch_xl_link(from, e, (uint64_t)b->code);
	x->jmp = (uint64_t)b->code;
	/* code changed meanwhile (another thread's dlclose): from scratch, at the next dispatch */
	if (c->epoch != __atomic_load_n(&xl_code_epoch, __ATOMIC_ACQUIRE))
		c->table[b->pc & ((1u << XL_TABLE_BITS) - 1)].pc = 0;
out:
	x->disp_busy = 0;
	t->busy--;
	errno = saved;
}
