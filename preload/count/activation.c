// SPDX-License-Identifier: MIT
/*
 * activation: the one place that counts an abandoned activation, whatever
 * left it behind: a longjmp or an exception past it (eval.c, longjmp.c,
 * unwind.c), its thread's exit (thread.c), the process's exit or exec
 * (thread.c, exec.c), the end of an attachment (attach.c).  Ending one is
 * three counts: the dump's "abandoned", the declaration's open activations
 * (recursion is told by them), and the window's, when the activation is of
 * the window function: a window left open would count every later call of
 * every thread as inside it.
 *
 * Also the real return addresses of a thread's activations, put back in
 * their slots for an unwinder or a stack walk, and the stubs' put back
 * after it (activation_restore_frames, activation_rehook_frames).
 */
#include "arch/arch.h"
#include "count/activation.h"
#include "steps/step.h"

void activation_abandon(struct xp_worker *w, struct xp_frame *f, unsigned how)
{
	struct extprof_dump_decl *d;

	/* steps: a session of the code cache may end with it */
	if ((how & ACTIVATION_ENDS) && xp.counter.kind == EXTPROF_COUNTER_STEPS)
		step_abandon(f);
	if (!w || (f->flags & XP_FRAME_UNCOUNTED) || f->idx >= w->map.ndecls)
		return;
	d = &w->map.decls[f->idx];
	if (how & ACTIVATION_UNDO) {
		d->abandoned--;
		return;
	}
	d->abandoned++;
	if (how & ACTIVATION_OWN)
		d->open--;
	if (!(how & ACTIVATION_ENDS))
		return;
	if (f->flags & XP_FRAME_WINDOW)
		__atomic_sub_fetch(&xp_window_open, 1, __ATOMIC_RELAXED);
	/* its return, if it comes, only puts the caller's address back */
	f->flags = (f->flags & ~XP_FRAME_WINDOW) | XP_FRAME_UNCOUNTED;
}

/* Put R1 back in every slot of this thread's activations. */
void activation_restore_frames(void)
{
	struct xp_thread *t = state_self((uint64_t)__builtin_frame_address(0), false);

	for (uint32_t i = 0; t && t->stack && i < t->depth; i++) {
		struct xp_frame *f = &t->stack[i];

		if (f->flags & XP_FRAME_RESTORED)
			continue;
		*(uint64_t *)f->slot = f->ret;
		f->flags |= XP_FRAME_RESTORED;
	}
}

/*
 * Frames whose slot lies below @sp were unwound; the others are live again
 * and go back through their stubs when they return.
 */
void activation_rehook_frames(uint64_t sp)
{
	struct xp_thread *t = state_self((uint64_t)__builtin_frame_address(0), false);
	struct xp_worker *w;

	if (!t)
		return;
	w = t->worker;
	while (t->stack && t->depth && t->stack[t->depth - 1].slot < sp)
		activation_abandon(w, &t->stack[--t->depth], ACTIVATION_GONE);
	for (uint32_t i = 0; t->stack && i < t->depth; i++) {
		struct xp_frame *f = &t->stack[i];

		/* an uncounted one returns straight to its caller: popped later
		 * (its stub may be another attachment's, see attach.c) */
		if (!(f->flags & XP_FRAME_RESTORED) || (f->flags & XP_FRAME_UNCOUNTED))
			continue;
		*(uint64_t *)f->slot = arch_stub_return(xp.decls[f->idx].stub);
		f->flags &= ~XP_FRAME_RESTORED;
	}
}
