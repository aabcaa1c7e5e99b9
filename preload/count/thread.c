// SPDX-License-Identifier: MIT
/*
 * thread: a thread's counting, from its first evaluation to its end.  At
 * its first evaluation a thread takes a shadow stack and a worker from the
 * pool (store/worker.c) and opens its counter; when it ends (its thread
 * key's destructor, or clone.c for a thread without TLS of its own) its
 * open activations are abandoned, its run closed, its counter closed, and
 * the worker and stacks go back for a later thread.  At the process's end,
 * every worker's run is closed and its dump written (thread_finish_all);
 * in a fork child, the parent's are forgotten.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include "arch/arch.h"
#include "core/log.h"
#include "core/maps.h"
#include "core/state.h"
#include "count/activation.h"
#include "count/callers.h"
#include "count/counter.h"
#include "count/counter_read.h"
#include "count/record.h"
#include "count/thread.h"
#include "steps/step.h"
#include "store/dump.h"
#include "store/process.h"
#include "store/worker.h"

static pthread_key_t thread_key;
static bool thread_key_ok;

static void thread_exit_key(void *arg)
{
	(void)arg;
	thread_end_self();
}

int thread_init(void)
{
	int err = pthread_key_create(&thread_key, thread_exit_key);

	if (err)
		return -err;
	thread_key_ok = true;
	return worker_init_pool();
}

struct thread_stack_find {
	uint64_t sp;
	uint64_t prev_end; /* the end of the mapping before the one looked at */
	uint64_t lo, hi;
};

