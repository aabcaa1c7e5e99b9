// SPDX-License-Identifier: MIT
/*
 * xlate_signal: the program's signal handlers under the code cache.  The
 * shim interposes sigaction, signal and their aliases (step_signal.c); with
 * the translation engine, every handler the program installs is kept here
 * and the kernel is given ours, with the program's mask and flags:
 *
 *   a signal arrives                  interrupted in translated code?
 *     |                               yes: the ucontext is rewritten into the
 *     |                               native state it stands for (the pc, the
 *     |                               registers a translation borrowed), and
 *     |                               the count holds what retired before it
 *     |                               (the port's xlate_ctx.c)
 *     v
 *   the program's handler runs        natively, as a thread out of any
 *                                     session: its hooked calls are
 *                                     evaluations of their own, counted;
 *                                     what it adds to the count is taken out
 *                                     of the interrupted evaluations
 *     v
 *   it returns                        the native state untouched: back to
 *                                     the translated state exactly; changed
 *                                     (a handler that skips an instruction,
 *                                     or mends a register): on at the
 *                                     translation of the native pc it left
 *
 * A handler that interrupted the dispatcher (in_disp) sees the shim's own
 * state, and its hooked calls are not translated.  A handler that does not
 * return (siglongjmp) leaves the session to longjmp.c and unwind.c.
 * Handlers installed before the shim are wrapped at start-up; one installed
 * by a raw rt_sigaction system call is not seen: it runs with the cache's
 * state in its ucontext, and its hooked calls are not translated.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "core/cancel.h"
#include "core/interpose.h"
#include "core/state.h"
#include "steps/step.h"
#include "steps/state.h"
#include "steps/xlate.h"

typedef int (*xs_sigaction_fn)(int, const struct sigaction *, struct sigaction *);

#define XS_NSIG 65

/* The program's action for each signal: two copies, so that a handler never reads one half-written.
 */
static struct sigaction xs_prog[XS_NSIG][2];
static int xs_cur[XS_NSIG];
static bool xs_known[XS_NSIG]; /* the program's action is in xs_prog */

static const char *const xs_names[] = {"sigaction"};
static void *xs_cache[1];
static const struct interpose_table xs_reals = {xs_names, xs_cache, 1};

static int xs_real(int sig, const struct sigaction *act, struct sigaction *old)
{
	xs_sigaction_fn fn = (xs_sigaction_fn)interpose_real(&xs_reals, 0);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(sig, act, old);
}

static void xs_prog_get(int sig, struct sigaction *a)
{
	*a = xs_prog[sig][__atomic_load_n(&xs_cur[sig], __ATOMIC_ACQUIRE)];
}

static void xs_on_signal(int sig, siginfo_t *si, void *uc);

/*
 * Record @a as the program's action for @sig.  The kernel's action is
 * already our wrapper where an earlier attachment installed it (the shim
 * stays loaded after a detach, and its wrappers with it): that is never
 * the program's, whose action recorded then stands, or the wrapper would
 * call itself for ever.
 */
static void xs_prog_set(int sig, const struct sigaction *a)
{
	int next = 1 - __atomic_load_n(&xs_cur[sig], __ATOMIC_RELAXED);

	if ((a->sa_flags & SA_SIGINFO) && a->sa_sigaction == xs_on_signal &&
	    __atomic_load_n(&xs_known[sig], __ATOMIC_ACQUIRE))
		return;

	xs_prog[sig][next] = *a;
	__atomic_store_n(&xs_cur[sig], next, __ATOMIC_RELEASE);
	__atomic_store_n(&xs_known[sig], true, __ATOMIC_RELEASE);
}

static bool xs_is_handler(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) || (a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN);
}

/* Signals the shim leaves alone: uncatchable, or glibc's own (cancellation: see below, setxid). */
static bool xs_ours(int sig)
{
	return sig > 0 && sig < XS_NSIG && sig != SIGKILL && sig != SIGSTOP && sig != 32 &&
	       sig != 33;
}

