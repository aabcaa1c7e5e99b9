// SPDX-License-Identifier: MIT
/*
 * step: the steps counter.  Every evaluation is counted as with any
 * counter; some are single-stepped: the trap flag makes the CPU raise a
 * SIGTRAP after every instruction the thread retires, and the handler
 * counts the program's own (the architecture's step_trap.c says which).  The
 * counter's value is the thread's count, so a stepped evaluation's delta is
 * exactly the instructions of the function and of everything it calls:
 *
 *   caller: call F
 *   F:      the patch                        its own first instruction, if the
 *                                            patch leaves one: counted at entry
 *   stub:   call the entry thunk             -
 *   thunk:  xp_eval_enter -> step_enter      sampled? start = count; returns 2
 *           trap on, return                  trap after the return, in the stub
 *   stub:   call orig; relocated prologue    each moved instruction: 1
 *   F:      ... F's body, its callees ...    1 each (a hooked callee's stub: 0;
 *                                            the handler suspends stepping at
 *                                            each thunk and the thunk resumes)
 *           return                           1
 *   stub:   call the exit thunk              -, then suspended at the thunk
 *   thunk:  xp_eval_exit -> step_exit        delta = count - start
 *
 * (the architecture's step.c draws it with its instructions)
 *
 * Which evaluations are stepped depends on their index only, per
 * declaration and worker (EXTPROF_STEP_FIRST, EXTPROF_STEP_EVERY), never
 * on time, so that a deterministic program gives the same figures on every
 * run.  An evaluation that a hooked callee's stepping nests in is stepped
 * too.  The trap flag is the thread's own: a signal handler runs without it
 * (the kernel clears it at delivery and sigreturn restores it), so its
 * hooked calls are not stepped and nothing of it is counted.
 *
 * This file is the evaluation path's part: built with arch_eval_args,
 * and calling nothing outside the shim (tests/integration/eval_imports.sh).
 * step_setup.c sets the counter up; step_signal.c has the SIGTRAP handler;
 * the architecture's step_trap.c what a trap retired.
 */
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "arch/arch.h"
#include "core/state.h"
#include "store/worker.h"
#include "steps/step.h"
#include "steps/state.h"
#include "steps/xlate.h"

/*
 * Is evaluation number i (from 0) of @f's declaration on this worker to be
 * stepped?  Also when a sample is held back (step_hold): in its place.
 */
static bool step_due(const struct xp_thread *t, const struct xp_frame *f)
{
	const struct extprof_dump_decl *d = &t->worker->map.decls[f->idx];
	uint64_t i = d->evaluations;

	if (i < step_cfg.first || d->step_held)
		return true;
	return step_cfg.every && (i - step_cfg.first + 1) % step_cfg.every == 0;
}

/*
 * Whether a SIGTRAP has room where it would land: on the shim's sigaltstack
 * (step_alt_on), or, when the thread runs on its own sigaltstack already
 * (a signal handler's call: the kernel stays there), below the stack
 * pointer in it.  A call that would overflow a program's small sigaltstack
 * is not stepped: counted, and left for a later one to be stepped.
 */
static bool step_trap_room(void)
{
	stack_t cur;

	if (arch_syscall4(SYS_sigaltstack, 0, (long)&cur, 0, 0) < 0 || !(cur.ss_flags & SS_ONSTACK))
		return true;
	return (uint64_t)__builtin_frame_address(0) - (uint64_t)cur.ss_sp >= step_cfg.trap_room;
}

/*
 * The SIGTRAP handler's stack while a call is stepped: the shim's own for
 * the thread (worker.c), as its sigaltstack, so that the kernel's signal
 * frame (some 3 KiB with AVX-512) and the handler never land on the
 * program's stack, which may be small; the program's sigaltstack is kept
 * to be put back when stepping ends.  Not when the thread runs on its
 * sigaltstack already (the kernel refuses: SIGTRAP then stays there).
 */
static void step_alt_on(struct xp_thread *t)
{
	struct xp_step *s = &t->step;
	stack_t ours, old;

	if (s->alt_saved || !worker_own_altstack(t, &ours.ss_sp, &ours.ss_size))
		return;
	ours.ss_flags = 0;
	if (arch_syscall4(SYS_sigaltstack, (long)&ours, (long)&old, 0, 0) < 0)
		return;
	s->alt_old = old;
	s->alt_saved = 1;
}

void step_alt_off(struct xp_thread *thread, void *uc)
{
	struct xp_step *s = &thread->step;

	if (!s->alt_saved)
		return;
	/* from the trap's handler: the kernel puts it back as the handler returns */
	if (uc) {
		((ucontext_t *)uc)->uc_stack = s->alt_old;
		s->alt_saved = 0;
	} else if (!arch_syscall4(SYS_sigaltstack, (long)&s->alt_old, 0, 0, 0)) {
		s->alt_saved = 0;
	}
}

