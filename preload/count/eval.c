// SPDX-License-Identifier: MIT
/*
 * eval: the evaluation path.  Runs on every call of every hooked function,
 * in whatever state the program is in (a signal handler, under a lock, in
 * the middle of malloc), so: no lock, no atomic read-modify-write (but for
 * the window function's own activations), no malloc, no stdio, no vector
 * register (built with the port's arch_eval_args; the thunks rely on it).  Slow
 * paths (a thread's first evaluation) go through xp_call_preserving(),
 * which saves the extended state around libc.
 *
 * The counter is read as the last thing on entry and the first on exit, so
 * that as little of the hook as possible lands inside the delta; what
 * remains is the calibration, subtracted by the analyzer once after merging.
 * The reads are ordered with the function (counter_read.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "count/activation.h"
#include "arch/arch.h"
#include "core/cancel.h"
#include "count/counter_read.h"
#include "count/floor.h"
#include "count/record.h"
#include "core/log.h"
#include "core/state.h"
#include "store/dump.h"
#include "count/callers.h"
#include "count/eval.h"
#include "count/thread.h"
#include "store/worker.h"
#include "steps/step.h"

struct eval_slow {
	struct xp_thread *t;
	struct xp_worker *w;
};

static void eval_slow_acquire(void *p)
{
	struct eval_slow *s = p;

	s->w = thread_begin(s->t);
}

static void eval_slow_grow(void *p)
{
	worker_grow_stack(p);
}

struct eval_stack {
	struct xp_thread *t;
	uint64_t sp;
};

static void eval_slow_stack(void *p)
{
	struct eval_stack *s = p;

	thread_know_stack(s->t, s->sp);
}

struct eval_held {
	struct xp_thread *t;
	void (*fn)(void *);
	void *arg;
};

static void eval_held(void *p)
{
	struct eval_held *e = p;
	struct cancel_hold h;

	cancel_hold(&h, e->t);
	e->fn(e->arg);
	cancel_release(&h);
}

/*
 * A slow path @fn(@arg) of thread @t, the caller's own state (xp_self's or
 * xp_foreign's): on its stack of the shim's with the extended state saved
 * (worker_call_own), busy (a hooked function it calls passes through) and
 * with cancellation held off (cancel.h).
 *
 * Busy before the stack is mapped and switched to, not on it: a signal
 * handler's hooked call in between would otherwise take a slow path of its
 * own, at the top of the same stack, over this one's frames, or map a
 * second stack in place of the first, or take a second worker, leaving the
 * first owned by the thread after it ends.  A handler's call that came
 * before busy has returned whole: what the slow path makes once (the
 * worker, a row) it finds made.
 */
static void eval_slow(struct xp_thread *t, void (*fn)(void *), void *arg)
{
	struct eval_held e = {t, fn, arg};

	t->busy++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	worker_call_own(t, eval_held, &e);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy--;
}

/*
 * F reached through a tail call (jmp) from this activation's own body: its
 * return address is the activation's R2, in the head or in the fast path.
 */
static int eval_is_tail_call(const struct xp_frame *f, uint64_t ret)
{
	const void *stub = xp.decls[f->idx].stub;

	return ret == arch_stub_return(stub) ||
	       (xp_stub_fast_ret && ret == (uint64_t)stub + xp_stub_fast_ret);
}

/*
 * Pop the activations that a longjmp, siglongjmp or exception left behind.
 * For a call on the thread's own stack: every activation on another stack
 * (a sigaltstack handler left by siglongjmp), then those whose slots lie
 * below the new one (or at it, unless the new call is a tail call out of
 * that very activation).  A call on a sigaltstack reaps nothing: the
 * thread's activations below it are alive.
 */