/* The kernel's action for the program's @a: ours, with its mask and flags. */
static int xs_install(int sig, const struct sigaction *a)
{
	struct sigaction k;

	if (!xs_is_handler(a))
		return xs_real(sig, a, NULL);
	k = *a;
	k.sa_sigaction = xs_on_signal;
	k.sa_flags |= SA_SIGINFO;
	return xs_real(sig, &k, NULL);
}

int xlate_sigaction(int sig, const void *actp, void *oldp)
{
	const struct sigaction *act = actp;
	struct sigaction *old = oldp, prev;

	if (!xs_ours(sig))
		return xs_real(sig, act, old);
	if (!__atomic_load_n(&xs_known[sig], __ATOMIC_ACQUIRE)) {
		if (xs_real(sig, NULL, &prev) < 0)
			return -1;
		xs_prog_set(sig, &prev);
	}
	xs_prog_get(sig, &prev);
	if (act) {
		/* the kernel first: a failure (EINVAL) leaves everything as it was */
		if (xs_install(sig, act) < 0)
			return -1;
		xs_prog_set(sig, act);
	}
	if (old)
		*old = prev;
	return 0;
}

int xlate_signals_install(void)
{
	struct sigaction a;

	if (!interpose_real(&xs_reals, 0))
		return -ENOSYS;
	for (int sig = 1; sig < XS_NSIG; sig++) {
		if (!xs_ours(sig) || xs_real(sig, NULL, &a) < 0)
			continue;
		xs_prog_set(sig, &a);
		if (xs_is_handler(&a))
			xs_install(sig, &a);
	}
	__atomic_store_n(&xl_signals_on, true, __ATOMIC_RELEASE);
	return 0;
}

/* ---- the handler ----------------------------------------------------------------------- */

/* What the interrupted thread was doing, kept around the program's handler. */
struct xs_state {
	struct xl_thread x;
	struct xp_step step;
	bool translated;  /* the ucontext was rewritten into the native state */
	int64_t adj;	  /* and the count moved by this */
	uint64_t flushes; /* the cache's flushes then */
	uint64_t cache_regs[ARCH_CTX_NREGS];
	uint64_t native_regs[ARCH_CTX_NREGS];
	uint64_t now_regs[ARCH_CTX_NREGS]; /* the native state as the handler left it */
	void *uc;
};

/*
 * The states of the handlers running on the thread, nested, at the bottom
 * of its cache's dispatcher stack (XL_SIG_BYTES of it), neither on the
 * stack the kernel delivers the signal on, which may be a 4 KiB
 * sigaltstack whose kernel frame alone takes 3.3 KiB on AVX-512 (the
 * program's handler and its first hooked call must fit in what is left),
 * nor in TLS, which glibc carves out of every thread's stack.  A handler
 * left by siglongjmp keeps its state taken; past XS_NEST the state goes on
 * the signal's stack, as a deeper nesting needs.
 */
#define XS_NEST (XL_SIG_BYTES / sizeof(struct xs_state))

/* The native pc of a routine's state (xlate_ctx's 1 and 2): an exit stub's target, a block's pc. */
static void xs_resolve(struct xl_cache *c, void *uc, int how)
{
	uint64_t pc = arch_ctx_pc(uc);
	struct xl_block *b = xlate_cache_block_at(c, pc, NULL);

	if (!b)
		return;
	if (how == 2 && (uint64_t)b->code == pc) {
		arch_ctx_set_pc(uc, b->pc);
		return;
	}
	for (uint32_t i = 0; how == 1 && i < b->nexits; i++)
		if (b->code + b->exit[i].stub_off == (uint8_t *)pc)
			arch_ctx_set_pc(uc, b->exit[i].target);
}

/*
 * The ucontext of a thread interrupted in its cache: the native state it
 * stands for.  On the dispatcher's stack (xs_to_native), which no code
 * runs on while the thread runs translated code.
 */
