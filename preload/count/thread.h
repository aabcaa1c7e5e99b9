/* SPDX-License-Identifier: MIT */
/* thread.c: a thread's counting, from its first evaluation to its end. */
#ifndef EXTPROF_PRELOAD_COUNT_THREAD_H
#define EXTPROF_PRELOAD_COUNT_THREAD_H

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* Set up at start-up: the thread-exit key, and the pool (store/worker.c): 0 or -errno. */
int thread_init(void);
/*
 * Thread @thread's first evaluation: its shadow stack, a worker, its
 * counter opened; the worker, or NULL (the thread's calls then pass
 * uncounted).  Runs on the shim's stack (worker_call_own).
 */
struct xp_worker *thread_begin(struct xp_thread *thread);
/*
 * Learn @thread's own stack from @sp, unless on a sigaltstack or the code
 * cache's dispatcher stack: whether it is known.
 */
bool thread_know_stack(struct xp_thread *thread, uint64_t sp);
/* Add thread @thread's share of the run so far to worker @worker's run total. */
void thread_close_run(struct xp_worker *worker, struct xp_thread *thread);
/* The calling thread is exiting: its activations abandoned, its worker back to the pool. */
void thread_end_self(void);
/* The same for thread @thread, the caller's own state (xp_self's or xp_foreign's). */
void thread_end(struct xp_thread *thread);
/* After calibration: drop the calling thread's worker and its counts. */
void thread_forget_self(void);
/*
 * A clean exit: every worker's run closed and its dump written compact,
 * complete; @self the calling thread's own state (NULL: xp_self's block).
 */
void thread_finish_all(struct xp_thread *self);
/* In a fork child: forget the parent's workers, keep the shadow stack, uncounted. */
void thread_reset_after_fork(void);

#pragma GCC visibility pop

#endif
