/* SPDX-License-Identifier: MIT */
/*
 * step: the steps counter.  Every evaluation is counted; a deterministic
 * sample of them (by evaluation index, per declaration and worker) is
 * single-stepped with the trap flag, one SIGTRAP per retired user-mode
 * instruction, and only the function's own instructions and those of
 * everything it calls are counted: none of the shim's (step.c).
 */
#ifndef EXTPROF_PRELOAD_STEP_H
#define EXTPROF_PRELOAD_STEP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/state.h"
#include "steps/state.h"

#pragma GCC visibility push(hidden)

/* SIGTRAP in a kernel signal set (the first word holds signals 1 to 64). */
#define STEP_TRAP_BIT (1ull << (SIGTRAP - 1))

/* The kernel's struct sigaction, on the architectures that have sa_restorer. */
struct step_kact {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

/* Whether @pc lies in the shim's own text. */
static inline bool step_in_shim(uint64_t pc)
{
	return pc - step_text_lo < step_text_hi - step_text_lo;
}

struct dump_meta;
struct arch_thunks;

/*
 * Make steps the counter, by the engine EXTPROF_STEP_ENGINE names (the code
 * cache when @automatic: auto's choice): find the shim's text; the code
 * cache made ready (xlate_setup), or for the trap engine EXTPROF_STEP_FIRST,
 * _EVERY and _LIMIT read into @meta, a tracer refused, the thunks' entries
 * @thunks learnt (where stepping is suspended), the SIGTRAP handler
 * installed.  0, or -errno with the reason said in one line.
 */
int step_setup(struct dump_meta *meta, bool automatic, const struct arch_thunks *thunks);

/*
 * The entry of activation @frame at @slot, its frame pushed: whether it is
 * stepped, and its start.  Returns 2 when the entry thunk must set the trap
 * flag as it leaves, else 0.
 */
int step_enter(struct xp_thread *thread, struct xp_frame *frame, uint64_t slot);

/*
 * The exit of activation @frame, popped and recorded.  Returns 1 when stepping
 * goes on in the caller (the exit thunk sets the trap flag), else 0.
 */
int step_exit(struct xp_thread *thread, const struct xp_frame *frame);

/*
 * Before the record of @frame, an activation whose return came to its stub's
 * exit at @slot: whether the code cache counted it to its end.
 */
void step_exit_mark(struct xp_frame *frame, uint64_t slot);

/* The calling thread longjmps to stack pointer @sp. */
void step_longjmp(uint64_t sp);

/* Activation @frame, of the calling thread, is abandoned (a longjmp, an exception past it). */
void step_abandon(const struct xp_frame *frame);

/* Whether @frame's delta is a whole stepped evaluation's: stepped from entry to exit. */
static inline bool step_sampled(const struct xp_frame *frame)
{
	return (frame->flags & (XP_FRAME_STEPPED | XP_FRAME_STEP_EXIT)) ==
	       (XP_FRAME_STEPPED | XP_FRAME_STEP_EXIT);
}

/*
 * Lazy binding.  A stepped evaluation during which the dynamic loader
 * resolved a symbol (a first call through a PLT entry) counts the loader's
 * work, once in the run: its sample is held back, and the next evaluation
 * of the declaration on the worker is stepped in its place, up to
 * STEP_REDO_MAX times; the least held one is recorded only if no sample
 * comes without binding (at the cap, or at exit: record_held_samples).
 * Returns whether @frame's sample, of @decl, is held (then not
 * recorded); else *@delta is the sample to record.
 */
bool step_hold(struct extprof_dump_decl *decl, const struct xp_frame *frame, uint64_t *delta);
#define STEP_REDO_MAX 8

/* Learn them from the objects loaded now (at start-up, and after a dlopen). */
void step_find_resolvers(void);

/* Whether @pc is the entry of the loader's lazy binding. */
static inline bool step_is_resolver(uint64_t pc)
{
	for (int i = 0; i < STEP_RESOLVERS && step_resolvers[i]; i++)
		if (pc == step_resolvers[i])
			return true;
	return false;
}

/* A call passed through unhooked: a suspension its thunk began ends here. */
static inline void step_pass(struct xp_thread *thread)
{
	thread->step.susp_slot = 0;
}

/*
 * The program's sigaltstack back in place of the shim's (step.c): through
 * the trap's context @uc from its handler, else now.
 */
void step_alt_off(struct xp_thread *thread, void *uc);

/* The calling thread stops stepping now (it is exiting, or the process is). */
void step_stop_self(void);
/* The same, @thread the calling thread's own state (xp_self's or xp_foreign's). */
void step_stop(struct xp_thread *thread);
/*
 * A seccomp filter may come (sandbox.c), @thread calling: the trap engine
 * stops stepping (its handler makes system calls); the code cache makes
 * the calling thread's memory now, while mmap may still be called.
 */
void step_prepare_sandbox(struct xp_thread *thread);

/* In a fork child: the parent's stepping is not the child's. */
void step_reset_after_fork(void);

/*
 * Whether @sp is on a stack of the steps engine's own (the calling thread's
 * code cache's dispatcher stack, where a signal handler that interrupted
 * the dispatcher runs): not the thread's.
 */
bool step_own_stack(uint64_t sp);

/*
 * Stepping is over: the trap flag off in @uc when a trap's handler ends it
 * (the caller clears it otherwise), and SIGTRAP blocked again if the program
 * asked for it meanwhile.
 */
void step_end(struct xp_thread *thread, void *uc);

/*
 * step_signal.c: install the SIGTRAP handler, the program's own chained to
 * it (its address in step_sigtrap_handler); 0 or -errno.
 */
int step_signal_install(void);

#pragma GCC visibility pop

#endif