static void xs_to_native_on(void *p)
{
	struct xs_state *s = p;
	struct xl_thread *x = &xl_self;
	void *uc = s->uc;
	const struct xl_routines *r;
	struct xl_block *b;
	int rc;

	b = xlate_cache_block_at(x->cache, arch_ctx_pc(uc), &r);
	if (!b && !r)
		return;
	arch_ctx_get_regs(uc, s->cache_regs);
	rc = arch_xl_native_ctx(b, r, uc, &s->adj);
	if (rc < 0) {
		arch_ctx_set_regs(uc, s->cache_regs);
		return;
	}
	if (rc > 0)
		xs_resolve(x->cache, uc, rc);
	xp_self.step.count += (uint64_t)s->adj;
	arch_ctx_get_regs(uc, s->native_regs);
	s->flushes = x->cache->flushes;
	s->translated = true;
}

static void xs_to_native(struct xs_state *s, void *uc)
{
	struct xl_thread *x = &xl_self;

	if (x->in_disp || !x->cache || !xlate_cache_owns(x->cache, arch_ctx_pc(uc)))
		return;
	s->uc = uc;
	/* a signal meanwhile translates nothing: the dispatcher's stack is this one */
	x->in_disp = 1;
	arch_call_on_stack(xs_to_native_on, s, x->dstack);
	x->in_disp = 0;
}

struct xs_resume {
	uint64_t pc;
	uint64_t code; /* its translation, 0: none */
};

static void xs_translate(void *p)
{
	struct xs_resume *r = p;
	struct xl_cache *c = xl_self.cache;
	struct xl_block *b;

	if (c->epoch != __atomic_load_n(&xl_code_epoch, __ATOMIC_ACQUIRE))
		xlate_cache_flush(c);
	b = xlate_cache_find(c, r->pc);
	if (!b)
		b = xlate_translate(c, r->pc);
	if (b) {
		xlate_cache_publish(c, b);
		r->code = (uint64_t)b->code;
	}
}

/*
 * The handler returned to a thread that was in its cache: back to the
 * translated state if the handler left the native one alone and the cache
 * was not flushed meanwhile; else on at the translation of the native pc
 * (on the dispatcher's stack: a sigaltstack may be small).  What cannot be
 * translated goes on natively.
 */
static void xs_to_cache(struct xs_state *s, void *uc)
{
	struct xl_thread *x = &xl_self;
	struct xs_resume r = {arch_ctx_pc(uc), 0};

	arch_ctx_get_regs(uc, s->now_regs);
	if (!memcmp(s->now_regs, s->native_regs, sizeof(s->now_regs)) &&
	    x->cache->flushes == s->flushes) {
		arch_ctx_set_regs(uc, s->cache_regs);
		xp_self.step.count -= (uint64_t)s->adj;
		return;
	}
	if (!x->active)
		return;
	x->in_disp = 1;
	xp_self.busy++;
	x->disp_busy = 1;
	arch_call_on_stack(xs_translate, &r, x->dstack);
	x->disp_busy = 0;
	xp_self.busy--;
	x->in_disp = 0;
	if (r.code)
		arch_ctx_set_pc(uc, r.code);
}

/* SA_RESETHAND: the kernel has reset @sig's action; so do we. */
static __attribute__((noinline, cold)) void xs_reset(int sig)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	xs_prog_set(sig, &dfl);
}

/* Our handler raced with the program's change of @sig to SIG_DFL: the default, now. */
static __attribute__((noinline, cold)) void xs_default(int sig)
{
	struct sigaction a;

	xs_prog_get(sig, &a);
	xs_real(sig, &a, NULL);
	arch_syscall4(SYS_tgkill, getpid(), arch_syscall4(SYS_gettid, 0, 0, 0, 0), sig, 0);
}