static void eval_reap_unwound(struct xp_thread *t, uint64_t ret, uint64_t slot)
{
	if (!t->depth)
		return;
	/* the thread's stack, found the first time it matters (worker.c) */
	if (__builtin_expect(!t->stack_known && !t->busy, 0)) {
		struct eval_stack s = {t, slot};

		/* no lock taken there, nothing half made: no hold (a call on a
		 * sigaltstack looks again every time) */
		t->busy++;
		worker_call_own(t, eval_slow_stack, &s);
		t->busy--;
	}
	if (slot < t->stack_lo || slot >= t->stack_hi)
		return;
	while (t->depth) {
		struct xp_frame *f = &t->stack[t->depth - 1];

		if (f->slot >= t->stack_lo && f->slot < t->stack_hi) {
			if (f->slot > slot)
				break;
			if (f->slot == slot && eval_is_tail_call(f, ret))
				break;
		}
		activation_abandon(t->worker, f, ACTIVATION_GONE);
		t->depth--;
	}
}

/*
 * A call of the program's that could not be counted (no worker to be had,
 * the process finishing, no room): said in the dumps' "lost".  An atomic
 * add, but only here, never for a counted evaluation.
 */
static __attribute__((cold)) int eval_lost(struct xp_thread *t)
{
	__atomic_add_fetch(xp_lost_at, 1, __ATOMIC_RELAXED);
	if (t)
		step_pass(t);
	return 1;
}

/*
 * Pushing an activation: entry @i is marked as being filled, so that a
 * signal handler's hooked call arriving meanwhile takes the one above it
 * (eval_enter_slow); the depth counts it only once it is whole.
 */
static inline struct xp_frame *eval_push_begin(struct xp_thread *t, uint32_t i, uint32_t idx,
					       uint64_t ret, uint64_t slot)
{
	struct xp_frame *f = &t->stack[i];

	t->filling = i + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	f->ret = ret;
	f->slot = slot;
	f->nested = 0;
	f->idx = idx;
	return f;
}

static inline void eval_push_end(struct xp_thread *t, uint32_t i, uint32_t filling_before)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->depth = i + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->filling = filling_before;
}

/*
 * A thread's first evaluation: its worker, its shadow stack, maybe its
 * dump.  0 when it has them, else what eval_enter_slow() returns.  Apart,
 * so that the slow path runs with as little of the program's stack below
 * it as may be (a signal handler's first call on a small sigaltstack).
 */
static __attribute__((noinline)) int eval_take_worker(struct xp_thread *t)
{
	struct eval_slow s = {t, NULL};

	/* those before the shim is ready are not counted; the others are lost */
	if (!(xp.enabled || xp.calibrating))
		return 1;
	if (t->released || xp.finished || xp.lost_only)
		return eval_lost(t);
	eval_slow(t, eval_slow_acquire, &s);
	if (!s.w || !t->stack)
		return eval_lost(t);
	return 0;
}

/*
 * The entry path's every case but the common one, for thread @t (the
 * caller's own state), its worker had: see eval_enter_slow().
 */
static int eval_enter_push(struct xp_thread *t, uint32_t idx, uint64_t ret, uint64_t slot)
{
	struct xp_worker *w = t->worker;
	struct xp_frame *f;
	uint32_t flags = 0, old, i;

	/* idx past the worker's table: a declaration added (dlopen) after the
	 * worker's dump ran out of room for more */
	if (__builtin_expect(xp.finished | (idx >= w->map.ndecls), 0)) {
		flags = XP_FRAME_UNCOUNTED;
		eval_lost(t);
	}
	/* interrupting a push (we are a signal handler): the frames below live */
	if (!t->filling)
		eval_reap_unwound(t, ret, slot);
	if (__builtin_expect(t->depth + 1 >= t->cap, 0)) {
		eval_slow(t, eval_slow_grow, t);
		if (t->depth + 1 >= t->cap)
			return eval_lost(t);
	}

	/*
	 * A push interrupted by this signal handler is filling entry
	 * filling - 1, not yet counted in depth: take the one above it, and
	 * leave depth counting it; the interrupted push sets the same depth.
	 */
	old = t->filling;
	i = old && old - 1 >= t->depth ? old : t->depth;
	f = eval_push_begin(t, i, idx, ret, slot);
	if (!flags) {
		if (w->map.decls[idx].open++)
			flags |= XP_FRAME_RECURSIVE;
		if (idx == xp.window_decl) {
			flags |= XP_FRAME_WINDOW;
			if (__atomic_add_fetch(&xp_window_open, 1, __ATOMIC_RELAXED) == 1)
				__atomic_add_fetch(&xp_window_epoch, 1, __ATOMIC_RELAXED);
		} else if (xp.window_decl != UINT32_MAX && !xp_window_open) {
			flags |= XP_FRAME_OUTSIDE;
		}
	}
	f->flags = flags;
	eval_push_end(t, i, old);
	if (xp.counter.kind == EXTPROF_COUNTER_STEPS)
		return step_enter(t, f, slot);
	f->start = counter_read_ordered(t);
	return 0;
}

