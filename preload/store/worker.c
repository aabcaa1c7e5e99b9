// SPDX-License-Identifier: MIT
/*
 * worker: the pool of accumulators.  A thread takes a worker at its first
 * evaluation and gives it back when it exits; a later thread reuses it, so a
 * pool of W threads leaves W dumps however many threads it created.  Taking
 * one is a compare-and-swap on its state, once per thread, off the
 * evaluation path proper; nothing else is shared between threads.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "count/activation.h"
#include "count/counter_read.h"
#include "core/log.h"
#include "core/maps.h"
#include "core/state.h"
#include "count/callers.h"
#include "count/counter.h"
#include "count/eval.h"
#include "store/process.h"
#include "store/worker.h"
#include "steps/step.h"

#define WORKER_STACK_FRAMES (1u << 16)

static pthread_key_t worker_key;
static bool worker_key_ok;

static void worker_thread_exit(void *arg)
{
	(void)arg;
	worker_release_self();
}

/*
 * The declarations' table, grown as they are registered (worker_room_for_decls):
 * address space for those registered, not for the most a process may have.
 * Growing makes a copy twice as large and publishes it (xp.decls, before
 * xp.ndecls counts the new entry); the old copy stays mapped, never reused:
 * a thread that loaded the old pointer (an evaluation, a SIGTRAP handler, an
 * unwinder) reads the same entries there.  The copies left behind add up to
 * less than the table.
 */
#define WORKER_DECLS_FIRST 64u

static uint32_t worker_decls_cap;

