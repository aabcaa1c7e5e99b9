// SPDX-License-Identifier: MIT
/*
 * clone: threads made without TLS of their own.  glibc's clone() with
 * CLONE_VM and without CLONE_SETTLS starts a thread (or a process sharing
 * the memory) on its parent's thread pointer: both would use the parent's
 * xp_self, its shadow stack and its worker, and push and pop each other's
 * activations.  Before such a child exists, the wrapper marks the parent's
 * block shared: from then on every call on that block takes the C path
 * (the stubs' fast path tests the mark beside busy and filling), where
 * state_self() tells the block's own thread by the stack its call is on,
 * else by its thread id, and gives every other thread a state of its own
 * (state.c), given back when its function returns:
 *
 *   parent  clone(fn, stack, CLONE_VM ..., arg)
 *             xp_self: shared; its thread id and stack range; whether
 *             stack lies inside that range (then the id always decides)
 *             real clone(clone_start, s, ..., s), s = {fn, arg} at the
 *             top of stack
 *   child   clone_start: fn(arg), counted in a state and a worker of its
 *             own; both given back; returns into glibc, which ends it
 *
 * A CLONE_VFORK child runs while its parent waits, on its parent's state,
 * as a vfork() child does.  A clone system call made without glibc's
 * clone() is not seen: its child shares its parent's state as before.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>

#include "arch/arch.h"
#include "core/interpose.h"
#include "core/state.h"
#include "count/thread.h"
#include "store/worker.h"

#define XP_EXPORT __attribute__((visibility("default")))

typedef int (*clone_fn)(int (*fn)(void *), void *stack, int flags, void *arg, ...);

static const char *const clone_names[] = {"clone"};
static void *clone_cache[1];
static const struct interpose_table clone_reals = {clone_names, clone_cache, 1};

/* What the child starts with, at the top of the stack it was given. */
struct clone_start {
	int (*fn)(void *);
	void *arg;
};

/*
 * The child's own state back to xp_foreign, its worker to the pool.  Its
 * signals stay blocked from here to its end, a few instructions later in
 * glibc: a handler's hooked call would take the state again.
 */
static void clone_give_back(void)
{
	struct xp_thread *t = state_self((uint64_t)__builtin_frame_address(0), false);
	struct xp_foreign *f;
	uint64_t all = ~0ull;

	if (!t || t == &xp_self)
		return;
	/* under a seccomp filter, no system call (sandbox.c) */
	if (!xp.sandboxed)
		arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, sizeof(all));
	thread_end(t);
	f = (struct xp_foreign *)((char *)t - offsetof(struct xp_foreign, t));
	memset(&f->t, 0, sizeof(f->t));
	__atomic_store_n(&f->tid, 0, __ATOMIC_RELEASE);
}

static int clone_start(void *p)
{
	struct clone_start *s = p;
	int ret = s->fn(s->arg);

	clone_give_back();
	return ret;
}

/* The calling thread's block becomes shared with a child whose stack ends at @child_top. */
static void clone_share_self(uint64_t child_top)
{
	struct xp_thread *t = &xp_self;

	if (!__atomic_load_n(&t->shared, __ATOMIC_ACQUIRE)) {
		/* no other thread has run on it yet: it is the caller's own */
		t->busy++;
		thread_know_stack(t, (uint64_t)__builtin_frame_address(0));
		t->busy--;
		/* under a seccomp filter, no system call (state.c says how the
		 * block's own thread is told then) */
		if (!xp.sandboxed)
			t->tid = (int32_t)arch_syscall4(SYS_gettid, 0, 0, 0, 0);
	}
	/* unknown (a sigaltstack) or holding the child's stack: the id decides */
	if (!__atomic_load_n(&t->stack_known, __ATOMIC_ACQUIRE) ||
	    child_top - 1 - t->stack_lo < t->stack_hi - t->stack_lo)
		t->shared_in_stack = 1;
	__atomic_store_n(&t->shared, 1, __ATOMIC_SEQ_CST);
}

/*
 * glibc's clone: its last three arguments are read whether or not the
 * flags say they are there, as glibc's own does; the kernel reads them
 * only when they are.
 */
XP_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	clone_fn real = (clone_fn)interpose_real(&clone_reals, 0);
	void *ptid, *tls, *ctid;
	struct clone_start *s;
	va_list ap;

	va_start(ap, arg);
	ptid = va_arg(ap, void *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, void *);
	va_end(ap);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!fn || !stack || !(flags & CLONE_VM) || (flags & (CLONE_SETTLS | CLONE_VFORK)))
		return real(fn, stack, flags, arg, ptid, tls, ctid);
	clone_share_self((uint64_t)stack);
	s = (struct clone_start *)(((uint64_t)stack - sizeof(*s)) & ~(uint64_t)15);
	s->fn = fn;
	s->arg = arg;
	return real(clone_start, s, flags, s, ptid, tls, ctid);
}