void step_end(struct xp_thread *thread, void *uc)
{
	struct xp_step *s = &thread->step;
	uint64_t trap = STEP_TRAP_BIT;

	if (step_cfg.engine == STEP_ENGINE_TRANSLATE) {
		xlate_end(thread);
		return;
	}
	s->depth = 0;
	s->prev = 0;
	step_alt_off(thread, uc);
	if (uc)
		arch_ctx_step(uc, false);
	if (!s->trap_wanted)
		return;
	s->trap_wanted = 0;
	if (uc) /* sigaddset's work, without libc: the first word holds signals 1 to 64 */
		((uint64_t *)&((ucontext_t *)uc)->uc_sigmask)[0] |= trap;
	else
		arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&trap, 0, sizeof(trap));
}

/*
 * Whether this thread may be stepped: our handler is SIGTRAP's (a raw
 * rt_sigaction may have replaced it) and SIGTRAP is not blocked (a step
 * trap would then kill the process): it is unblocked for the while, and
 * blocked again when stepping ends.
 */
static bool step_can_start(struct xp_step *s)
{
	uint64_t trap = STEP_TRAP_BIT, cur = 0;
	struct step_kact k;

	if (arch_syscall4(SYS_rt_sigaction, SIGTRAP, 0, (long)&k, sizeof(k.mask)) < 0 ||
	    k.handler != step_sigtrap_handler)
		return false;
	if (arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&cur, sizeof(cur)) < 0)
		return false;
	if (cur & trap) {
		if (arch_syscall4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&trap, 0, sizeof(trap)) <
		    0)
			return false;
		s->trap_wanted = 1;
	}
	return true;
}

int step_enter(struct xp_thread *thread, struct xp_frame *frame, uint64_t slot)
{
	struct xp_step *s = &thread->step;
	const uint8_t *stub = xp.decls[frame->idx].stub;
	bool cont = s->susp_slot && s->susp_slot == slot;
	bool eval = !(frame->flags & (XP_FRAME_RECURSIVE | XP_FRAME_UNCOUNTED | XP_FRAME_OUTSIDE));
	uint32_t credit;

	/* the code cache is the thread's own (xl_self): a shared block's other
	 * thread (clone.c) runs natively, its evaluations not counted whole */
	if (step_cfg.engine == STEP_ENGINE_TRANSLATE)
		return thread == &xp_self ? xlate_enter(thread, frame, slot) : 0;
	frame->start = s->count;
	if (cont)
		s->susp_slot = 0;
	if (s->depth) {
		if (step_alive(thread)) {
			/* a signal handler's call on a stepped thread: not stepped */
			if (!cont)
				return 0;
			/* inside a stepped activation: its entry credit was stepped already */
			if (eval) {
				frame->flags |= XP_FRAME_STEPPED;
				frame->start = s->count - (stub ? arch_step_entry_credit(stub) : 0);
			}
			s->prev = 0;
			return 2;
		}
		step_end(thread, NULL);
	}
	/* under a seccomp filter, no more: stepping makes system calls (sandbox.c) */
	if (!eval || xp.sandboxed || !step_due(thread, frame) || !step_trap_room() ||
	    !step_can_start(s))
		return 0;
	step_alt_on(thread);
	credit = stub ? arch_step_entry_credit(stub) : 0;
	frame->start = s->count;
	s->count += credit;
	frame->flags |= XP_FRAME_STEPPED;
	s->depth = thread->depth;
	s->slot = slot;
	s->limit = s->count + step_cfg.limit;
	s->prev = 0;
	return 2;
}

bool step_hold(struct extprof_dump_decl *decl, const struct xp_frame *frame, uint64_t *delta)
{
	uint64_t least;

	if (!(frame->flags & XP_FRAME_STEP_BOUND)) {
		/* a sample without binding: the held one is the loader's, dropped */
		decl->step_held = 0;
		return false;
	}
	least = decl->step_held && decl->step_held - 1 < *delta ? decl->step_held - 1 : *delta;
	if (decl->step_redo >= STEP_REDO_MAX) {
		/* every one binds: the least of them is what there is */
		decl->step_held = 0;
		*delta = least;
		return false;
	}
	decl->step_redo++;
	decl->step_held = least + 1;
	return true;
}

int step_exit(struct xp_thread *thread, const struct xp_frame *frame)
{
	struct xp_step *s = &thread->step;

	if (step_cfg.engine == STEP_ENGINE_TRANSLATE)
		return xlate_exit(thread, frame);
	if (!s->depth)
		return 0;
	if (!step_alive(thread)) {
		step_end(thread, NULL);
		return 0;
	}
	/* not reached by stepping: a signal handler's call on a stepped thread */
	if (!(frame->flags & XP_FRAME_STEP_EXIT))
		return 0;
	s->prev = 0;
	return 1;
}

void step_exit_mark(struct xp_frame *frame, uint64_t slot)
{
	if (step_cfg.engine == STEP_ENGINE_TRANSLATE)
		xlate_mark_exit(frame, slot);
}

void step_longjmp(uint64_t sp)
{
	if (step_cfg.engine == STEP_ENGINE_TRANSLATE && xp.counter.kind == EXTPROF_COUNTER_STEPS)
		xlate_longjmp(&xp_self, sp);
}

void step_abandon(const struct xp_frame *frame)
{
	if (step_cfg.engine == STEP_ENGINE_TRANSLATE)
		xlate_abandon(&xp_self, frame);
}