/* The worker of thread @t, at its first call, then the push (eval_enter_push). */
static int eval_enter_take(struct xp_thread *t, uint32_t idx, uint64_t ret, uint64_t slot)
{
	int r;

	if (__builtin_expect(!t->worker, 0) && (r = eval_take_worker(t)))
		return r;
	return eval_enter_push(t, idx, ret, slot);
}

/* Every case of the entry path: the first call of a thread, windows, ... */
static __attribute__((noinline, cold)) int eval_enter_slow(uint32_t idx, uint64_t ret,
							   uint64_t slot)
{
	/* a thread without TLS of its own has its own state, or none: lost */
	struct xp_thread *t = state_self(slot, true);
	int type, r;

	if (!t)
		return xp.enabled ? eval_lost(NULL) : 1;
	/*
	 * The shim's own calls (a slow path below, the callers' walk, a dlopen
	 * being hooked) are not the program's evaluations: they pass through,
	 * without a frame, so that a hooked function the slow path calls
	 * (mremap as the shadow stack grows) cannot enter it again.
	 */
	if (t->busy)
		return 1;
	if (__builtin_expect(!t->cancel_async, 1))
		return eval_enter_take(t, idx, ret, slot);
	/*
	 * A thread in asynchronous cancellation: deferred while it takes its
	 * worker and its activation is pushed, so that a cancellation acts
	 * before or after, never inside (cancel.c), and here, on the program's
	 * stack, not as the worker's hold ends on the shim's; the counter read
	 * again after, so that the switch back is not the function's.
	 */
	cancel_defer(t, &type);
	r = eval_enter_take(t, idx, ret, slot);
	cancel_undefer(t, type);
	if (!r && t->depth && t->stack[t->depth - 1].slot == slot)
		t->stack[t->depth - 1].start = counter_read_ordered(t);
	return r;
}

/*
 * Called by xp_thunk_enter with the caller's return address @ret, taken
 * from @slot.  Returns 0 when the activation was pushed, 1 when the call
 * must pass through unhooked (the thunk then leaves R1 in place).  The
 * common case stays short, so that it saves few registers; anything else
 * goes to eval_enter_slow().
 */
int xp_eval_enter(uint32_t idx, uint64_t ret, uint64_t slot)
{
	struct xp_thread *t = &xp_self;
	struct xp_worker *w = t->worker;
	struct xp_frame *f;
	uint32_t depth = t->depth;

	if (__builtin_expect(!w || (t->busy | t->filling | t->shared | t->cancel_async |
				    xp.finished | (idx >= w->map.ndecls) | (depth + 1 >= t->cap) |
				    (xp.window_decl != UINT32_MAX)),
			     0))
		return eval_enter_slow(idx, ret, slot);
	/* a frame at or below our slot was unwound past (longjmp, ...) */
	if (__builtin_expect(depth && t->stack[depth - 1].slot <= slot, 0))
		return eval_enter_slow(idx, ret, slot);
	f = eval_push_begin(t, depth, idx, ret, slot);
	f->flags = w->map.decls[idx].open++ ? XP_FRAME_RECURSIVE : 0;
	eval_push_end(t, depth, 0);
	if (xp.counter.kind == EXTPROF_COUNTER_STEPS)
		return step_enter(t, f, slot);
	f->start = counter_read_ordered(t);
	return 0;
}

