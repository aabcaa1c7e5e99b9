// SPDX-License-Identifier: MIT
/*
 * longjmp: activations a longjmp leaves are abandoned at the jump, not at
 * some later call.  Without this, a call made after the jump from deeper in
 * the stack than the activations left behind would find them still open
 * and count as recursive.
 *
 * The jmp_buf's stack pointer (arch_jmpbuf_sp: glibc mangles it) says
 * where the jump lands.  Everything below that is gone.  A target
 * that is not on the thread's own stack (a coroutine library jumping
 * between stacks) is left to the lazy reaping of eval.c.  No <setjmp.h>:
 * its declarations of these would clash with a void * jmp_buf.
 */
#include <stdint.h>

#include "count/activation.h"
#include "arch/arch.h"
#include "core/interpose.h"
#include "core/state.h"
#include "host/longjmp.h"
#include "count/thread.h"
#include "store/worker.h"
#include "steps/step.h"

#define XP_EXPORT __attribute__((visibility("default")))

static void longjmp_reap(const void *env)
{
	struct xp_thread *t = state_self((uint64_t)__builtin_frame_address(0), false);
	uint64_t sp = arch_jmpbuf_sp(env);
	bool known;

	/* a signal handler leaving the code cache's dispatcher it interrupted
	 * (the cache is the thread's own: never a shared block's other thread) */
	if (t == &xp_self)
		step_longjmp(sp);
	if (!t || !t->stack)
		return;
	/* the shim's own calls (reading /proc/self/maps) are not the program's */
	t->busy++;
	known = thread_know_stack(t, (uint64_t)__builtin_frame_address(0));
	t->busy--;
	if (!known || sp < t->stack_lo || sp >= t->stack_hi)
		return;
	/* a push this jump leaves half-done (out of a signal handler) is no more */
	t->filling = 0;
	while (t->depth) {
		struct xp_frame *f = &t->stack[t->depth - 1];

		if (f->slot >= t->stack_lo && f->slot < t->stack_hi && f->slot >= sp)
			break;
		activation_abandon(t->worker, f, ACTIVATION_GONE);
		t->depth--;
	}
}

/*
 * The real functions, looked up at start-up (longjmp_resolve): a signal
 * handler may siglongjmp, and dlsym takes the loader's lock, which the code
 * it interrupted may hold.  Before that (another library's constructor), on
 * first use.
 */
enum { LJ_LONGJMP, LJ__LONGJMP, LJ_SIGLONGJMP, LJ_LONGJMP_CHK, LJ_N };
static const char *const longjmp_names[LJ_N] = {"longjmp", "_longjmp", "siglongjmp",
						"__longjmp_chk"};
static void *longjmp_cache[LJ_N];
static const struct interpose_table longjmp_reals = {longjmp_names, longjmp_cache, LJ_N};

static void *longjmp_real(int which)
{
	return interpose_real(&longjmp_reals, which);
}

void longjmp_resolve(void)
{
	interpose_resolve(&longjmp_reals);
}

#define LONGJMP_WRAP(name, which)                                                                  \
	XP_EXPORT __attribute__((noreturn)) void name(void *env, int val)                          \
	{                                                                                          \
		void (*real)(void *, int) = (void (*)(void *, int))longjmp_real(which);            \
                                                                                                   \
		longjmp_reap(env);                                                                 \
		real(env, val);                                                                    \
		__builtin_unreachable();                                                           \
	}

LONGJMP_WRAP(longjmp, LJ_LONGJMP)
LONGJMP_WRAP(_longjmp, LJ__LONGJMP)
LONGJMP_WRAP(siglongjmp, LJ_SIGLONGJMP)
LONGJMP_WRAP(__longjmp_chk, LJ_LONGJMP_CHK)
