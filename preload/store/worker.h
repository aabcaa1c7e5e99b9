/* SPDX-License-Identifier: MIT */
/* worker.c: the pool of accumulators, one worker a thread, and the threads' stacks. */
#ifndef EXTPROF_PRELOAD_STORE_WORKER_H
#define EXTPROF_PRELOAD_STORE_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* Set the pool up at start-up (the declarations' room): 0 or -errno. */
int worker_init_pool(void);
/* Room in xp.decls for @count declarations, the table grown (never moved under a reader): 0 or
 * -errno.
 */
int worker_room_for_decls(uint32_t count);
/*
 * Call @fn(@arg) on the stack of the shim's of @thread (the caller's own
 * state: xp_self's or xp_foreign's), its extended state saved.
 */
void worker_call_own(struct xp_thread *thread, void (*fn)(void *), void *arg);
/* @thread's sigaltstack of the shim's (steps' SIGTRAP handler): false without one. */
bool worker_own_altstack(struct xp_thread *thread, void **sp, size_t *size);
/* In a fork child: forget the parent's workers and dumps (the threads' part: thread.c). */
void worker_reset_after_fork(void);
/*
 * A worker taken from the pool, its dump laid out (made now if it has none),
 * for a thread's first evaluation; NULL, said once, when there is none to
 * be had.
 */
struct xp_worker *worker_take(void);
/* Map @thread's shadow stack: 0, or -ENOMEM, said once. */
int worker_map_stack(struct xp_thread *thread);
/*
 * Give @thread's shadow stack back (unmapped, or kept for the next under a
 * seccomp filter).
 */
void worker_unmap_stack(struct xp_thread *thread);
/* Give @thread's stacks of the shim's back, for the next thread. */
void worker_own_release(struct xp_thread *thread);
/* Double @thread's shadow stack (it is full). */
void worker_grow_stack(struct xp_thread *thread);
/*
 * A seccomp filter is about to be loaded: the threads to come get dumps,
 * shadow stacks and stacks of the shim's made now, as does the calling
 * thread, of state @self (NULL: none of its own), and the dumps' rows
 * memory from now on, as no system call may be made after (sandbox.c).
 */
void worker_prepare_sandbox(struct xp_thread *self);
/* Write declaration @idx as @decl; a new one goes into every dump made so far, then xp.ndecls. */
void worker_publish_decl(uint32_t idx, const struct xp_decl *decl);
/* Whether every dump made so far has room for one more declaration. */
bool worker_room_for_decl(void);

#pragma GCC visibility pop

#endif