struct eval_row {
	struct xp_worker *w;
	uint32_t idx;
};

/* Out of line: its buffer is on the stack only when there is something to say. */
static __attribute__((noinline, cold)) void eval_say_no_row(int err)
{
	char why[160];

	log_once(LOG_ONCE_ROW, "no memory for a histogram (%s); some deltas are not kept",
		 log_strerror_limit(-err, why, sizeof(why)));
}

static void eval_slow_row(void *p)
{
	struct eval_row *a = p;
	struct dump_map *m = &a->w->map;
	int stopped = m->grow_err, err = dump_take_row(m, a->idx);

	if (!stopped && m->grow_err)
		log_once(LOG_ONCE_GROW,
			 "cannot grow %s: %s; counting in memory the histograms it has no room "
			 "for, to be written at exit",
			 m->path,
			 m->grow_err == -ESTALE	  ? "another file is in its place"
			 : m->grow_err == -ENOENT ? "it was removed"
			 : m->grow_err == -EFBIG
				 ? "it would pass the file size limit (RLIMIT_FSIZE)"
				 : log_strerror(-m->grow_err));
	else if (err)
		eval_say_no_row(err);
}

/*
 * A declaration's first evaluation in worker @w: its histogram row
 * (dump_take_row), from eval_record and from the stubs' fast path when a
 * floor first falls (stub_fast.S).  Not the common path (once per
 * declaration and worker), so it may call libc and use atomics.
 *
 * A signal handler's hooked call may arrive in the middle of it, on this
 * thread: the taking runs busy, so that call passes through uncounted, as
 * during a thread's first evaluation, and the taking is never entered
 * twice (the worker is this thread's alone: nothing else takes its rows).
 * A call that arrives before busy is set takes its row first, whole; the
 * interrupted one then finds its declaration's row given (d->row, looked
 * at again inside dump_take_row) or takes the next.  The row is counted
 * (nrows), then given (d->row), each by an atomic store, for the compact
 * dump another thread may be writing at exit.  Without a row, the deltas
 * go to row 0, nobody's.
 */
static void eval_take_row(struct xp_thread *t, struct extprof_dump_decl *d, struct xp_worker *w)
{
	struct eval_row a = {w, (uint32_t)(d - w->map.decls)};

	if (d->row || t->busy || xp.finished)
		return;
	eval_slow(t, eval_slow_row, &a);
}

/* The stubs' fast path: never on a shared block (clone.c), so xp_self is the caller's. */
void xp_eval_take_row(struct extprof_dump_decl *decl, struct xp_worker *worker)
{
	eval_take_row(&xp_self, decl, worker);
}

/*
 * One delta of declaration @d of worker @w: its sum, max, floor and
 * histogram, whose row thread @t takes if it has none (NULL: at exit, too
 * late to take one: row 0).
 */
static void eval_sample(struct xp_thread *t, struct xp_worker *w, struct extprof_dump_decl *d,
			uint64_t delta)
{
	record_delta(d, delta);
	if (__builtin_expect(!d->row && t, 0))
		eval_take_row(t, d, w);
	dump_row_at(&w->map, d->row)[extprof_hist_bucket(delta)]++;
}

/*
 * Record the activation @f, whose counter moved by @raw: an evaluation's
 * delta (into @deltap) is @raw less its nested hooks' overhead, and one
 * that would go below zero is a measurement error, recorded as 0 and
 * counted in "negative".  False when @f was not an evaluation.
 */
