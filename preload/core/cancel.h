/* SPDX-License-Identifier: MIT */
/*
 * cancel: the shim's own work out of reach of a pthread cancellation.  The
 * shim's files are read and written through raw system calls (sys.h),
 * which are no cancellation points; what it does through other libraries
 * (libelf, libunwind, libc's own file functions) runs held: the thread's
 * cancel state disabled, its type deferred and SIGCANCEL blocked, so that
 * neither a deferred cancellation at a cancellation point nor an
 * asynchronous one can unwind the thread out of the shim with its locks
 * held and its state half made.
 * A cancellation that arrived meanwhile acts when the hold is released, at
 * a point the unwinder can walk out of (docs/limits.md).
 */
#ifndef EXTPROF_PRELOAD_CANCEL_H
#define EXTPROF_PRELOAD_CANCEL_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

struct xp_thread;

/* What cancel_hold() changed, to put back. */
struct cancel_hold {
	struct xp_thread *t; /* the thread's own state, busy around the shim's calls to libc */
	uint64_t blocked;    /* SIGCANCEL was blocked already */
	int state;	     /* the cancel state before */
	int type;	     /* the cancel type before */
	int err;	     /* errno before: the shim's work leaves the program's alone */
};

/*
 * Hold cancellation off for the calling thread, whose own state is @thread
 * (xp_self's, or xp_foreign's: state_self; NULL for a thread without TLS
 * of its own that has none): its cancel state disabled, its type deferred,
 * SIGCANCEL blocked, errno kept in @hold.  Async-signal-safe (glibc's pthread_setcancelstate is
 * an atomic update of the thread's own word).  The thread's busy flag is
 * the caller's to set for the work held.
 */
void cancel_hold(struct cancel_hold *hold, struct xp_thread *thread);

/*
 * Put back what cancel_hold() changed, the type last; a cancellation
 * pending acts now (in pthread_setcanceltype for a thread in asynchronous
 * cancellation: its result PTHREAD_CANCELED).
 */
void cancel_release(const struct cancel_hold *hold);

/*
 * A thread in asynchronous cancellation (PTHREAD_CANCEL_ASYNCHRONOUS), of
 * state @thread, entering the shim's evaluation path: switched to deferred for
 * the while, its type before in @type.  The stubs' fast path sends such a
 * thread's calls to the C path, which calls this (eval.c).
 */
void cancel_defer(struct xp_thread *thread, int *type);

/* The type cancel_defer() saved, back; a cancellation pending acts now. */
void cancel_undefer(struct xp_thread *thread, int type);

/* Look up libc's pthread_setcanceltype now, before a signal handler may need it. */
void cancel_resolve(void);

#pragma GCC visibility pop

#endif
