// SPDX-License-Identifier: MIT
/*
 * state: the variables every part of the shim shares, defined apart from
 * all of them so that none depends on another for them: the process's
 * settings (xp), each thread's own state (xp_self), and what the
 * evaluation path counts for the whole process (the window, lost calls);
 * and the state of threads that have no TLS of their own (clone.c), found
 * by their thread id.  On the evaluation path: no lock, no libc.
 */
#include <sys/syscall.h>

#include "arch/arch.h"
#include "core/state.h"

struct xp_state xp;
__thread struct xp_thread xp_self __attribute__((tls_model("initial-exec")));
volatile int64_t xp_window_open;
volatile uint64_t xp_window_epoch;
uint64_t xp_lost;
uint64_t *xp_lost_at = &xp_lost;
struct xp_foreign xp_foreign[XP_MAX_FOREIGN];

/* Whether state @t holds an activation whose return address slot is @slot. */
static bool state_holds(const struct xp_thread *t, uint64_t slot)
{
	for (uint32_t i = t->depth; i > 0 && t->stack; i--) {
		if (t->stack[i - 1].slot == slot)
			return true;
	}
	return false;
}

/*
 * Under a seccomp filter no thread id can be asked for (sandbox.c): the
 * state that holds an activation at @slot is its thread's (no two threads'
 * live frames share an address), which the exit of a call pushed before
 * finds; anything else (a new call, a frame's address) finds none.
 */
static struct xp_thread *state_find_sandboxed(struct xp_thread *t, uint64_t slot)
{
	if (state_holds(t, slot))
		return t;
	for (uint32_t i = 0; i < XP_MAX_FOREIGN; i++) {
		if (__atomic_load_n(&xp_foreign[i].tid, __ATOMIC_ACQUIRE) &&
		    state_holds(&xp_foreign[i].t, slot))
			return &xp_foreign[i].t;
	}
	return NULL;
}

/*
 * A thread id costs a system call (some 350 ns on a VM, ten times a hooked
 * call): the block's own thread is told by its stack first, which holds
 * no other's unless clone() was given a stack inside it (shared_in_stack).
 */
struct xp_thread *state_find_thread(struct xp_thread *thread, uint64_t sp, bool claim)
{
	int32_t tid;

	if (__atomic_load_n(&thread->stack_known, __ATOMIC_ACQUIRE) && !thread->shared_in_stack &&
	    sp - thread->stack_lo < thread->stack_hi - thread->stack_lo)
		return thread;
	if (__builtin_expect(xp.sandboxed, 0))
		return state_find_sandboxed(thread, sp);
	tid = (int32_t)arch_syscall3_inline(SYS_gettid, 0, 0, 0);
	if (tid == thread->tid)
		return thread;
	for (uint32_t i = 0; i < XP_MAX_FOREIGN; i++) {
		if (__atomic_load_n(&xp_foreign[i].tid, __ATOMIC_ACQUIRE) == tid)
			return &xp_foreign[i].t;
	}
	for (uint32_t i = 0; claim && i < XP_MAX_FOREIGN; i++) {
		int32_t expect = 0;

		if (__atomic_compare_exchange_n(&xp_foreign[i].tid, &expect, tid, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &xp_foreign[i].t;
	}
	return NULL;
}
