// SPDX-License-Identifier: MIT
/*
 * xlate_session: where the evaluation path (step.c, from the thunks) hands
 * a thread to the code cache and takes it back.  A session is the time
 * from the entry of the outermost hooked call to its return; in it, the
 * thread runs translated code, each block adding its instructions to the
 * thread's count (xp_self.step.count), and every hooked call inside it is
 * an evaluation of its own, counted from that same count:
 *
 *   caller --call F--> F: endbr64, jmp stub_F (natively: the credit, 1)
 *     stub_F -> thunk -> xlate_enter   a session starts: start = count;
 *                                      returns 3: the thunk returns into the
 *                                      cache's lookup, at the stub's "call
 *                                      orig" (tgt), not into the stub
 *     [cache] call orig, F's body      count += each block's instructions
 *       call G: G's entry block        counts G's endbr64, then leaves for
 *                                      stub_G with via = rsp
 *         stub_G -> xlate_enter        via says the cache sent it: G's start
 *                                      = count - credit; back into the cache
 *       [cache] G's body ... ret       R2 of stub_G: out with exited = rsp
 *         stub_G's exit thunk          xlate_mark_exit: G whole; its delta
 *                                      recorded; xlate_exit returns 3: the
 *                                      thunk returns into ret_entry, which
 *                                      pops R1 and looks it up
 *     [cache] ... F's ret              R2 of stub_F: out, exited
 *     stub_F's exit thunk              F whole, recorded; the session ends:
 *                                      natively on to the caller
 *
 * A hooked call that does not come from the cache while a session runs (a
 * signal handler's, not wrapped by the shim, or code that ran natively) is
 * not translated: its evaluation, and that of a function whose return did
 * not come from the cache, have no delta (they were not counted whole).
 *
 * This file is the evaluation path's part: built with arch_eval_args, and
 * calling nothing outside the shim; the cache is made in a slow path.
 */
#include "arch/arch.h"
#include "core/state.h"
#include "store/worker.h"
#include "steps/state.h"
#include "steps/xlate.h"

/* The thread's cache, ready for a session near @near, its slots set: false if none. */
static bool xs_ready(struct xp_thread *t, uint64_t near)
{
	struct xl_thread *x = &xl_self;

	if (!x->cache || x->cache->epoch != __atomic_load_n(&xl_code_epoch, __ATOMIC_ACQUIRE)) {
		struct xl_ready g = {t, near};

		/* a seccomp filter: no system call, the slow path's mmap nor its signal mask */
		if (__atomic_load_n(&xp.sandboxed, __ATOMIC_ACQUIRE))
			return false;

		t->busy = 1;
		/* on the shim's stack: the program's may be a small sigaltstack */
		worker_call_own(t, xlate_cache_ready, &g);
		t->busy = 0;
		if (!x->cache)
			return false;
	}
	x->table = (uint64_t)x->cache->table;
	x->dstack = ((uint64_t)x->cache->dstack + XL_DSTACK_BYTES) & ~15ull;
	return true;
}

/* Go on in the cache at the translation of native @pc. */
static int xs_go(struct xl_thread *x, uint64_t pc)
{
	x->tgt = pc;
	x->resume = (uint64_t)x->cache->arena[0].r.lookup;
	return 3;
}

void xlate_end(struct xp_thread *thread)
{
	thread->step.depth = 0;
	thread->step.prev = 0;
	xl_self.active = 0;
}

int xlate_enter(struct xp_thread *thread, struct xp_frame *frame, uint64_t slot)
{
	struct xl_thread *x = &xl_self;
	struct xp_step *s = &thread->step;
	const uint8_t *stub = xp.decls[frame->idx].stub;
	uint32_t credit = stub ? arch_step_entry_credit(stub) : 0;
	bool eval = !(frame->flags & (XP_FRAME_RECURSIVE | XP_FRAME_UNCOUNTED | XP_FRAME_OUTSIDE));
	bool via = x->via && x->via == slot;

	x->via = 0;
	frame->start = s->count;
	if (!stub)
		return 0;
	if (s->depth) {
		if (step_alive(thread)) {
			/* a call the cache did not send: a signal handler's, or native code's */
			if (!via)
				return 0;
			if (eval) {
				frame->flags |= XP_FRAME_STEPPED;
				frame->start = s->count - credit;
			}
			return xs_go(x, arch_stub_call(stub));
		}
		xlate_end(thread);
	}
	if (!eval || x->no_xlate || !xs_ready(thread, (uint64_t)stub))
		return 0;
	/* the patch's own instruction ran natively, or (via) was counted by the cache */
	if (!via)
		s->count += credit;
	frame->start = s->count - credit;
	frame->flags |= XP_FRAME_STEPPED;
	s->depth = thread->depth;
	s->slot = slot;
	s->prev = 0;
	x->active = 1;
	return xs_go(x, arch_stub_call(stub));
}

void xlate_mark_exit(struct xp_frame *frame, uint64_t slot)
{
	struct xl_thread *x = &xl_self;

	if (x->exited && x->exited == slot + 8) {
		frame->flags |= XP_FRAME_STEP_EXIT;
		x->exited = 0;
	}
}

int xlate_exit(struct xp_thread *thread, const struct xp_frame *frame)
{
	struct xl_thread *x = &xl_self;

	if (!thread->step.depth)
		return 0;
	if (!step_alive(thread)) {
		xlate_end(thread);
		return 0;
	}
	/* it did not return from the cache: its caller goes on natively too */
	if (!(frame->flags & XP_FRAME_STEP_EXIT) || !x->cache)
		return 0;
	x->resume = (uint64_t)x->cache->arena[0].r.ret_entry;
	return 3;
}

void xlate_after_fork(struct xp_thread *thread)
{
	xlate_end(thread);
	xl_self.via = 0;
	xl_self.exited = 0;
}

void xlate_abandon(struct xp_thread *thread, const struct xp_frame *frame)
{
	struct xl_cache *c = xl_self.cache;

	if (!thread->step.depth || !thread->stack ||
	    frame != &thread->stack[thread->step.depth - 1])
		return;
	xlate_end(thread);
	/* pc only: the lookup then misses, and the dispatcher finds no session */
	for (uint32_t k = 0; c && k < (1u << XL_TABLE_BITS); k++)
		c->table[k].pc = 0;
}

void xlate_longjmp(struct xp_thread *thread, uint64_t sp)
{
	struct xl_thread *x = &xl_self;
	uint64_t top = x->dstack, bottom = x->cache ? (uint64_t)x->cache->dstack : 0;

	if (!x->in_disp || (sp >= bottom && sp < top))
		return;
	if (x->disp_busy) {
		x->disp_busy = 0;
		thread->busy--;
	}
	x->in_disp = 0;
	x->no_xlate = 0;
}