/* glibc's SIGCANCEL handler, which xs_on_signal wraps (xlate_cancel_prepare); 0: none yet. */
#define XS_SIGCANCEL 32
static uint64_t xs_cancel_handler;

/*
 * The program's action for @sig, called as it asked: its handler and flags
 * read in place, not copied (this frame is on the signal's stack).
 */
static void xs_call(int sig, siginfo_t *si, void *uc)
{
	if (sig == XS_SIGCANCEL) {
		((void (*)(int, siginfo_t *, void *))xs_cancel_handler)(sig, si, uc);
		return;
	}
	const struct sigaction *a = &xs_prog[sig][__atomic_load_n(&xs_cur[sig], __ATOMIC_ACQUIRE)];
	void (*action)(int, siginfo_t *, void *) = a->sa_sigaction;
	void (*handler)(int) = a->sa_handler;
	int flags = a->sa_flags;

	if (flags & SA_RESETHAND)
		xs_reset(sig);
	if (flags & SA_SIGINFO)
		action(sig, si, uc);
	else if (handler == SIG_DFL)
		xs_default(sig);
	else if (handler != SIG_IGN)
		handler(sig);
}

/* The program's handler for @sig around the interrupted thread's state, kept in @s. */
static inline __attribute__((always_inline)) void xs_handle(struct xs_state *s, int sig,
							    siginfo_t *si, void *uc)
{
	struct xp_thread *t = &xp_self;
	struct xl_thread *x = &xl_self;
	uint64_t before, added;
	uint32_t depth;
	int saved = errno;

	memset(s, 0, sizeof(*s));
	s->x = *x;
	xs_to_native(s, uc);
	s->step = t->step;
	/*
	 * The handler: out of any session, its hooked calls counted as their
	 * own; not translated if it interrupted the dispatcher, but counted
	 * still (the dispatcher's busy is the dispatcher's calls', not its)
	 */
	if (x->in_disp)
		x->no_xlate = 1;
	if (x->disp_busy) {
		/* let go for the handler; a longjmp out of it has nothing to let go again */
		t->busy--;
		x->disp_busy = 0;
	}
	x->active = 0;
	x->via = 0;
	x->exited = 0;
	t->step.depth = 0;
	/* its evaluations nest in none of the interrupted ones: their counts hold none of it */
	depth = t->stack ? t->depth : 0;
	if (depth)
		t->stack[depth - 1].flags |= XP_FRAME_SIGNALED;
	before = t->step.count;
	errno = saved;
	xs_call(sig, si, uc);
	saved = errno;
	/*
	 * What the handler counted is none of the interrupted evaluations': the
	 * count as it was (code that read it before the signal may subtract a
	 * start from it), and the run's total keeps it.
	 */
	added = t->step.count - before;
	if (depth && depth <= t->depth)
		t->stack[depth - 1].flags &= ~XP_FRAME_SIGNALED;
	if (added && t->worker && t->worker->map.hdr)
		t->worker->map.hdr->run_total += added;
	t->step = s->step;
	if (s->x.disp_busy)
		t->busy++;
	s->x.cache = x->cache;
	*x = s->x;
	if (s->translated)
		xs_to_cache(s, uc);
	errno = saved;
}

/* Deeper than XS_NEST: the state on the signal's stack. */
static __attribute__((noinline, cold)) void xs_on_signal_deep(int sig, siginfo_t *si, void *uc)
{
	struct xs_state s;

	xs_handle(&s, sig, si, uc);
}

/*
 * A thread without a cache: it never ran translated code, so nothing is
 * translated back, and what the handler changes of its state is only its
 * sessions' (its count, a cache made for them).
 */
