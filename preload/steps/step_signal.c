// SPDX-License-Identifier: MIT
/*
 * step_signal: the SIGTRAP handler the steps counter needs, and the
 * program's own SIGTRAP handling kept as it was.  Ours is the one installed
 * while steps counts; what the program installs for SIGTRAP with
 * sigaction(), signal() and their aliases is kept here and called for every
 * SIGTRAP that is not a single-step trap (an int3, a kill), with its mask
 * and flags; the program's default (a core dump) and SIG_IGN are honoured
 * the same way.  A raw rt_sigaction system call is not seen: it replaces
 * our handler, and step.c then steps no more.  A single-step trap goes to
 * step_trap(), here: what retired is counted (arch_step_retired),
 * and stepping is suspended at the shim's thunks.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "core/interpose.h"
#include "core/state.h"
#include "steps/step.h"
#include "steps/state.h"
#include "steps/xlate.h"

#define XP_EXPORT __attribute__((visibility("default")))

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);

static bool step_active;

/*
 * libc's own, found once as the shim is loaded: a program may call these in
 * a signal handler, where dlsym (and its loader lock) must not run.
 */
enum { REAL_SIGNAL, REAL_BSD_SIGNAL, REAL_SYSV_SIGNAL, REAL___SYSV_SIGNAL, REAL_SIGACTION, REAL_N };
static const char *const step_signal_names[REAL_N] = {"signal", "bsd_signal", "sysv_signal",
						      "__sysv_signal", "sigaction"};
static void *step_signal_cache[REAL_N];
static const struct interpose_table step_signal_reals = {step_signal_names, step_signal_cache,
							 REAL_N};

__attribute__((constructor(101))) static void step_signal_resolve(void)
{
	interpose_resolve(&step_signal_reals);
}

/* libc's signal function @which (REAL_SIGNAL ... REAL___SYSV_SIGNAL), or NULL. */
static signal_fn step_real_signal(int which)
{
	return (signal_fn)step_signal_cache[which];
}

/* libc's sigaction, or NULL. */
static sigaction_fn step_real_sigaction(void)
{
	return (sigaction_fn)step_signal_cache[REAL_SIGACTION];
}

/* The program's SIGTRAP action: two copies, so that the handler never reads one half-written. */
static struct sigaction step_prog[2];
static int step_prog_cur;

static void step_prog_get(struct sigaction *a)
{
	*a = step_prog[__atomic_load_n(&step_prog_cur, __ATOMIC_ACQUIRE)];
}

static void step_prog_set(const struct sigaction *a)
{
	int next = 1 - __atomic_load_n(&step_prog_cur, __ATOMIC_RELAXED);

	step_prog[next] = *a;
	__atomic_store_n(&step_prog_cur, next, __ATOMIC_RELEASE);
}

/* SIGTRAP's default action, a core dump: as soon as our handler returns. */
static void step_die_by_default(void)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	step_real_sigaction()(SIGTRAP, &dfl, NULL);
	arch_syscall4(SYS_tgkill, getpid(), arch_syscall4(SYS_gettid, 0, 0, 0, 0), SIGTRAP, 0);
}