int worker_room_for_decls(uint32_t n)
{
	uint32_t cap = worker_decls_cap ? worker_decls_cap : WORKER_DECLS_FIRST;
	struct xp_decl *p;

	if (n <= worker_decls_cap)
		return 0;
	if (n > XP_MAX_DECLS)
		return -E2BIG;
	while (cap < n)
		cap *= 2;
	if (cap > XP_MAX_DECLS)
		cap = XP_MAX_DECLS;
	p = mmap(NULL, (size_t)cap * sizeof(*p), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (xp.decls)
		memcpy(p, xp.decls, (size_t)worker_decls_cap * sizeof(*p));
	__atomic_store_n(&xp.decls, p, __ATOMIC_RELEASE);
	worker_decls_cap = cap;
	return 0;
}

int worker_init_pool(void)
{
	int err = pthread_key_create(&worker_key, worker_thread_exit);

	if (err)
		return -err;
	worker_key_ok = true;
	return worker_room_for_decls(WORKER_DECLS_FIRST);
}

struct worker_stack_find {
	uint64_t sp;
	uint64_t prev_end; /* the end of the mapping before the one looked at */
	uint64_t lo, hi;
};

static int worker_stack_visit(const struct maps_entry *e, void *arg)
{
	struct worker_stack_find *s = arg;
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
bool worker_know_stack(struct xp_thread *t, uint64_t sp)
{
	struct worker_stack_find s = {sp, 0, 0, 0};
	char line[256];
	stack_t ss;

	if (t->stack_known)
		return true;
	if (step_own_stack(sp))
		return false;
	/* SS_ONSTACK would say where this code runs, not where @sp is */
	if (!xp.sandboxed && !sigaltstack(NULL, &ss) && !(ss.ss_flags & SS_DISABLE) &&
	    sp - (uint64_t)ss.ss_sp < ss.ss_size)
		return false;
	if (!xp.sandboxed &&
	    maps_each("/proc/self/maps", line, sizeof(line), worker_stack_visit, &s) == 1) {
		t->stack_lo = s.lo;
		t->stack_hi = s.hi;
	} else {
		/* no /proc, or under a seccomp filter (sandbox.c), where no
		 * system call is made: every slot counts as on the thread's stack */
		t->stack_lo = 0;
		t->stack_hi = UINT64_MAX;
	}
	/* after the range: another thread on this block reads it (state.c) */
	__atomic_store_n(&t->stack_known, 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * The shadow stack, with one entry more below the first: a sentinel whose
 * slot is above every real one, so that the stubs' fast path never has to
 * test for an empty stack (stub_fast.S).
 */
static size_t worker_stack_bytes(uint32_t cap)
{
	return ((size_t)cap + 1) * sizeof(struct xp_frame);
}

/*
 * Under a seccomp filter no memory is mapped: the shadow stacks of the
 * threads to come are mapped before it (worker_prepare_sandbox), kept
 * here, and given back here when their thread ends.
 */
#define WORKER_SPARE 8
static struct xp_frame *worker_stack_pool[WORKER_SPARE];

/* One of the @n kept in @pool, or NULL; lock-free, as a signal handler may take one. */
static void *worker_pool_take(void **pool, int n)
{
	for (int i = 0; i < n; i++) {
		void *p = __atomic_exchange_n(&pool[i], NULL, __ATOMIC_ACQUIRE);

		if (p)
			return p;
	}
	return NULL;
}

/* Keep @p in @pool, if one of its @n places is free. */
static bool worker_pool_put(void **pool, int n, void *p)
{
	for (int i = 0; i < n; i++) {
		void *none = NULL;

		if (__atomic_compare_exchange_n(&pool[i], &none, p, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static struct xp_frame *worker_new_stack(void)
{
	struct xp_frame *p =
		mmap(NULL, worker_stack_bytes(WORKER_STACK_FRAMES), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int worker_map_stack(struct xp_thread *t)
{
	struct xp_frame *p = xp.sandboxed
				     ? worker_pool_take((void **)worker_stack_pool, WORKER_SPARE)
				     : worker_new_stack();

	if (!p)
		return -ENOMEM;
	p[0].slot = UINT64_MAX;
	t->stack = p + 1;
	t->cap = WORKER_STACK_FRAMES;
	t->depth = 0;
	return 0;
}

/* Deeper than 65536 hooked activations: double the shadow stack. */
void worker_grow_stack(struct xp_thread *t)
{
	struct xp_frame *p = xp.sandboxed ? MAP_FAILED
					  : mremap(t->stack - 1, worker_stack_bytes(t->cap),
						   worker_stack_bytes(t->cap * 2), MREMAP_MAYMOVE);

	if (p == MAP_FAILED) {
		log_once(LOG_ONCE_STACK,
			 "shadow stack full at depth %u; deeper calls pass uncounted", t->depth);
		return;
	}
	t->stack = p + 1;
	t->cap *= 2;
}

/*
 * The shim's own stack for a thread, mapped at its first slow path and
 * kept until it ends (then left for the next thread, up to WORKER_OWN_POOL
 * of them): the slow paths (a thread's first evaluation, a row, the
 * callers' walk, the exit's dumps) run there, not on the program's stack,
 * which may be a 16 KiB thread stack or a 4 KiB sigaltstack; and with
 * steps, the SIGTRAP handler (step_setup.c), as a sigaltstack of its own
 * while a call is stepped.  Two stacks, each below a guard page:
 *
 *   own                                                     own + WORKER_OWN_SIZE
 *   | guard | SIGTRAP's altstack | guard | the slow paths' stack |
 */
#define WORKER_OWN_GUARD 4096u
#define WORKER_OWN_ALT	 (32u * 1024u)
#define WORKER_OWN_SLOW	 (64u * 1024u)
#define WORKER_OWN_SIZE	 (2 * WORKER_OWN_GUARD + WORKER_OWN_ALT + WORKER_OWN_SLOW)
#define WORKER_OWN_POOL	 16

static void *worker_own_pool[WORKER_OWN_POOL];

static void *worker_own_map(void)
{
	char *p = mmap(NULL, WORKER_OWN_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p, WORKER_OWN_GUARD, PROT_NONE);
	mprotect(p + WORKER_OWN_GUARD + WORKER_OWN_ALT, WORKER_OWN_GUARD, PROT_NONE);
	return p;
}

/* One kept, or a new one; under a seccomp filter, only one kept. */
static void *worker_own_get(void)
{
	void *p = worker_pool_take(worker_own_pool, WORKER_OWN_POOL);

	return p || xp.sandboxed ? p : worker_own_map();
}

static void worker_own_put(void *p)
{
	/* a sandbox's extra one is left mapped: no system call there */
	if (!worker_pool_put(worker_own_pool, WORKER_OWN_POOL, p) && !xp.sandboxed)
		munmap(p, WORKER_OWN_SIZE);
}

/* The top of thread @t's slow-path stack, mapped now if need be; NULL without one. */
static void *worker_own_stack(struct xp_thread *t)
{
	if (!t->own && !(t->own = worker_own_get()))
		return NULL;
	return (char *)t->own + WORKER_OWN_SIZE;
}

/* Without a state of its own (NULL), or a stack of the shim's to be had: the program's. */
void worker_call_own(struct xp_thread *t, void (*fn)(void *), void *arg)
{
	xp_call_preserving(fn, arg, t ? worker_own_stack(t) : NULL);
}

/* Never maps it: called on the evaluation path, where only a slow path may. */
bool worker_own_altstack(struct xp_thread *t, void **sp, size_t *size)
{
	if (!t->own)
		return false;
	*sp = (char *)t->own + WORKER_OWN_GUARD;
	*size = WORKER_OWN_ALT;
	return true;
}

/* EXTPROF_DIR/EXE.HOST.PID.PROCESS-ID.wNNN.xpd (docs/dump-format.md) */
static int worker_dump_name(char *buf, size_t size, uint32_t index)
{
	size_t n = log_format(buf, size, "%s/%s.%s.%llu.%016llx.w%03u" EXTPROF_DUMP_SUFFIX, xp.dir,
			      xp.file_exe, xp.file_host, (unsigned long long)xp.meta.pid,
			      (unsigned long long)xp.meta.process_id, index);

	return n + 1 >= size ? -ENAMETOOLONG : 0;
}

/* Used under worker_layout_busy only (below). */
static char worker_path[4096];
static struct dump_decl_info *worker_decl_info;
static size_t worker_decl_info_bytes;

/* What a new dump is made from: room for @n declarations' infos, under worker_layout_busy. */
static int worker_room_for_info(uint32_t n)
{
	size_t need = (size_t)n * sizeof(*worker_decl_info), size;
	void *p;

	if (need <= worker_decl_info_bytes)
		return 0;
	size = (need + (size_t)getpagesize() - 1) & ~((size_t)getpagesize() - 1);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (worker_decl_info)
		munmap(worker_decl_info, worker_decl_info_bytes);
	worker_decl_info = p;
	worker_decl_info_bytes = size;
	return 0;
}

/* Out of line: its buffer is on the stack only when there is something to say. */
static __attribute__((noinline, cold)) void worker_say_no_dump(int err, bool noname)
{
	char why[160];

	log_once(LOG_ONCE_DUMP, "cannot create a dump in %s: %s; counting in memory%s", xp.dir,
		 log_strerror_limit(-err, why, sizeof(why)),
		 noname ? "" : ", to be written at exit");
}

/*
 * A new worker's dump.  Without one (no usable directory, no room on its
 * filesystem) it still counts, in anonymous memory of the same layout; a
 * dump that could not be made for want of room (or any reason but the
 * directory) is written at exit, if it can be then.
 */
static int worker_open_dump(struct xp_worker *w)
{
	char *path = worker_path;
	int err, noname;

	err = worker_room_for_info(xp.ndecls);
	if (err)
		return err;
	for (uint32_t i = 0; i < xp.ndecls; i++) {
		worker_decl_info[i].kind = xp.decls[i].kind;
		worker_decl_info[i].symbol = xp.decls[i].symbol;
		worker_decl_info[i].object = xp.decls[i].object;
		worker_decl_info[i].address = xp.decls[i].offset;
		worker_decl_info[i].flags = xp.decls[i].window ? EXTPROF_DECL_F_WINDOW : 0;
	}
	if (xp.calibrating || !xp.dir_ok)
		return dump_create_anonymous(&w->map, &xp.meta, worker_decl_info, xp.ndecls,
					     w->index);
	noname = worker_dump_name(path, sizeof(worker_path), w->index);
	err = noname;
	if (!err)
		err = dump_create(&w->map, path, &xp.meta, worker_decl_info, xp.ndecls, w->index);
	if (!err)
		return 0;
	worker_say_no_dump(err, noname);
	err = dump_create_anonymous(&w->map, &xp.meta, worker_decl_info, xp.ndecls, w->index);
	if (!err && !noname) {
		memcpy(w->map.path, path, strlen(path) + 1);
		w->map.in_memory = true;
	}
	return err;
}

/*
 * Dump creation against a dlopen that adds declarations (hooks_rescan, in
 * another thread, holding xp.decls_lock): a dump is laid out from the
 * declarations registered so far, and a declaration is added to every dump
 * laid out so far, so the two must not interleave.  Both go under
 * worker_layout_busy, a spin lock whose holder only makes system calls and
 * copies memory, never waits on anyone, and runs busy (a signal handler's
 * hooked call on its thread passes through instead of spinning on it): a
 * creation waits a layout or the adding of one declaration at most, never
 * the whole rescan, which may wait for malloc's lock held by the code this
 * first evaluation interrupted.  A thread's first call during a dlopen is
 * counted like any other.
 */
static int worker_layout_busy;

static void worker_layout_lock(void)
{
	while (__atomic_exchange_n(&worker_layout_busy, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void worker_layout_unlock(void)
{
	__atomic_store_n(&worker_layout_busy, 0, __ATOMIC_RELEASE);
}

static int worker_lay_out(struct xp_worker *w)
{
	int err;

	worker_layout_lock();
	err = worker_open_dump(w);
	worker_layout_unlock();
	return err;
}

static struct xp_worker *worker_claim(void)
{
	for (uint32_t i = 0; i < XP_MAX_WORKERS; i++) {
		struct xp_worker *w = &xp.workers[i];
		uint32_t expect = XP_WORKER_FREE;

		if (__atomic_compare_exchange_n(&w->state, &expect, XP_WORKER_TAKEN, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			uint32_t n = __atomic_load_n(&xp.nworkers, __ATOMIC_RELAXED);

			while (n < i + 1 &&
			       !__atomic_compare_exchange_n(&xp.nworkers, &n, i + 1, false,
							    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				;
			return w;
		}
	}
	return NULL;
}

/*
 * What a thread's calls lack when memory is refused (an address-space or
 * data limit): said once, and they pass uncounted, as lost calls.
 */
static __attribute__((noinline, cold)) void worker_say_no_memory(const char *what, int err)
{
	char why[160];

	log_once(LOG_ONCE_MEMORY, "no memory for %s (%s); such a thread's calls pass uncounted",
		 what, log_strerror_limit(-err, why, sizeof(why)));
}

/* A thread's first evaluation.  Runs under xp_call_preserving(). */
struct xp_worker *worker_acquire(struct xp_thread *t)
{
	struct xp_worker *w;
	int err;

	/* taken by a signal handler's call that came just before the caller's
	 * slow path was busy (eval.c): the thread's one worker */
	if (t->worker)
		return t->worker;
	if (!t->stack && (err = worker_map_stack(t))) {
		worker_say_no_memory("a thread's shadow stack", err);
		return NULL;
	}
	w = worker_claim();
	if (!w) {
		log_once(LOG_ONCE_WORKERS,
			 "more than %d threads at once; the others pass uncounted", XP_MAX_WORKERS);
		return NULL;
	}
	w->index = (uint32_t)(w - xp.workers);
	/* under a seccomp filter, only the dumps laid out before it, and nothing said */
	if (!w->map.base && (xp.sandboxed || (err = worker_lay_out(w)))) {
		if (!xp.sandboxed)
			worker_say_no_memory("a worker's counts", err);
		__atomic_store_n(&w->state, XP_WORKER_FREE, __ATOMIC_RELEASE);
		return NULL;
	}
	counter_open_thread(t);
	w->owner = t;
	w->owner_tid = xp.sandboxed ? 0 : (int32_t)arch_syscall4(SYS_gettid, 0, 0, 0, 0);
	w->map.hdr->threads++;
	t->run_start = counter_read_of(t);
	t->worker = w;
	/* a thread without TLS of its own has no thread key either (clone.c) */
	if (worker_key_ok && t == &xp_self)
		pthread_setspecific(worker_key, t);
	return w;
}

/* Activations still open when their thread ends: gone with its shadow stack. */
static void worker_abandon_frames(struct xp_worker *w, struct xp_thread *t)
{
	while (t->depth)
		activation_abandon(w, &t->stack[--t->depth], ACTIVATION_GONE);
}

/*
 * At exit, this thread's open activations: abandoned, but left on the
 * shadow stack, uncounted, for those that still return (exit runs the
 * shim's destructor from _dl_fini, which returns, and may be hooked).
 * Stepping ends with them: none of their flags stays.
 */
static void worker_abandon_in_place(struct xp_worker *w, struct xp_thread *t)
{
	for (uint32_t d = t->depth; d > 0; d--) {
		struct xp_frame *f = &t->stack[d - 1];

		activation_abandon(w, f, ACTIVATION_GONE);
		f->flags = XP_FRAME_UNCOUNTED;
	}
}

void worker_close_run(struct xp_worker *w, struct xp_thread *t)
{
	uint64_t now = counter_read_of(t);

	if (xp.window_decl != UINT32_MAX) {
		/* the thread's last window episode */
		if (t->win_last > t->win_first)
			w->map.hdr->run_total += t->win_last - t->win_first;
		t->win_first = t->win_last = 0;
	} else if (now > t->run_start) {
		w->map.hdr->run_total += now - t->run_start;
	}
	t->run_start = now;
	w->map.hdr->end_ns = process_now_ns();
}

/* The calling thread is exiting: its worker goes back to the pool. */
void worker_release_self(void)
{
	worker_release(&xp_self);
}

void worker_release(struct xp_thread *t)
{
	struct xp_worker *w = t->worker;

	t->released = 1;
	/* its shadow stack is about to go: a SIGTRAP handler reads it */
	step_stop(t);
	/* what the shim calls from here on (munmap, close) is its own */
	t->busy = 1;
	if (!w)
		return;
	worker_abandon_frames(w, t);
	worker_close_run(w, t);
	counter_close_thread(t);
	w->owner = NULL;
	t->worker = NULL;
	__atomic_store_n(&w->state, XP_WORKER_FREE, __ATOMIC_RELEASE);
	if (t->stack) {
		/* for the next thread under a seccomp filter; one grown is left */
		if (!xp.sandboxed)
			munmap(t->stack - 1, worker_stack_bytes(t->cap));
		else if (t->cap == WORKER_STACK_FRAMES)
			worker_pool_put((void **)worker_stack_pool, WORKER_SPARE, t->stack - 1);
		t->stack = NULL;
	}
	if (t->own) {
		stack_t ss;

		/* never left as the sigaltstack of a thread that ends: another's next */
		if (!xp.sandboxed && !sigaltstack(NULL, &ss) &&
		    (uint64_t)ss.ss_sp - (uint64_t)t->own < WORKER_OWN_SIZE) {
			ss.ss_flags = SS_DISABLE;
			sigaltstack(&ss, NULL);
		}
		worker_own_put(t->own);
		t->own = NULL;
	}
}

/*
 * Whether every dump made so far has room for one more declaration: a
 * process's dumps must all hold the same declarations (the analyzer
 * refuses a process whose workers disagree).
 */
bool worker_room_for_decl(void)
{
	bool room = true;
	uint32_t n;

	/* not a dump half laid out by another thread */
	worker_layout_lock();
	n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; room && i < n; i++) {
		const struct xp_worker *w = &xp.workers[i];

		room = !w->map.base || w->map.ndecls < w->map.capacity;
	}
	worker_layout_unlock();
	return room;
}

/*
 * Declaration @idx, whose entry @d holds: written into xp.decls and, when
 * it is a new one (@idx is xp.ndecls), added to every dump laid out so far
 * and counted in xp.ndecls, under the layout lock (above), so that every
 * dump holds it whether it was laid out before or after.
 */
void worker_publish_decl(uint32_t idx, const struct xp_decl *d)
{
	struct dump_decl_info info = {d->kind, d->symbol, d->object, d->offset, 0};
	uint32_t n;

	worker_layout_lock();
	xp.decls[idx] = *d;
	n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; idx == xp.ndecls && i < n; i++) {
		struct xp_worker *w = &xp.workers[i];

		if (!w->map.base || w->map.ndecls > idx)
			continue;
		if (w->map.ndecls < idx || dump_append_decl(&w->map, &info))
			log_once(LOG_ONCE_LATE,
				 "no room left in worker %u's dump for %s:%s; "
				 "its thread counts it no more",
				 i, info.kind, info.symbol);
	}
	if (idx == xp.ndecls)
		__atomic_store_n(&xp.ndecls, idx + 1, __ATOMIC_RELEASE);
	worker_layout_unlock();
}

void worker_prepare_sandbox(struct xp_thread *self)
{
	struct xp_worker *spare[WORKER_SPARE];
	uint32_t n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	int k = 0, own = 0;

	/* the dumps made so far: their rows in memory from now on */
	for (uint32_t i = 0; i < n; i++)
		dump_enter_sandbox(&xp.workers[i].map);
	/* dumps laid out for as many threads to come, given back to the pool */
	while (k < WORKER_SPARE && (spare[k] = worker_claim())) {
		struct xp_worker *w = spare[k++];

		w->index = (uint32_t)(w - xp.workers);
		if (!w->map.base && worker_lay_out(w))
			break;
		dump_enter_sandbox(&w->map);
	}
	while (k > 0)
		__atomic_store_n(&spare[--k]->state, XP_WORKER_FREE, __ATOMIC_RELEASE);
	/* their shadow stacks, and the shim's stacks for them and for this thread */
	for (int i = 0; i < WORKER_SPARE; i++) {
		struct xp_frame *p = worker_stack_pool[i] ? NULL : worker_new_stack();

		if (p && !worker_pool_put((void **)worker_stack_pool, WORKER_SPARE, p))
			munmap(p, worker_stack_bytes(WORKER_STACK_FRAMES));
	}
	if (self)
		worker_own_stack(self);
	for (int i = 0; i < WORKER_OWN_POOL; i++)
		own += worker_own_pool[i] != NULL;
	for (void *p; own < WORKER_SPARE && (p = worker_own_map()); own++)
		worker_own_put(p);
}

/* After calibration: the worker and its anonymous counts are dropped. */
void worker_forget_self(void)
{
	struct xp_thread *t = &xp_self;
	struct xp_worker *w = t->worker;

	if (!w)
		return;
	t->depth = 0;
	counter_close_thread(t);
	dump_unmap(&w->map);
	w->owner = NULL;
	t->worker = NULL;
	__atomic_store_n(&xp.nworkers, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&w->state, XP_WORKER_FREE, __ATOMIC_RELEASE);
}

/*
 * Whether the thread that owns @w has ended without giving it back: its
 * state (in its TLS, or its stack) may be unmapped then, so it must not be
 * read.  A thread gives its worker back as it ends (worker_release, from
 * its thread key's destructor); this is the safety net for one that did
 * not.  Unknown (0) under a seccomp filter, where no system call is made.
 */
static bool worker_owner_gone(const struct xp_worker *w)
{
	return w->owner_tid && arch_syscall4(SYS_tgkill, arch_syscall4(SYS_getpid, 0, 0, 0, 0),
					     w->owner_tid, 0, 0) == -ESRCH;
}

/*
 * A clean exit: close the run of every worker (activations still open on
 * any thread are abandoned: they never returned) and rewrite each dump
 * compactly, marked complete.
 */
void worker_finish_all(struct xp_thread *self)
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
		struct xp_worker *w = &xp.workers[i];
		struct xp_thread *t = w->owner;

		if (!w->map.base)
			continue;
		/* steps: what no later evaluation replaced (step_hold) */
		if (xp.counter.kind == EXTPROF_COUNTER_STEPS)
			xp_eval_record_held(w);
		if (t == self) {
			worker_abandon_in_place(w, t);
			worker_close_run(w, t);
		} else if (t && worker_owner_gone(w)) {
			/* its state went with its thread: nothing of it is read */
			w->owner = NULL;
		} else if (t) {
			/* Another thread still running: count what it has open. */
			for (uint32_t d = t->depth; d > 0; d--)
				activation_abandon(w, &t->stack[d - 1], ACTIVATION_TALLY);
			worker_close_run(w, t);
		}
		w->map.hdr->end_ns = process_now_ns();
		if (!w->map.path[0])
			continue;
		/* under a seccomp filter, no file can be written: finished in place */
		err = xp.sandboxed ? -EPERM
				   : dump_write_compact_named(&w->map, EXTPROF_DUMP_F_COMPLETE,
							      callers_resolve);
		if (err && w->map.in_memory)
			log_once(LOG_ONCE_FINISH,
				 "cannot write %s at exit either: %s; its counts are lost",
				 w->map.path, log_strerror(-err));
		else if (err) {
			/* its counts are whole all the same (but for the rows it had
			 * no room for, which its declarations say) */
			w->map.hdr->flags |= EXTPROF_DUMP_F_COMPLETE;
			log_once(LOG_ONCE_FINISH,
				 "cannot finish %s: %s; it stays as it was live, marked complete",
				 w->map.path, log_strerror(-err));
		}
	}
}

/* In a fork child, thread state @t: the parent's worker forgotten, its activations uncounted. */
static void worker_forget_parent(struct xp_thread *t)
{
	for (uint32_t d = 0; d < t->depth; d++)
		t->stack[d].flags = XP_FRAME_UNCOUNTED;
	t->worker = NULL;
	t->pmu_page = NULL;
	t->pmu_fd = -1;
}

/*
 * A fork child under a seccomp filter can make no dump of its own (no file,
 * no memory): the parent's stay mapped, untouched but for their lost count,
 * which the child's calls add to (the mapping is shared), so that the
 * parent's report says them.
 */
static void worker_sandbox_child(void)
{
	for (uint32_t i = 0; i < XP_MAX_WORKERS; i++) {
		struct xp_worker *w = &xp.workers[i];

		if (w->map.base && xp_lost_at == &xp_lost)
			xp_lost_at = &w->map.hdr->lost;
		w->owner = NULL;
		w->state = XP_WORKER_TAKEN;
	}
	xp.lost_only = true;
}

/*
 * In a fork child: the parent's dumps are the parent's.  Forget every
 * worker (their mappings stay, unused, in this copy of the address space)
 * and keep only the shadow stack, whose inherited activations return
 * uncounted.
 */
void worker_reset_after_fork(void)
{
	struct xp_thread *t = &xp_self;

	/*
	 * Another thread of the parent may have been laying out its dump, or a
	 * dlopen adding a declaration, at the fork: the child has neither
	 * thread, so the layout lock it holds would make the child's first
	 * evaluation (or its next dlopen) wait for ever.  The forking thread
	 * itself does not hold it: it forked from the program's code, not
	 * from inside a layout.
	 */
	worker_layout_busy = 0;
	if (xp.sandboxed)
		worker_sandbox_child();
	for (uint32_t i = 0; i < XP_MAX_WORKERS && !xp.sandboxed; i++) {
		struct xp_worker *w = &xp.workers[i];

		dump_unmap(&w->map);
		memset(&w->map, 0, sizeof(w->map));
		w->owner = NULL;
		w->state = XP_WORKER_FREE;
	}
	xp.nworkers = 0;
	worker_forget_parent(t);
	/* the states of threads without TLS of their own (clone.c): only the
	 * forking thread may be one of them, the others are the parent's */
	for (uint32_t i = 0; i < XP_MAX_FOREIGN; i++) {
		if (xp_foreign[i].tid)
			worker_forget_parent(&xp_foreign[i].t);
	}
}
