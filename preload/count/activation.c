// SPDX-License-Identifier: MIT
/*
 * activation: the one place that counts an abandoned activation, whatever
 * left it behind: a longjmp or an exception past it (eval.c, longjmp.c,
 * unwind.c), its thread's exit (worker.c), the process's exit or exec
 * (worker.c, exec.c), the end of an attachment (attach.c).  Ending one is
 * three counts: the dump's "abandoned", the declaration's open activations
 * (recursion is told by them), and the window's, when the activation is of
 * the window function: a window left open would count every later call of
 * every thread as inside it.
 */
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
