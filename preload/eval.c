// SPDX-License-Identifier: MIT
/*
 * eval: the evaluation path.  Runs on every call of every hooked function,
 * in whatever state the program is in (a signal handler, under a lock, in
 * the middle of malloc), so: no lock, no atomic read-modify-write (but for
 * the window function's own activations), no malloc, no stdio, no vector
 * register (built with -mgeneral-regs-only; the thunks rely on it).  Slow
 * paths (a thread's first evaluation) go through xp_call_preserving(),
 * which saves the extended state around libc.
 *
 * The counter is read as the last thing on entry and the first on exit, so
 * that as little of the hook as possible lands inside the delta; what
 * remains is the calibration, subtracted by the analyzer once after merging.
 */
#include <stdint.h>

#include "arch/x86_64/stub_layout.h"
#include "counter_read.h"
#include "shim.h"

__thread struct xp_thread xp_self __attribute__((tls_model("initial-exec")));
volatile int64_t xp_window_open;

void xp_call_preserving(void (*fn)(void *), void *arg);

uint64_t xp_counter_read(void)
{
	return counter_read_inline();
}

struct eval_slow {
	struct xp_thread *t;
	struct xp_worker *w;
};

static void eval_slow_acquire(void *p)
{
	struct eval_slow *s = p;

	s->w = worker_acquire(s->t);
}

static void eval_slow_grow(void *p)
{
	worker_grow_stack(p);
}

static void eval_abandon(struct xp_worker *w, const struct xp_frame *f)
{
	if (!w || (f->flags & XP_FRAME_UNCOUNTED))
		return;
	w->active[f->idx]--;
	if (f->flags & XP_FRAME_WINDOW)
		__atomic_sub_fetch(&xp_window_open, 1, __ATOMIC_RELAXED);
	w->map.decls[f->idx].abandoned++;
}

/* F reached through a tail call (jmp) from this activation's own body. */
static int eval_is_tail_call(const struct xp_frame *f, uint64_t ret)
{
	return ret == (uint64_t)xp.decls[f->idx].stub + STUB_RET;
}

/*
 * Pop the activations that a longjmp, siglongjmp or exception left behind:
 * their slots lie below the new one on the same stack (or at it, unless the
 * new call is a tail call out of that very activation).  A handler on a
 * sigaltstack is on another stack, so nothing is reaped for it.
 */
static void eval_reap_unwound(struct xp_thread *t, uint64_t ret, uint64_t slot)
{
	if (slot < t->stack_lo || slot >= t->stack_hi)
		return;
	while (t->depth) {
		struct xp_frame *f = &t->stack[t->depth - 1];

		if (f->slot > slot || f->slot < t->stack_lo)
			break;
		if (f->slot == slot && eval_is_tail_call(f, ret))
			break;
		eval_abandon(t->worker, f);
		t->depth--;
	}
}

/*
 * Called by xp_thunk_enter with the caller's return address @ret, taken
 * from @slot.  Returns 0 when the activation was pushed, 1 when the call
 * must pass through unhooked (the thunk then leaves R1 in place).
 */
int xp_eval_enter(uint32_t idx, uint64_t ret, uint64_t slot)
{
	struct xp_thread *t = &xp_self;
	struct xp_worker *w = t->worker;
	struct xp_frame *f;
	uint32_t flags = 0;

	if (__builtin_expect(!w, 0)) {
		if (t->busy || t->released || xp.finished || !(xp.enabled || xp.calibrating))
			return 1;
		struct eval_slow s = {t, NULL};

		t->busy = 1;
		xp_call_preserving(eval_slow_acquire, &s);
		t->busy = 0;
		w = s.w;
		if (!w || !t->stack)
			return 1;
	}
	/* idx past the worker's table: a declaration added (dlopen) after the
	 * worker's dump ran out of room for more */
	if (__builtin_expect(t->busy | xp.finished | (idx >= w->map.ndecls), 0))
		flags = XP_FRAME_UNCOUNTED;
	eval_reap_unwound(t, ret, slot);
	if (__builtin_expect(t->depth == t->cap, 0)) {
		t->busy = 1;
		xp_call_preserving(eval_slow_grow, t);
		t->busy = 0;
		if (t->depth == t->cap)
			return 1;
	}

	f = &t->stack[t->depth];
	f->ret = ret;
	f->slot = slot;
	f->nested = 0;
	f->idx = idx;
	if (!flags) {
		if (w->active[idx]++)
			flags |= XP_FRAME_RECURSIVE;
		if (idx == xp.window_decl) {
			flags |= XP_FRAME_WINDOW;
			__atomic_add_fetch(&xp_window_open, 1, __ATOMIC_RELAXED);
		} else if (xp.window_decl != UINT32_MAX && !xp_window_open) {
			flags |= XP_FRAME_OUTSIDE;
		}
	}
	f->flags = flags;
	/* The frame is whole before a signal handler could push above it. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->depth++;
	f->start = counter_read_inline();
	return 0;
}

static void eval_record(struct xp_worker *w, const struct xp_frame *f, uint64_t delta)
{
	struct extprof_dump_decl *d = &w->map.decls[f->idx];

	if (f->flags & XP_FRAME_RECURSIVE) {
		d->recursive++;
		return;
	}
	if (f->flags & XP_FRAME_OUTSIDE) {
		d->outside++;
		return;
	}
	d->evaluations++;
	d->sum += delta;
	if (delta > d->max)
		d->max = delta;
	/* Hits within the margin of the floor: see "settled" in docs/floors.md */
	if (delta < d->floor) {
		uint64_t margin = extprof_floor_margin(xp.counter.kind, delta);

		d->floor_hits = d->floor - delta <= margin ? d->floor_hits + 1 : 1;
		d->floor = delta;
	} else if (delta - d->floor <= extprof_floor_margin(xp.counter.kind, d->floor)) {
		d->floor_hits++;
	}
	w->map.hist[(uint64_t)f->idx * EXTPROF_HIST_BUCKETS + extprof_hist_bucket(delta)]++;
}

/* Called by xp_thunk_exit: @slot is where R1 must go back. */
void xp_eval_exit(uint64_t *slot)
{
	uint64_t now = counter_read_inline();
	struct xp_thread *t = &xp_self;
	struct xp_worker *w = t->worker;
	struct xp_frame *f;
	uint64_t raw, delta;
	uint32_t i = t->depth;

	/* Ours is the activation whose slot this is; any above it were left
	 * by a longjmp out of a signal handler and are abandoned. */
	while (i > 1 && t->stack[i - 1].slot != (uint64_t)slot)
		i--;
	while (t->depth > i) {
		eval_abandon(w, &t->stack[t->depth - 1]);
		t->depth--;
	}
	f = &t->stack[t->depth - 1];
	*slot = f->ret;
	t->depth--;
	if (f->flags & XP_FRAME_UNCOUNTED)
		return;

	raw = now - f->start;
	delta = raw > f->nested ? raw - f->nested : 0;
	w->active[f->idx]--;
	if (f->flags & XP_FRAME_WINDOW)
		__atomic_sub_fetch(&xp_window_open, 1, __ATOMIC_RELAXED);
	eval_record(w, f, delta);
	if (t->depth)
		t->stack[t->depth - 1].nested += f->nested + xp.meta.nested_overhead;
}
