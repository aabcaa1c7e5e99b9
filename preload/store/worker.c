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
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "core/log.h"
#include "core/state.h"
#include "store/dump.h"
#include "core/sys.h"
#include "store/process.h"
#include "store/worker.h"

#define WORKER_STACK_FRAMES (1u << 16)

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

int worker_room_for_decls(uint32_t count)
{
	uint32_t cap = worker_decls_cap ? worker_decls_cap : WORKER_DECLS_FIRST;
	struct xp_decl *p;

	if (count <= worker_decls_cap)
		return 0;
	if (count > XP_MAX_DECLS)
		return -E2BIG;
	while (cap < count)
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
	return worker_room_for_decls(WORKER_DECLS_FIRST);
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

static struct xp_frame *worker_new_stack(void)
{
	struct xp_frame *p =
		mmap(NULL, worker_stack_bytes(WORKER_STACK_FRAMES), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int worker_map_stack(struct xp_thread *thread)
{
	struct xp_frame *p = xp.sandboxed
				     ? worker_pool_take((void **)worker_stack_pool, WORKER_SPARE)
				     : worker_new_stack();

	if (!p) {
		worker_say_no_memory("a thread's shadow stack", -ENOMEM);
		return -ENOMEM;
	}
	p[0].slot = UINT64_MAX;
	thread->stack = p + 1;
	thread->cap = WORKER_STACK_FRAMES;
	thread->depth = 0;
	return 0;
}

/* Deeper than 65536 hooked activations: double the shadow stack. */
void worker_grow_stack(struct xp_thread *thread)
{
	struct xp_frame *p = xp.sandboxed
				     ? MAP_FAILED
				     : mremap(thread->stack - 1, worker_stack_bytes(thread->cap),
					      worker_stack_bytes(thread->cap * 2), MREMAP_MAYMOVE);

	if (p == MAP_FAILED) {
		log_once(LOG_ONCE_STACK,
			 "shadow stack full at depth %u; deeper calls pass uncounted",
			 thread->depth);
		return;
	}
	thread->stack = p + 1;
	thread->cap *= 2;
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
	sys_mprotect(p, WORKER_OWN_GUARD, PROT_NONE);
	sys_mprotect(p + WORKER_OWN_GUARD + WORKER_OWN_ALT, WORKER_OWN_GUARD, PROT_NONE);
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
		sys_munmap(p, WORKER_OWN_SIZE);
}

/* The top of thread @t's slow-path stack, mapped now if need be; NULL without one. */
static void *worker_own_stack(struct xp_thread *t)
{
	if (!t->own && !(t->own = worker_own_get()))
		return NULL;
	return (char *)t->own + WORKER_OWN_SIZE;
}

/* Without a state of its own (NULL), or a stack of the shim's to be had: the program's. */
void worker_call_own(struct xp_thread *thread, void (*fn)(void *), void *arg)
{
	xp_call_preserving(fn, arg, thread ? worker_own_stack(thread) : NULL);
}

/* Never maps it: called on the evaluation path, where only a slow path may. */
bool worker_own_altstack(struct xp_thread *thread, void **sp, size_t *size)
{
	if (!thread->own)
		return false;
	*sp = (char *)thread->own + WORKER_OWN_GUARD;
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
		sys_munmap(worker_decl_info, worker_decl_info_bytes);
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

struct xp_worker *worker_take(void)
{
	struct xp_worker *w = worker_claim();
	int err;

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
	return w;
}

void worker_unmap_stack(struct xp_thread *thread)
{
	if (thread->stack) {
		/* for the next thread under a seccomp filter; one grown is left */
		if (!xp.sandboxed)
			sys_munmap(thread->stack - 1, worker_stack_bytes(thread->cap));
		else if (thread->cap == WORKER_STACK_FRAMES)
			worker_pool_put((void **)worker_stack_pool, WORKER_SPARE,
					thread->stack - 1);
		thread->stack = NULL;
	}
}

void worker_own_release(struct xp_thread *thread)
{
	if (thread->own) {
		stack_t ss;

		/* never left as the sigaltstack of a thread that ends: another's next */
		if (!xp.sandboxed && !sigaltstack(NULL, &ss) &&
		    (uint64_t)ss.ss_sp - (uint64_t)thread->own < WORKER_OWN_SIZE) {
			ss.ss_flags = SS_DISABLE;
			sigaltstack(&ss, NULL);
		}
		worker_own_put(thread->own);
		thread->own = NULL;
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
 * Declaration @idx, whose entry @decl holds: written into xp.decls and, when
 * it is a new one (@idx is xp.ndecls), added to every dump laid out so far
 * and counted in xp.ndecls, under the layout lock (above), so that every
 * dump holds it whether it was laid out before or after.
 */
void worker_publish_decl(uint32_t idx, const struct xp_decl *decl)
{
	struct dump_decl_info info = {decl->kind, decl->symbol, decl->object, decl->offset, 0};
	uint32_t n;

	worker_layout_lock();
	xp.decls[idx] = *decl;
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
			sys_munmap(p, worker_stack_bytes(WORKER_STACK_FRAMES));
	}
	if (self)
		worker_own_stack(self);
	for (int i = 0; i < WORKER_OWN_POOL; i++)
		own += worker_own_pool[i] != NULL;
	for (void *p; own < WORKER_SPARE && (p = worker_own_map()); own++)
		worker_own_put(p);
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
}