static __attribute__((noinline)) void xs_on_signal_plain(int sig, siginfo_t *si, void *uc)
{
	struct xp_thread *t = &xp_self;
	struct xl_thread *x = &xl_self;
	uint64_t before = t->step.count, slot = t->step.slot, added;
	uint32_t sdepth = t->step.depth, depth = t->stack ? t->depth : 0;
	struct xl_cache *c;

	if (depth)
		t->stack[depth - 1].flags |= XP_FRAME_SIGNALED;
	xs_call(sig, si, uc);
	added = t->step.count - before;
	if (depth && depth <= t->depth)
		t->stack[depth - 1].flags &= ~XP_FRAME_SIGNALED;
	if (added && t->worker && t->worker->map.hdr)
		t->worker->map.hdr->run_total += added;
	t->step.count = before;
	t->step.slot = slot;
	t->step.depth = sdepth;
	t->step.prev = 0;
	c = x->cache;
	memset(x, 0, sizeof(*x));
	x->cache = c;
}

static void xs_on_signal(int sig, siginfo_t *si, void *uc)
{
	struct xl_cache *c = xl_self.cache;
	uint32_t n;

	if (!c) {
		xs_on_signal_plain(sig, si, uc);
		return;
	}
	n = c->sig_nest;
	if (n >= XS_NEST) {
		xs_on_signal_deep(sig, si, uc);
		return;
	}
	c->sig_nest = n + 1;
	xs_handle((struct xs_state *)c->dstack + n, sig, si, uc);
	c->sig_nest = n;
}

/* ---- glibc's SIGCANCEL ----------------------------------------------------------------- */

/*
 * glibc (2.34 and later) installs its SIGCANCEL handler at the first
 * pthread_cancel of a live thread, and sends the signal in that same call:
 * to wrap it before any is sent, a thread of the shim's, with cancellation
 * disabled, is cancelled first (no signal is sent to it), then joined.
 */
struct xs_helper {
	int ready, go;
};

static void *xs_cancel_helper(void *arg)
{
	struct xs_helper *h = arg;
	int old;

	/* its calls are none of the program's */
	xp_self.busy++;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	__atomic_store_n(&h->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->go, __ATOMIC_ACQUIRE))
		sched_yield();
	return NULL;
}

/* glibc's handler installed now (@cancel of a thread of ours): 0, or -1. */
static int xs_cancel_install(int (*cancel)(pthread_t))
{
	struct xs_helper h = {0, 0};
	pthread_t th;

	if (pthread_create(&th, NULL, xs_cancel_helper, &h))
		return -1;
	while (!__atomic_load_n(&h.ready, __ATOMIC_ACQUIRE))
		sched_yield();
	cancel(th);
	__atomic_store_n(&h.go, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	return 0;
}

void xlate_cancel_prepare(int (*cancel)(pthread_t))
{
	static int state; /* 0: not yet, 1: being done, 2: done */
	struct cancel_hold hold;
	struct step_kact k;
	int idle = 0;

	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2 || xp.sandboxed ||
	    !__atomic_compare_exchange_n(&state, &idle, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	/* pthread_join is a cancellation point, and the helper's calls are not counted */
	xp_self.busy++;
	cancel_hold(&hold, &xp_self);
	if (!arch_syscall4(SYS_rt_sigaction, XS_SIGCANCEL, 0, (long)&k, sizeof(k.mask)) &&
	    (k.handler != (uint64_t)SIG_DFL || !xs_cancel_install(cancel)) &&
	    !arch_syscall4(SYS_rt_sigaction, XS_SIGCANCEL, 0, (long)&k, sizeof(k.mask)) &&
	    k.handler != (uint64_t)SIG_DFL && k.handler != (uint64_t)SIG_IGN &&
	    (k.flags & SA_SIGINFO)) {
		__atomic_store_n(&xs_cancel_handler, k.handler, __ATOMIC_RELEASE);
		k.handler = (uint64_t)xs_on_signal;
		arch_syscall4(SYS_rt_sigaction, XS_SIGCANCEL, (long)&k, 0, sizeof(k.mask));
	}
	cancel_release(&hold);
	xp_self.busy--;
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
}
