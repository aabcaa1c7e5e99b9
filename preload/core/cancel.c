// SPDX-License-Identifier: MIT
/*
 * cancel: the shim's own work out of reach of a pthread cancellation
 * (cancel.h).  glibc cancels a thread in two ways:
 *
 *   deferred       at a cancellation point (open, read, write, close,
 *                  nanosleep...), when a pthread_cancel is pending: the
 *                  shim makes none itself (sys.h), and holds the state
 *                  disabled around the libraries it calls
 *   asynchronous   anywhere, by SIGCANCEL, for a thread that asked for it
 *                  (PTHREAD_CANCEL_ASYNCHRONOUS), and for any thread while
 *                  glibc waits in a cancellable system call: SIGCANCEL is
 *                  blocked around the shim's slow paths (glibc's handler
 *                  does not look at the cancel state), and a thread that
 *                  asked for asynchronous cancellation is switched to
 *                  deferred while the evaluation path changes its state
 *
 * Either way the cancellation waits for the hold to end, and acts there:
 * from a function the unwinder walks out of, with the shim's state whole.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include "arch/arch.h"
#include "core/cancel.h"
#include "core/interpose.h"
#include "core/state.h"

#define XP_EXPORT __attribute__((visibility("default")))

/*
 * glibc's SIGCANCEL: the first of the real-time signals it keeps for itself
 * (a program cannot block it through libc, so only the shim's hold does).
 */
#define CANCEL_BIT (1ull << (__SIGRTMIN - 1))

/*
 * The shim's own calls to libc's cancellation functions pass through if the
 * program hooked them: thread @t (NULL: none of its own) busy meanwhile.
 */
static void cancel_busy(struct xp_thread *t, int by)
{
	if (t)
		t->busy += (uint32_t)by;
}

/* libc's pthread_setcanceltype, found at start-up: the evaluation path and the holds call it. */
static const char *const cancel_names[] = {"pthread_setcanceltype"};
static void *cancel_cache[1];
static const struct interpose_table cancel_reals = {cancel_names, cancel_cache, 1};

typedef int (*setcanceltype_fn)(int type, int *old);

static setcanceltype_fn cancel_real_settype(void)
{
	return (setcanceltype_fn)interpose_real(&cancel_reals, 0);
}

void cancel_defer(struct xp_thread *thread, int *type)
{
	cancel_busy(thread, 1);
	cancel_real_settype()(PTHREAD_CANCEL_DEFERRED, type);
	cancel_busy(thread, -1);
}

void cancel_undefer(struct xp_thread *thread, int type)
{
	cancel_busy(thread, 1);
	cancel_real_settype()(type, NULL);
	cancel_busy(thread, -1);
}

/*
 * The type goes to deferred too, and comes back last through libc's
 * pthread_setcanceltype: a cancellation that arrived meanwhile then acts
 * there, which makes PTHREAD_CANCELED the thread's result.  glibc's
 * pthread_setcancelstate, re-enabling a thread in asynchronous
 * cancellation, ends it without setting its result (the joiner would read
 * NULL, or what the descriptor held before); with the type deferred while
 * the state comes back, it never acts there.
 */
void cancel_hold(struct cancel_hold *hold, struct xp_thread *thread)
{
	uint64_t bit = CANCEL_BIT, old = 0;

	hold->t = thread;
	hold->err = errno;
	/* under a seccomp filter, no system call: the state alone holds it */
	if (!xp.sandboxed)
		arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&bit, (long)&old, sizeof(bit));
	hold->blocked = xp.sandboxed || (old & bit);
	cancel_busy(thread, 1);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &hold->state);
	cancel_busy(thread, -1);
	cancel_defer(thread, &hold->type);
}

void cancel_release(const struct cancel_hold *hold)
{
	uint64_t bit = CANCEL_BIT;
	int err = hold->err;

	/* the state first: a SIGCANCEL that was held then finds it as it was,
	 * the type deferred (it marks the thread cancelled, acts no further) */
	cancel_busy(hold->t, 1);
	pthread_setcancelstate(hold->state, NULL);
	cancel_busy(hold->t, -1);
	if (!hold->blocked)
		arch_syscall4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&bit, 0, sizeof(bit));
	errno = err;
	/* last: a cancellation pending acts here, with errno as the program left it */
	if (hold->type != PTHREAD_CANCEL_DEFERRED)
		cancel_undefer(hold->t, hold->type);
}

void cancel_resolve(void)
{
	interpose_resolve(&cancel_reals);
}

/*
 * The program's own calls: the shim learns which threads asked for
 * asynchronous cancellation.  Marked before the switch to it, unmarked
 * after the switch away: the mark covers every moment the type is
 * asynchronous.  The mark goes on xp_self's block even when it is shared
 * with threads without TLS of their own (clone.c): glibc keeps the type in
 * the thread's descriptor, at the thread pointer those threads share, and
 * a SIGCANCEL goes to the block's own thread alone (by its thread id), so
 * the block's own state is the one whose calls must be deferred; the
 * others' states (xp_foreign) never carry it, and their calls never switch
 * the shared type.
 */
XP_EXPORT int pthread_setcanceltype(int type, int *old)
{
	struct xp_thread *t = &xp_self;
	uint32_t was = t->cancel_async;
	int err;

	if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
		t->cancel_async = 1;
	err = cancel_real_settype()(type, old);
	if (err)
		t->cancel_async = was;
	else if (type != PTHREAD_CANCEL_ASYNCHRONOUS)
		t->cancel_async = 0;
	return err;
}