static bool eval_record(struct xp_thread *t, struct xp_worker *w, const struct xp_frame *f,
			uint64_t raw, uint64_t *deltap)
{
	struct extprof_dump_decl *d = &w->map.decls[f->idx];
	uint64_t delta = raw - f->nested;

	if (f->flags & XP_FRAME_RECURSIVE) {
		d->recursive++;
		return false;
	}
	if (f->flags & XP_FRAME_OUTSIDE) {
		d->outside++;
		return false;
	}
	if (__builtin_expect(raw < f->nested, 0)) {
		d->negative++;
		delta = 0;
	}
	*deltap = delta;
	d->evaluations++;
	/* steps: only a stepped evaluation has a delta, and one that bound a
	 * symbol lazily is held back (step.h) */
	if (xp.counter.kind == EXTPROF_COUNTER_STEPS) {
		if (!step_sampled(f))
			return false;
		if (step_hold(d, f, deltap)) {
			/* its row now, while one may be taken: at exit it is too late */
			if (__builtin_expect(!d->row, 0))
				eval_take_row(t, d, w);
			return false;
		}
		delta = *deltap;
	}
	eval_sample(t, w, d, delta);
	return true;
}

/*
 * An evaluation of declaration @idx, of delta @delta, ran inside the
 * activation @parent: what the exports draw as its nesting (dump.h).  A
 * parent that is not counted (inherited across a fork, or past the
 * worker's table) is left out.  The stubs' fast path does the same.
 */
static void eval_record_nesting(struct xp_worker *w, uint32_t idx, const struct xp_frame *parent,
				uint64_t delta)
{
	struct extprof_dump_decl *d = &w->map.decls[idx], *p;
	uint32_t id = parent->idx + 1;

	/* nor a signal handler's call, where the parent's count holds none of it (steps) */
	if (parent->flags & (XP_FRAME_UNCOUNTED | XP_FRAME_SIGNALED))
		return;
	p = &w->map.decls[parent->idx];
	p->inner++;
	p->inner_sum += delta;
	d->nested++;
	d->nested_sum += delta;
	d->parent = !d->parent || d->parent == id ? id : EXTPROF_PARENT_SEVERAL;
}

/* No memcmp here: libc's uses vector registers. */
static bool eval_same_chain(const uint64_t *a, const uint64_t *b, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		if (a[k] != b[k])
			return false;
	}
	return true;
}

/*
 * The evaluation's chain of callers, in this declaration's slots, the last
 * of which is "other".  A new chain takes the first free slot; when none
 * is free it takes the place of the chain of fewest evaluations, whose
 * figures move to "other".  A chain that comes back climbs above the
 * newcomers, which replace each other, so the slots come to hold the
 * heaviest chains (by evaluations, approximately: a heavy chain first seen
 * when the slots are full stays once it is seen again before the next
 * newcomer arrives), not the first ones seen, and every evaluation stays
 * counted.  No allocation, no lock: a signal handler's evaluation that
 * lands in the middle of a replacement may leave its own in "other".
 */
static void eval_record_caller(struct xp_worker *w, uint32_t idx, const uint64_t *pcs,
			       uint32_t depth, uint64_t delta)
{
	uint32_t nslots = w->map.caller_slots, i, light = 0;
	struct extprof_dump_caller *c = &w->map.callers[(uint64_t)idx * nslots];

	for (i = 0; i + 1 < nslots; i++) {
		if (!c[i].depth)
			break;
		if (c[i].depth == depth && eval_same_chain(c[i].pc, pcs, depth))
			goto found;
		if (c[i].evaluations < c[light].evaluations)
			light = i;
	}
	if (i + 1 == nslots && nslots > 1) {
		struct extprof_dump_caller *other = &c[nslots - 1];

		i = light;
		other->evaluations += c[i].evaluations;
		other->sum += c[i].sum;
		floor_merge(&other->floor, &other->floor_hits, c[i].floor, c[i].floor_hits);
		c[i].evaluations = 0;
		c[i].sum = 0;
		c[i].floor = EXTPROF_FLOOR_NONE;
		c[i].floor_hits = 0;
	}
	if (i + 1 < nslots) {
		for (uint32_t k = 0; k < depth; k++)
			c[i].pc[k] = pcs[k];
		c[i].depth = depth;
	}
found:
	c += i;
	c->evaluations++;
	c->sum += delta;
	floor_add(xp.counter.kind, &c->floor, &c->floor_hits, delta);
}