static int thread_stack_visit(const struct maps_entry *e, void *arg)
{
	struct thread_stack_find *s = arg;
	struct rlimit rl;

	if (s->sp < e->start || s->sp >= e->end) {
		s->prev_end = e->end;
		return 0;
	}
	s->lo = e->start;
	s->hi = e->end;
	/* the main thread's stack grows down into the gap below it, as far
	 * as its limit lets it (pthread_getattr_np's reckoning) */
	if (!strcmp(e->path, "[stack]")) {
		s->lo = s->prev_end;
		if (!getrlimit(RLIMIT_STACK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < e->end && e->end - rl.rlim_cur > s->lo)
			s->lo = e->end - rl.rlim_cur;
	}
	return 1;
}

/*
 * The thread's own stack, to tell a sigaltstack handler's frames apart: the
 * mapping that holds the stack pointer @sp (the program's: this may run on
 * the shim's stack, worker_call_own).  Not pthread_getattr_np(), which
 * allocates and reads /proc/self/maps through stdio: this may run in a
 * signal handler that interrupted malloc.  On the sigaltstack, or the code
 * cache's dispatcher stack (a handler that interrupted the dispatcher runs
 * there, steps/xlate_signal.c), the thread's stack cannot be seen, and is
 * looked for again at the next call that needs it: taken for the thread's,
 * that stack would make every activation on the real one look left behind
 * by a longjmp (eval_reap_unwound), and be popped while it runs.  Returns
 * whether t->stack_lo and t->stack_hi are known.
 */
bool thread_know_stack(struct xp_thread *thread, uint64_t sp)
{
	struct thread_stack_find s = {sp, 0, 0, 0};
	char line[256];
	stack_t ss;

	if (thread->stack_known)
		return true;
	if (step_own_stack(sp))
		return false;
	/* SS_ONSTACK would say where this code runs, not where @sp is */
	if (!xp.sandboxed && !sigaltstack(NULL, &ss) && !(ss.ss_flags & SS_DISABLE) &&
	    sp - (uint64_t)ss.ss_sp < ss.ss_size)
		return false;
	if (!xp.sandboxed &&
	    maps_each("/proc/self/maps", line, sizeof(line), thread_stack_visit, &s) == 1) {
		thread->stack_lo = s.lo;
		thread->stack_hi = s.hi;
	} else {
		/* no /proc, or under a seccomp filter (sandbox.c), where no
		 * system call is made: every slot counts as on the thread's stack */
		thread->stack_lo = 0;
		thread->stack_hi = UINT64_MAX;
	}
	/* after the range: another thread on this block reads it (state.c) */
	__atomic_store_n(&thread->stack_known, 1, __ATOMIC_RELEASE);
	return true;
}

/* A thread's first evaluation.  Runs under xp_call_preserving(). */
struct xp_worker *thread_begin(struct xp_thread *thread)
{
	struct xp_worker *worker;

	/* taken by a signal handler's call that came just before the caller's
	 * slow path was busy (eval.c): the thread's one worker */
	if (thread->worker)
		return thread->worker;
	if (!thread->stack && worker_map_stack(thread))
		return NULL;
	worker = worker_take();
	if (!worker)
		return NULL;
	counter_open_thread(thread);
	worker->owner = thread;
	worker->owner_tid = xp.sandboxed ? 0 : (int32_t)arch_syscall4(SYS_gettid, 0, 0, 0, 0);
	worker->map.hdr->threads++;
	thread->run_start = counter_read_of(thread);
	thread->worker = worker;
	/* a thread without TLS of its own has no thread key either (clone.c) */
	if (thread_key_ok && thread == &xp_self)
		pthread_setspecific(thread_key, thread);
	return worker;
}

/* Activations still open when their thread ends: gone with its shadow stack. */
static void thread_abandon_frames(struct xp_worker *worker, struct xp_thread *thread)
{
	while (thread->depth)
		activation_abandon(worker, &thread->stack[--thread->depth], ACTIVATION_GONE);
}

/*
 * At exit, this thread's open activations: abandoned, but left on the
 * shadow stack, uncounted, for those that still return (exit runs the
 * shim's destructor from _dl_fini, which returns, and may be hooked).
 * Stepping ends with them: none of their flags stays.
 */
static void thread_abandon_in_place(struct xp_worker *worker, struct xp_thread *thread)
{
	for (uint32_t d = thread->depth; d > 0; d--) {
		struct xp_frame *f = &thread->stack[d - 1];

		activation_abandon(worker, f, ACTIVATION_GONE);
		f->flags = XP_FRAME_UNCOUNTED;
	}
}

void thread_close_run(struct xp_worker *worker, struct xp_thread *thread)
{
	uint64_t now = counter_read_of(thread);

	if (xp.window_decl != UINT32_MAX) {
		/* the thread's last window episode */
		if (thread->win_last > thread->win_first)
			worker->map.hdr->run_total += thread->win_last - thread->win_first;
		thread->win_first = thread->win_last = 0;
	} else if (now > thread->run_start) {
		worker->map.hdr->run_total += now - thread->run_start;
	}
	thread->run_start = now;
	worker->map.hdr->end_ns = process_now_ns();
}

/* The calling thread is exiting: its worker goes back to the pool. */
void thread_end_self(void)
{
	thread_end(&xp_self);
}

void thread_end(struct xp_thread *thread)
{
	struct xp_worker *worker = thread->worker;

	thread->released = 1;
	/* its shadow stack is about to go: a SIGTRAP handler reads it */
	step_stop(thread);
	/* what the shim calls from here on (munmap, close) is its own */
	thread->busy = 1;
	if (!worker)
		return;
	thread_abandon_frames(worker, thread);
	thread_close_run(worker, thread);
	counter_close_thread(thread);
	worker->owner = NULL;
	thread->worker = NULL;
	__atomic_store_n(&worker->state, XP_WORKER_FREE, __ATOMIC_RELEASE);
	worker_unmap_stack(thread);
	worker_own_release(thread);
}

/* After calibration: the worker and its anonymous counts are dropped. */
void thread_forget_self(void)
{
	struct xp_thread *thread = &xp_self;
	struct xp_worker *worker = thread->worker;

	if (!worker)
		return;
	thread->depth = 0;
	counter_close_thread(thread);
	dump_unmap(&worker->map);
	worker->owner = NULL;
	thread->worker = NULL;
	__atomic_store_n(&xp.nworkers, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&worker->state, XP_WORKER_FREE, __ATOMIC_RELEASE);
}

/*
 * Whether the thread that owns @worker has ended without giving it back: its
 * state (in its TLS, or its stack) may be unmapped then, so it must not be
 * read.  A thread gives its worker back as it ends (thread_end, from
 * its thread key's destructor); this is the safety net for one that did
 * not.  Unknown (0) under a seccomp filter, where no system call is made.
 */
static bool thread_owner_gone(const struct xp_worker *worker)
{
	return worker->owner_tid && arch_syscall4(SYS_tgkill, arch_syscall4(SYS_getpid, 0, 0, 0, 0),
						  worker->owner_tid, 0, 0) == -ESRCH;
}

/*
 * A clean exit: close the run of every worker (activations still open on
 * any thread are abandoned: they never returned) and rewrite each dump
 * compactly, marked complete.
 */
void thread_finish_all(struct xp_thread *self)
{
	uint32_t n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	int err;

	if (!self)
		self = &xp_self;
	xp.finished = true;
	/* the dumps' writing calls what the program may have hooked: not its calls */
	self->busy = 1;
	/* the process's lost calls, said once, in the first dump */
	for (uint32_t i = 0; i < n; i++) {
		if (xp.workers[i].map.base) {
			/* atomic: a fork child under a seccomp filter adds its own */
			__atomic_add_fetch(&xp.workers[i].map.hdr->lost,
					   __atomic_exchange_n(&xp_lost, 0, __ATOMIC_RELAXED),
					   __ATOMIC_RELAXED);
			break;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct xp_worker *worker = &xp.workers[i];
		struct xp_thread *thread = worker->owner;

		if (!worker->map.base)
			continue;
		/* steps: what no later evaluation replaced (step_hold) */
		if (xp.counter.kind == EXTPROF_COUNTER_STEPS)
			record_held_samples(worker);
		if (thread == self) {
			thread_abandon_in_place(worker, thread);
			thread_close_run(worker, thread);
		} else if (thread && thread_owner_gone(worker)) {
			/* its state went with its thread: nothing of it is read */
			worker->owner = NULL;
		} else if (thread) {
			/* Another thread still running: count what it has open. */
			for (uint32_t d = thread->depth; d > 0; d--)
				activation_abandon(worker, &thread->stack[d - 1], ACTIVATION_TALLY);
			thread_close_run(worker, thread);
		}
		worker->map.hdr->end_ns = process_now_ns();
		if (!worker->map.path[0])
			continue;
		/* under a seccomp filter, no file can be written: finished in place */
		err = xp.sandboxed ? -EPERM
				   : dump_write_compact_named(&worker->map, EXTPROF_DUMP_F_COMPLETE,
							      callers_resolve);
		if (err && worker->map.in_memory)
			log_once(LOG_ONCE_FINISH,
				 "cannot write %s at exit either: %s; its counts are lost",
				 worker->map.path, log_strerror(-err));
		else if (err) {
			/* its counts are whole all the same (but for the rows it had
			 * no room for, which its declarations say) */
			worker->map.hdr->flags |= EXTPROF_DUMP_F_COMPLETE;
			log_once(LOG_ONCE_FINISH,
				 "cannot finish %s: %s; it stays as it was live, marked complete",
				 worker->map.path, log_strerror(-err));
		}
	}
}

/* In a fork child, thread state @thread: the parent's worker forgotten, its activations uncounted.
 */
static void thread_forget_parent(struct xp_thread *thread)
{
	for (uint32_t d = 0; d < thread->depth; d++)
		thread->stack[d].flags = XP_FRAME_UNCOUNTED;
	thread->worker = NULL;
	thread->pmu_page = NULL;
	thread->pmu_fd = -1;
}

void thread_reset_after_fork(void)
{
	struct xp_thread *thread = &xp_self;

	worker_reset_after_fork();
	thread_forget_parent(thread);
	/* the states of threads without TLS of their own (clone.c): only the
	 * forking thread may be one of them, the others are the parent's */
	for (uint32_t i = 0; i < XP_MAX_FOREIGN; i++) {
		if (xp_foreign[i].tid)
			thread_forget_parent(&xp_foreign[i].t);
	}
}