/* A SIGTRAP that is not ours: what the program asked for it. */
static void step_chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a;
	sigset_t old, mask;

	step_prog_get(&a);
	if (!(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_IGN) {
		/* the kernel kills for a trap it raised (int3) even when ignored */
		if (si->si_code > 0)
			step_die_by_default();
		return;
	}
	if (!(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_DFL) {
		step_die_by_default();
		return;
	}
	if (a.sa_flags & SA_RESETHAND) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		step_prog_set(&dfl);
	}
	mask = a.sa_mask;
	pthread_sigmask(SIG_BLOCK, &mask, &old);
	if (a.sa_flags & SA_NODEFER) {
		sigemptyset(&mask);
		sigaddset(&mask, SIGTRAP);
		pthread_sigmask(SIG_UNBLOCK, &mask, NULL);
	}
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The activation @slot leaves: its stepping reached its exit (step_sampled). */
static void step_mark_exit(struct xp_thread *t, uint64_t slot)
{
	for (uint32_t i = t->depth; t->stack && i > 0; i--) {
		if (t->stack[i - 1].slot == slot) {
			t->stack[i - 1].flags |= XP_FRAME_STEP_EXIT;
			return;
		}
	}
}

/*
 * The dynamic loader is about to bind a symbol lazily: every stepped
 * activation of @t counts its work, so none is a sample (step_hold).
 */
static void step_mark_bound(struct xp_thread *t)
{
	for (uint32_t i = t->step.depth; t->stack && i > 0 && i <= t->depth; i++)
		if (t->stack[i - 1].flags & XP_FRAME_STEPPED)
			t->stack[i - 1].flags |= XP_FRAME_STEP_BOUND;
}

/* A single-step trap of thread @t, with the interrupted context @uc. */
static void step_trap(struct xp_thread *t, void *uc)
{
	struct xp_step *s = &t->step;
	uint32_t n;
	uint64_t slot;
	bool exit;

	/* a seccomp filter came while another thread was stepped: reading the
	 * program's memory takes system calls, so stepping ends (unsampled) */
	if (xp.sandboxed) {
		step_end(t, uc);
		return;
	}
	n = arch_step_retired(t, uc);
	/* the shim at work in libc (a dlopen's new hooks) is not the program's */
	if (!t->busy)
		s->count += n;
	/* a thread started or forked while its parent was stepped, or stepping just ended */
	if (!s->depth) {
		arch_ctx_step(uc, false);
		s->prev = 0;
		return;
	}
	/* left by a longjmp or an exception, or too long to step */
	if (!step_alive(t) || s->count > s->limit) {
		step_end(t, uc);
		return;
	}
	if (step_is_resolver(arch_ctx_pc(uc)))
		step_mark_bound(t);
	slot = arch_step_thunk(uc, &exit);
	if (slot) {
		/* the shim's own work: unstepped, until the thunk sets the flag again */
		arch_ctx_step(uc, false);
		s->prev = 0;
		if (exit)
			step_mark_exit(t, slot);
		else
			s->susp_slot = slot;
		return;
	}
	if (!arch_step_look(s, uc))
		step_end(t, uc);
}

static void step_on_sigtrap(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct xp_thread *t;

	if (si->si_code == TRAP_TRACE) {
		/*
		 * Its thread's own state: on a block shared with threads
		 * without TLS of their own (clone.c), one of those has its
		 * own, or none, and then is not stepped (a child clone()
		 * started while its parent was stepped keeps the trap flag).
		 * Told by the stack the trap interrupted: the handler's own
		 * is the shim's sigaltstack (step.c).
		 */
		t = state_self(arch_ctx_sp(uc), false);
		if (t)
			step_trap(t, uc);
		else
			arch_ctx_step(uc, false);
	} else {
		step_chain(sig, si, uc);
	}
	errno = saved;
}

int step_signal_install(void)
{
	struct sigaction sa, old;

	if (!step_real_sigaction())
		return -ENOSYS;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = step_on_sigtrap;
	/* on the shim's sigaltstack while a call is stepped (step.c) */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (step_real_sigaction()(SIGTRAP, &sa, &old) < 0)
		return -errno;
	step_prog_set(&old);
	step_sigtrap_handler = (uint64_t)step_on_sigtrap;
	step_active = true;
	return 0;
}

/* ---- the program's calls, interposed ---------------------------------- */

static int step_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	/* the code cache wraps every handler (xlate_signal.c) */
	if (__atomic_load_n(&xl_signals_on, __ATOMIC_ACQUIRE))
		return xlate_sigaction(sig, act, old);
	if (sig != SIGTRAP || !step_active) {
		if (!step_real_sigaction()) {
			errno = ENOSYS;
			return -1;
		}
		return step_real_sigaction()(sig, act, old);
	}
	if (old)
		step_prog_get(old);
	if (act)
		step_prog_set(act);
	return 0;
}

XP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return step_sigaction(sig, act, old);
}

XP_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return step_sigaction(sig, act, old);
}

/*
 * SIGTRAP's action as glibc's signal() and sysv_signal() make it; any other
 * signal goes to libc's own.
 */
#define STEP_SIGNAL(name, real, flags, mask_self)                                                  \
	XP_EXPORT sighandler_t name(int sig, sighandler_t h)                                       \
	{                                                                                          \
		struct sigaction act, old;                                                         \
                                                                                                   \
		if ((sig != SIGTRAP || !step_active) &&                                            \
		    !__atomic_load_n(&xl_signals_on, __ATOMIC_ACQUIRE)) {                          \
			if (step_real_signal(real))                                                \
				return step_real_signal(real)(sig, h);                             \
			errno = ENOSYS;                                                            \
			return SIG_ERR;                                                            \
		}                                                                                  \
		memset(&act, 0, sizeof(act));                                                      \
		act.sa_handler = h;                                                                \
		sigemptyset(&act.sa_mask);                                                         \
		if (mask_self)                                                                     \
			sigaddset(&act.sa_mask, sig);                                              \
		act.sa_flags = flags;                                                              \
		if (step_sigaction(sig, &act, &old) < 0)                                           \
			return SIG_ERR;                                                            \
		return old.sa_handler;                                                             \
	}

/* BSD semantics: the signal blocked in its handler, calls restarted */
STEP_SIGNAL(signal, REAL_SIGNAL, SA_RESTART, true)
STEP_SIGNAL(bsd_signal, REAL_BSD_SIGNAL, SA_RESTART, true)
/* System V's: reset to the default once delivered, not blocked in its handler */
STEP_SIGNAL(sysv_signal, REAL_SYSV_SIGNAL, SA_RESETHAND | SA_NODEFER, false)
STEP_SIGNAL(__sysv_signal, REAL___SYSV_SIGNAL, SA_RESETHAND | SA_NODEFER, false)
