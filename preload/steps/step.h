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

#pragma GCC visibility push(hidden)

/* Defaults: see docs/measurement.md, "What it costs". */
#define STEP_FIRST_DEFAULT 1
#define STEP_EVERY_DEFAULT 1048576
#define STEP_LIMIT_DEFAULT 1000000
/* The handler's own share of the stack a SIGTRAP takes (some 0.8 KiB measured), with room to spare.
 */
#define STEP_TRAP_HANDLER 2048
/* Without AT_MINSIGSTKSZ: the kernel's frame, as MINSIGSTKSZ says, and the handler's share. */
#define STEP_TRAP_ROOM (2048 + STEP_TRAP_HANDLER)

/* SIGTRAP in a kernel signal set (the first word holds signals 1 to 64). */
#define STEP_TRAP_BIT (1ull << (SIGTRAP - 1))

/* The kernel's struct sigaction, on the architectures that have sa_restorer. */
struct step_kact {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

/* How steps counts (EXTPROF_STEP_ENGINE). */
enum step_engine {
	STEP_ENGINE_TRANSLATE, /* every evaluation, from a code cache (xlate.h) */
	STEP_ENGINE_TRAP,      /* a sample of them, single-stepped */
};

/* The engine and the trap engine's sampling (EXTPROF_STEP_*), set by step_setup(). */
struct step_config {
	uint32_t first;	    /* the first evaluations of each declaration on each worker */
	uint32_t every;	    /* then every every-th; 0: no more */
	uint64_t limit;	    /* a stepped evaluation is given up past this many instructions */
	uint64_t trap_room; /* stack a SIGTRAP takes: the kernel's frame and the handler */
	uint32_t engine;    /* enum step_engine */
};
extern struct step_config step_cfg;

/* The shim's own text, whose instructions are never counted (step_setup.c). */
extern uint64_t step_text_lo, step_text_hi;

/* Whether @pc lies in the shim's own text. */
static inline bool step_in_shim(uint64_t pc)
{
	return pc - step_text_lo < step_text_hi - step_text_lo;
}

struct dump_meta;

/*
 * Make steps the counter, by the engine EXTPROF_STEP_ENGINE names (the code
 * cache when @automatic: auto's choice): find the shim's text; the code
 * cache made ready (xlate_setup), or for the trap engine EXTPROF_STEP_FIRST,
 * _EVERY and _LIMIT read into @meta, a tracer refused, the SIGTRAP handler
 * installed.  0, or -errno with the reason said in one line.
 */
int step_setup(struct dump_meta *meta, bool automatic);

/*
 * The entry of activation @f at @slot, its frame pushed: whether it is
 * stepped, and its start.  Returns 2 when the entry thunk must set the trap
 * flag as it leaves, else 0.
 */
int step_enter(struct xp_thread *t, struct xp_frame *f, uint64_t slot);

/*
 * The exit of activation @f, popped and recorded.  Returns 1 when stepping
 * goes on in the caller (the exit thunk sets the trap flag), else 0.
 */
int step_exit(struct xp_thread *t, const struct xp_frame *f);

/*
 * Before the record of @f, an activation whose return came to its stub's
 * exit at @slot: whether the code cache counted it to its end.
 */
void step_exit_mark(struct xp_frame *f, uint64_t slot);

/* The calling thread longjmps to stack pointer @sp. */
void step_longjmp(uint64_t sp);

/* Activation @f, of the calling thread, is abandoned (a longjmp, an exception past it). */
void step_abandon(const struct xp_frame *f);

/* Whether @f's delta is a whole stepped evaluation's: stepped from entry to exit. */
static inline bool step_sampled(const struct xp_frame *f)
{
	return (f->flags & (XP_FRAME_STEPPED | XP_FRAME_STEP_EXIT)) ==
	       (XP_FRAME_STEPPED | XP_FRAME_STEP_EXIT);
}

/*
 * Lazy binding.  A stepped evaluation during which the dynamic loader
 * resolved a symbol (a first call through a PLT entry) counts the loader's
 * work, once in the run: its sample is held back, and the next evaluation
 * of the declaration on the worker is stepped in its place, up to
 * STEP_REDO_MAX times; the least held one is recorded only if no sample
 * comes without binding (at the cap, or at exit: xp_eval_record_held).
 * Returns whether @f's sample, of declaration @d, is held (then not
 * recorded); else *@delta is the sample to record.
 */
bool step_hold(struct extprof_dump_decl *d, const struct xp_frame *f, uint64_t *delta);
#define STEP_REDO_MAX 8

/*
 * The loader's lazy-binding entries (_dl_runtime_resolve*: what every
 * lazily bound object's GOT[2] holds), at most STEP_RESOLVERS; 0: none.
 */
#define STEP_RESOLVERS 4
extern uint64_t step_resolvers[STEP_RESOLVERS];

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
static inline void step_pass(struct xp_thread *t)
{
	t->step.susp_slot = 0;
}

/*
 * The program's sigaltstack back in place of the shim's (step.c): through
 * the trap's context @uc from its handler, else now.
 */
void step_alt_off(struct xp_thread *t, void *uc);

/* The calling thread stops stepping now (it is exiting, or the process is). */
void step_stop_self(void);
/* The same, @t the calling thread's own state (xp_self's or xp_foreign's). */
void step_stop(struct xp_thread *t);
/*
 * A seccomp filter may come (sandbox.c), thread @t calling: the trap engine
 * stops stepping (its handler makes system calls); the code cache makes
 * the calling thread's memory now, while mmap may still be called.
 */
void step_prepare_sandbox(struct xp_thread *t);

/* In a fork child: the parent's stepping is not the child's. */
void step_reset_after_fork(void);

/*
 * Whether @sp is on a stack of the steps engine's own (the calling thread's
 * code cache's dispatcher stack, where a signal handler that interrupted
 * the dispatcher runs): not the thread's.
 */
bool step_own_stack(uint64_t sp);

/* Whether thread @t's outermost stepped activation is still on its shadow stack. */
bool step_alive(const struct xp_thread *t);

/*
 * Stepping is over: the trap flag off in @uc when a trap's handler ends it
 * (the caller clears it otherwise), and SIGTRAP blocked again if the program
 * asked for it meanwhile.
 */
void step_end(struct xp_thread *t, void *uc);

/*
 * step_signal.c: install the SIGTRAP handler, the program's own chained to
 * it; 0 or -errno.  step_sigtrap_handler is its address.
 */
int step_signal_install(void);
extern uint64_t step_sigtrap_handler;

#pragma GCC visibility pop

#endif
