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
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log.h"
#include "shim.h"

#define WORKER_STACK_FRAMES (1u << 16)

static pthread_key_t worker_key;
static bool worker_key_ok;

static void worker_thread_exit(void *arg)
{
	(void)arg;
	worker_release_self();
}

static struct dump_decl_info *worker_decl_info;

/* Address space for XP_MAX_DECLS of @size bytes each: only what is used is ever touched. */
static void *worker_reserve(size_t size)
{
	void *p = mmap(NULL, (size_t)XP_MAX_DECLS * size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int worker_init_pool(void)
{
	int err = pthread_key_create(&worker_key, worker_thread_exit);

	if (err)
		return -err;
	worker_key_ok = true;
	/* the declarations, and what a new dump is made from */
	xp.decls = worker_reserve(sizeof(*xp.decls));
	worker_decl_info = worker_reserve(sizeof(*worker_decl_info));
	if (!xp.decls || !worker_decl_info)
		return -ENOMEM;
	return 0;
}

/* The thread's own stack, to tell a sigaltstack handler's frames apart. */
static void worker_find_stack(struct xp_thread *t)
{
	pthread_attr_t attr;
	size_t size;
	void *lo;

	t->stack_lo = 0;
	t->stack_hi = UINT64_MAX;
	if (pthread_getattr_np(pthread_self(), &attr))
		return;
	if (!pthread_attr_getstack(&attr, &lo, &size)) {
		t->stack_lo = (uint64_t)lo;
		t->stack_hi = (uint64_t)lo + size;
	}
	pthread_attr_destroy(&attr);
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

static int worker_map_stack(struct xp_thread *t)
{
	struct xp_frame *p =
		mmap(NULL, worker_stack_bytes(WORKER_STACK_FRAMES), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	p[0].slot = UINT64_MAX;
	t->stack = p + 1;
	t->cap = WORKER_STACK_FRAMES;
	t->depth = 0;
	return 0;
}

/* Deeper than 65536 hooked activations: double the shadow stack. */
void worker_grow_stack(struct xp_thread *t)
{
	struct xp_frame *p = mremap(t->stack - 1, worker_stack_bytes(t->cap),
				    worker_stack_bytes(t->cap * 2), MREMAP_MAYMOVE);

	if (p == MAP_FAILED) {
		log_once(LOG_ONCE_STACK,
			 "shadow stack full at depth %u; deeper calls pass uncounted", t->depth);
		return;
	}
	t->stack = p + 1;
	t->cap *= 2;
}

static int worker_dump_name(char *buf, size_t size, uint32_t index)
{
	int n = snprintf(buf, size, "%s/%s.%s.%llu.%016llx.w%03u" EXTPROF_DUMP_SUFFIX, xp.dir,
			 xp.meta.exe_path[0] ? strrchr(xp.meta.exe_path, '/') + 1 : "unknown",
			 xp.meta.hostname, (unsigned long long)xp.meta.pid,
			 (unsigned long long)xp.meta.process_id, index);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A new worker's dump; without one it still counts, in anonymous memory. */
static int worker_open_dump(struct xp_worker *w)
{
	char path[4096];
	int err;

	for (uint32_t i = 0; i < xp.ndecls; i++) {
		worker_decl_info[i].kind = xp.decls[i].kind;
		worker_decl_info[i].symbol = xp.decls[i].symbol;
		worker_decl_info[i].object = xp.decls[i].object;
		worker_decl_info[i].address = xp.decls[i].offset;
		worker_decl_info[i].flags = xp.decls[i].window ? EXTPROF_DECL_F_WINDOW : 0;
	}
	if (xp.calibrating)
		return dump_create_anonymous(&w->map, &xp.meta, worker_decl_info, xp.ndecls,
					     w->index);
	err = worker_dump_name(path, sizeof(path), w->index);
	if (!err)
		err = dump_create(&w->map, path, &xp.meta, worker_decl_info, xp.ndecls, w->index);
	if (!err)
		return 0;
	log_once(LOG_ONCE_DUMP, "cannot create dumps in %s: %s; counting without them", xp.dir,
		 strerror(-err));
	/* Same layout in memory: the counts are made, only not kept. */
	return dump_create_anonymous(&w->map, &xp.meta, worker_decl_info, xp.ndecls, w->index);
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

/* A thread's first evaluation.  Runs under xp_call_preserving(). */
struct xp_worker *worker_acquire(struct xp_thread *t)
{
	struct xp_worker *w;

	if (!t->stack) {
		if (worker_map_stack(t))
			return NULL;
		worker_find_stack(t);
	}
	w = worker_claim();
	if (!w) {
		log_once(LOG_ONCE_WORKERS,
			 "more than %d threads at once; the others pass uncounted", XP_MAX_WORKERS);
		return NULL;
	}
	w->index = (uint32_t)(w - xp.workers);
	/*
	 * The declarations must not grow (dlopen) while a dump is laid out.
	 * Waiting is safe: the thread holding the lock has its busy flag set,
	 * so a signal handler on it never gets here (eval.c).
	 */
	if (!w->map.base) {
		int err;

		pthread_mutex_lock(&xp.decls_lock);
		err = worker_open_dump(w);
		pthread_mutex_unlock(&xp.decls_lock);
		if (err) {
			__atomic_store_n(&w->state, XP_WORKER_FREE, __ATOMIC_RELEASE);
			return NULL;
		}
	}
	counter_open_thread(t);
	w->owner = t;
	w->map.hdr->threads++;
	t->run_start = xp_counter_read();
	t->worker = w;
	if (worker_key_ok)
		pthread_setspecific(worker_key, t);
	return w;
}

/* Activations still open when their thread or process ends. */
static void worker_abandon_frames(struct xp_worker *w, struct xp_thread *t)
{
	while (t->depth) {
		const struct xp_frame *f = &t->stack[--t->depth];

		if (f->flags & XP_FRAME_UNCOUNTED)
			continue;
		w->map.decls[f->idx].open--;
		w->map.decls[f->idx].abandoned++;
	}
}

/*
 * At exit, this thread's open activations: abandoned, but left on the
 * shadow stack, uncounted, for those that still return (exit runs the
 * shim's destructor from _dl_fini, which returns, and may be hooked).
 */
static void worker_abandon_in_place(struct xp_worker *w, struct xp_thread *t)
{
	for (uint32_t d = t->depth; d > 0; d--) {
		struct xp_frame *f = &t->stack[d - 1];

		if (f->flags & XP_FRAME_UNCOUNTED)
			continue;
		w->map.decls[f->idx].open--;
		w->map.decls[f->idx].abandoned++;
		f->flags = XP_FRAME_UNCOUNTED;
	}
}

void worker_close_run(struct xp_worker *w, struct xp_thread *t)
{
	uint64_t now = xp_counter_read();

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
	struct xp_thread *t = &xp_self;
	struct xp_worker *w = t->worker;

	t->released = 1;
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
		munmap(t->stack - 1, worker_stack_bytes(t->cap));
		t->stack = NULL;
	}
}

/*
 * Whether every dump made so far has room for one more declaration: a
 * process's dumps must all hold the same declarations (the analyzer
 * refuses a process whose workers disagree).
 */
bool worker_room_for_decl(void)
{
	uint32_t n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++) {
		const struct xp_worker *w = &xp.workers[i];

		if (w->map.base && w->map.ndecls >= w->map.capacity)
			return false;
	}
	return true;
}

/* Add declaration @idx to every dump made before it existed. */
void worker_add_decl(uint32_t idx)
{
	uint32_t n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	struct dump_decl_info info = {xp.decls[idx].kind, xp.decls[idx].symbol,
				      xp.decls[idx].object, xp.decls[idx].offset, 0};

	for (uint32_t i = 0; i < n; i++) {
		struct xp_worker *w = &xp.workers[i];

		if (!w->map.base || w->map.ndecls > idx)
			continue;
		if (w->map.ndecls < idx || dump_append_decl(&w->map, &info))
			log_once(LOG_ONCE_LATE,
				 "no room left in worker %u's dump for %s:%s; "
				 "its thread counts it no more",
				 i, info.kind, info.symbol);
	}
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
 * A clean exit: close the run of every worker (activations still open on
 * any thread are abandoned: they never returned) and rewrite each dump
 * compactly, marked complete.
 */
void worker_finish_all(void)
{
	uint32_t n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	struct xp_thread *self = &xp_self;
	int err;

	xp.finished = true;
	/* the dumps' writing calls what the program may have hooked: not its calls */
	self->busy = 1;
	/* the process's lost calls, said once, in the first dump */
	for (uint32_t i = 0; i < n; i++) {
		if (xp.workers[i].map.base) {
			xp.workers[i].map.hdr->lost +=
				__atomic_exchange_n(&xp_lost, 0, __ATOMIC_RELAXED);
			break;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct xp_worker *w = &xp.workers[i];
		struct xp_thread *t = w->owner;

		if (!w->map.base)
			continue;
		if (t == self) {
			worker_abandon_in_place(w, t);
			worker_close_run(w, t);
		} else if (t) {
			/* Another thread still running: count what it has open. */
			for (uint32_t d = t->depth; d > 0; d--) {
				const struct xp_frame *f = &t->stack[d - 1];

				if (!(f->flags & XP_FRAME_UNCOUNTED))
					w->map.decls[f->idx].abandoned++;
			}
			worker_close_run(w, t);
		}
		w->map.hdr->end_ns = process_now_ns();
		if (!w->map.path[0])
			continue;
		err = dump_write_compact_named(&w->map, EXTPROF_DUMP_F_COMPLETE, callers_resolve);
		if (err)
			log_once(LOG_ONCE_DUMP, "cannot finish %s: %s", w->map.path,
				 strerror(-err));
	}
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

	for (uint32_t i = 0; i < XP_MAX_WORKERS; i++) {
		struct xp_worker *w = &xp.workers[i];

		if (w->map.base)
			munmap(w->map.base, w->map.size);
		memset(&w->map, 0, sizeof(w->map));
		w->owner = NULL;
		w->state = XP_WORKER_FREE;
	}
	xp.nworkers = 0;
	for (uint32_t d = 0; d < t->depth; d++)
		t->stack[d].flags = XP_FRAME_UNCOUNTED;
	t->worker = NULL;
	t->pmu_page = NULL;
	t->pmu_fd = -1;
}