struct eval_callers {
	const uint64_t *regs;
	uint64_t ret;
	uint64_t slot;
	uint64_t pcs[EXTPROF_CALLERS_MAX_DEPTH];
	uint32_t depth;
};

static void eval_slow_callers(void *p)
{
	struct eval_callers *a = p;

	a->depth = callers_walk(a->regs, a->ret, a->slot, a->pcs, xp.callers);
}

/*
 * With a window, a thread's share of the run total is the span from its
 * first to its last evaluation inside each window episode (docs/floors.md).
 */
static void eval_window_span(struct xp_thread *t, struct xp_worker *w, uint64_t start, uint64_t now)
{
	uint64_t epoch = xp_window_epoch;

	if (t->win_epoch != epoch) {
		if (t->win_last > t->win_first)
			w->map.hdr->run_total += t->win_last - t->win_first;
		t->win_epoch = epoch;
		t->win_first = start;
	}
	/* the window function itself exits last, with the earliest start */
	if (start < t->win_first)
		t->win_first = start;
	if (now > t->win_last || t->win_last < t->win_first)
		t->win_last = now;
}

/* The exit path's every case but the common one, for thread @t: see eval_exit(). */
static int eval_exit_pop(struct xp_thread *t, uint64_t *slot, const uint64_t *regs, uint64_t now)
{
	struct xp_worker *w = t->worker;
	struct xp_frame *f, fr;
	uint64_t delta = 0, walk = 0;
	uint32_t i = t->depth;

	/* Ours is the activation whose slot this is; any above it were left
	 * by a longjmp out of a signal handler and are abandoned. */
	while (i > 1 && t->stack[i - 1].slot != (uint64_t)slot)
		i--;
	while (t->depth > i) {
		activation_abandon(w, &t->stack[t->depth - 1], ACTIVATION_GONE);
		t->depth--;
	}
	/* ours, copied before the pop: a signal handler may reuse the entry */
	fr = t->stack[t->depth - 1];
	f = &fr;
	if (xp.counter.kind == EXTPROF_COUNTER_STEPS)
		step_exit_mark(f, (uint64_t)slot);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*slot = f->ret;
	t->depth--;
	if (f->flags & XP_FRAME_UNCOUNTED)
		return xp.counter.kind == EXTPROF_COUNTER_STEPS ? step_exit(t, f) : 0;

	w->map.decls[f->idx].open--;
	if (f->flags & XP_FRAME_WINDOW)
		__atomic_sub_fetch(&xp_window_open, 1, __ATOMIC_RELAXED);
	if (xp.window_decl != UINT32_MAX && !(f->flags & XP_FRAME_OUTSIDE))
		eval_window_span(t, w, f->start, now);
	if (!eval_record(t, w, f, now - f->start, &delta))
		regs = NULL;
	else if (t->depth && t->filling != t->depth)
		eval_record_nesting(w, f->idx, &t->stack[t->depth - 1], delta);
	if (regs && w->map.caller_slots) {
		struct eval_callers a;

		a.regs = regs;
		a.ret = f->ret;
		a.slot = (uint64_t)slot;
		a.pcs[0] = f->ret;
		a.depth = 1;

		if (xp.callers > 1) {
			/*
			 * The walk costs the caller what it costs this time (the
			 * depth, the caches, libunwind's own lookups): measured,
			 * not calibrated, and subtracted from the caller with the
			 * rest of this hook.
			 */
			uint64_t before = counter_read_ordered(t);

			eval_slow(t, eval_slow_callers, &a);
			eval_record_caller(w, f->idx, a.pcs, a.depth, delta);
			walk = counter_read_ordered(t) - before;
		} else {
			eval_record_caller(w, f->idx, a.pcs, a.depth, delta);
		}
	}
	if (t->depth && t->filling != t->depth)
		t->stack[t->depth - 1].nested += f->nested + xp.meta.nested_overhead + walk;
	return xp.counter.kind == EXTPROF_COUNTER_STEPS ? step_exit(t, f) : 0;
}

/*
 * The exit path; @regs, with callers on, the caller's callee-saved
 * registers.  Returns 1 when single-stepping goes on in the caller (steps).
 * A thread in asynchronous cancellation is deferred while its activation
 * is popped and recorded (as in eval_enter_slow).
 */
static __attribute__((noinline)) int eval_exit(uint64_t *slot, const uint64_t *regs, uint64_t now)
{
	struct xp_thread *t = state_self((uint64_t)slot, false);
	int type, r;

	if (__builtin_expect(t != &xp_self, 0)) {
		/*
		 * A thread without TLS of its own (clone.c): its activation
		 * was pushed on its own state, which it keeps until its
		 * function returns, so it is found; a count of its own is
		 * read there (a clock's read stands: read again, it would
		 * hold the finding).
		 */
		if (!t)
			t = &xp_self;
		else if (counter_per_thread())
			now = counter_read_of(t);
	}
	if (__builtin_expect(!t->cancel_async, 1))
		return eval_exit_pop(t, slot, regs, now);
	cancel_defer(t, &type);
	r = eval_exit_pop(t, slot, regs, now);
	cancel_undefer(t, type);
	return r;
}

/*
 * Called by xp_thunk_exit: @slot is where R1 must go back.  The common
 * case (the top activation, counted, no window) here; the rest in
 * eval_exit().
 */
int xp_eval_exit(uint64_t *slot)
{
	uint64_t now = counter_read_inline();
	struct xp_thread *t = &xp_self;
	struct xp_worker *w = t->worker;
	uint32_t depth = t->depth;
	struct xp_frame f;
	uint64_t delta;

	/* a shared block's stack is not the caller's to read (clone.c) */
	if (__builtin_expect(t->shared, 0))
		return eval_exit(slot, NULL, now);
	f = t->stack[depth - 1];
	/* steps: a counted evaluation (STEPPED, the code cache's every one) is common too */
	if (__builtin_expect((f.slot != (uint64_t)slot) | (f.flags & ~XP_FRAME_STEPPED) |
				     t->cancel_async | (xp.window_decl != UINT32_MAX),
			     0))
		return eval_exit(slot, NULL, now);
	if (f.flags)
		step_exit_mark(&f, (uint64_t)slot);
	/* f is a copy, taken before the pop: a signal handler may reuse the entry */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*slot = f.ret;
	t->depth = depth - 1;
	w->map.decls[f.idx].open--;
	/* the parent, unless it is the entry an interrupted push is filling */
	if (eval_record(t, w, &f, now - f.start, &delta) && depth > 1 && t->filling != depth - 1)
		eval_record_nesting(w, f.idx, &t->stack[depth - 2], delta);
	if (depth > 1 && t->filling != depth - 1)
		t->stack[depth - 2].nested += f.nested + xp.meta.nested_overhead;
	/* a frame of no flags is never one stepping reached (step.c) */
	return f.flags ? step_exit(t, &f) : 0;
}

/* Called by the stubs' fast path (stub_fast.S) for every exit but the common one. */
void xp_eval_exit_now(uint64_t *slot, uint64_t now)
{
	(void)eval_exit(slot, NULL, now);
}

/* Called by xp_thunk_exit_callers, with the caller's callee-saved registers. */
int xp_eval_exit_callers(uint64_t *slot, const uint64_t *regs)
{
	return eval_exit(slot, regs, counter_read_inline());
}
