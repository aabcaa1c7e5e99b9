// SPDX-License-Identifier: MIT
/*
 * step: the steps counter.  Every evaluation is counted as with any
 * counter; some are single-stepped: the trap flag makes the CPU raise a
 * SIGTRAP after every instruction the thread retires, and the handler
 * counts the program's own (arch/x86_64/step.c says which those are).  The
 * counter's value is the thread's count, so a stepped evaluation's delta is
 * exactly the instructions of the function and of everything it calls:
 *
 *   caller: call F
 *   F:      endbr64                          not stepped: counted at entry
 *           jmp stub_F                       -
 *   stub:   push $idx; call *enter           -
 *   thunk:  xp_eval_enter -> step_enter      sampled? start = count; returns 2
 *           popf (TF on); ret $16            trap after the ret, in the stub
 *   stub:   call orig; relocated prologue    each moved instruction: 1
 *   F:      ... F's body, its callees ...    1 each (a hooked callee's stub: 0;
 *                                            the handler suspends stepping at
 *                                            each thunk and the thunk resumes)
 *           ret                              1
 *   stub:   sub $8,%rsp; call *exit          -, then suspended at the thunk
 *   thunk:  xp_eval_exit -> step_exit        delta = count - start
 *
 * Which evaluations are stepped depends on their index only, per
 * declaration and worker (EXTPROF_STEP_FIRST, EXTPROF_STEP_EVERY), never
 * on time, so that a deterministic program gives the same figures on every
 * run.  An evaluation that a hooked callee's stepping nests in is stepped
 * too.  The trap flag is the thread's own: a signal handler runs without it
 * (the kernel clears it at delivery and sigreturn restores it), so its
 * hooked calls are not stepped and nothing of it is counted.
 *
 * Everything here that the evaluation path calls keeps to the general
 * registers (built with -mgeneral-regs-only) and makes no libc call.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"
#include "dump.h"
#include "log.h"
#include "shim.h"
#include "step.h"

/* Defaults: see docs/measurement.md, "steps: what it costs". */
#define STEP_FIRST_DEFAULT 1
#define STEP_EVERY_DEFAULT 1048576
#define STEP_LIMIT_DEFAULT 1000000

uint64_t step_text_lo, step_text_hi;
static uint32_t step_first = STEP_FIRST_DEFAULT, step_every = STEP_EVERY_DEFAULT;
static uint64_t step_limit = STEP_LIMIT_DEFAULT;

#define STEP_TRAP_BIT (1ull << (SIGTRAP - 1))

/* EXTPROF_STEP_*: a number from @min to @max, else the default, said once. */
static uint64_t step_read_env(const char *name, uint64_t dflt, uint64_t min, uint64_t max)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return dflt;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || v[0] == '-' || n < min || n > max) {
		log_msg("%s=%s: not a number from %llu to %llu; %llu", name, v,
			(unsigned long long)min, (unsigned long long)max, (unsigned long long)dflt);
		return dflt;
	}
	return n;
}

/* The tracer attached to this process (TracerPid in /proc/self/status), 0: none. */
static long step_tracer(void)
{
	char buf[4096], *p;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nTracerPid:");
	return p ? strtol(p + 11, NULL, 10) : 0;
}

static int step_text_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t here = (uint64_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && here >= lo && here < hi) {
			step_text_lo = lo;
			step_text_hi = hi;
			return 1;
		}
	}
	return 0;
}

int step_setup(struct dump_meta *meta)
{
	long tracer = step_tracer();
	int err;

	if (tracer) {
		log_msg("steps: a tracer (pid %ld) is attached, and single-stepping would trap "
			"into it",
			tracer);
		return -EBUSY;
	}
	if (!dl_iterate_phdr(step_text_visit, (void *)(uint64_t)step_setup)) {
		log_msg("steps: cannot find the shim's own code");
		return -ENOENT;
	}
	err = step_signal_install();
	if (err) {
		log_msg("steps: cannot install a SIGTRAP handler: %s", strerror(-err));
		return err;
	}
	step_first =
		(uint32_t)step_read_env("EXTPROF_STEP_FIRST", STEP_FIRST_DEFAULT, 0, UINT32_MAX);
	step_every =
		(uint32_t)step_read_env("EXTPROF_STEP_EVERY", STEP_EVERY_DEFAULT, 0, UINT32_MAX);
	step_limit = step_read_env("EXTPROF_STEP_LIMIT", STEP_LIMIT_DEFAULT, 1, UINT64_MAX / 4);
	meta->step_first = step_first;
	meta->step_every = step_every;
	meta->step_limit = step_limit;
	return 0;
}

/* Is evaluation number i (from 0) of @f's declaration on this worker to be stepped? */
static bool step_due(const struct xp_thread *t, const struct xp_frame *f)
{
	uint64_t i = t->worker->map.decls[f->idx].evaluations;

	if (i < step_first)
		return true;
	return step_every && (i - step_first + 1) % step_every == 0;
}

/* Is the outermost stepped activation still on the shadow stack? */
static bool step_alive(const struct xp_thread *t)
{
	const struct xp_step *s = &t->step;
	const struct xp_frame *f;

	if (!s->depth || s->depth > t->depth || !t->stack)
		return false;
	f = &t->stack[s->depth - 1];
	return f->slot == s->slot && (f->flags & XP_FRAME_STEPPED);
}

/*
 * Stepping is over: the trap flag off in @uc when a trap's handler ends it
 * (the caller clears it otherwise), and SIGTRAP blocked if the program
 * asked for it meanwhile.
 */
static void step_end(struct xp_thread *t, void *uc)
{
	struct xp_step *s = &t->step;
	uint64_t trap = STEP_TRAP_BIT;

	s->depth = 0;
	s->prev = 0;
	if (uc)
		arch_ctx_step(uc, false);
	if (!s->trap_wanted)
		return;
	s->trap_wanted = 0;
	if (uc)
		sigaddset(&((ucontext_t *)uc)->uc_sigmask, SIGTRAP);
	else
		arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&trap, 0, sizeof(trap));
}

/* The kernel's struct sigaction (x86-64 and most others). */
struct step_kact {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

/*
 * Whether this thread may be stepped: our handler is SIGTRAP's (a raw
 * rt_sigaction may have replaced it) and SIGTRAP is not blocked (a step
 * trap would then kill the process): it is unblocked for the while, and
 * blocked again when stepping ends.
 */
static bool step_can_start(struct xp_step *s)
{
	uint64_t trap = STEP_TRAP_BIT, cur = 0;
	struct step_kact k;

	if (arch_syscall4(SYS_rt_sigaction, SIGTRAP, 0, (long)&k, sizeof(k.mask)) < 0 ||
	    k.handler != step_sigtrap_handler)
		return false;
	if (arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&cur, sizeof(cur)) < 0)
		return false;
	if (cur & trap) {
		if (arch_syscall4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&trap, 0, sizeof(trap)) <
		    0)
			return false;
		s->trap_wanted = 1;
	}
	return true;
}

int step_enter(struct xp_thread *t, struct xp_frame *f, uint64_t slot)
{
	struct xp_step *s = &t->step;
	const void *stub = xp.decls[f->idx].stub;
	bool cont = s->susp_slot && s->susp_slot == slot;
	bool eval = !(f->flags & (XP_FRAME_RECURSIVE | XP_FRAME_UNCOUNTED | XP_FRAME_OUTSIDE));
	uint32_t credit;

	f->start = s->count;
	if (cont)
		s->susp_slot = 0;
	if (s->depth) {
		if (step_alive(t)) {
			/* a signal handler's call on a stepped thread: not stepped */
			if (!cont)
				return 0;
			/* inside a stepped activation: its endbr64 was stepped already */
			if (eval) {
				f->flags |= XP_FRAME_STEPPED;
				f->start = s->count - arch_step_entry_credit(stub);
			}
			s->prev = 0;
			return 2;
		}
		step_end(t, NULL);
	}
	if (!eval || !step_due(t, f) || !step_can_start(s))
		return 0;
	credit = arch_step_entry_credit(stub);
	f->start = s->count;
	s->count += credit;
	f->flags |= XP_FRAME_STEPPED;
	s->depth = t->depth;
	s->slot = slot;
	s->limit = s->count + step_limit;
	s->prev = 0;
	return 2;
}

int step_exit(struct xp_thread *t, const struct xp_frame *f)
{
	struct xp_step *s = &t->step;

	if (!s->depth)
		return 0;
	if (!step_alive(t)) {
		step_end(t, NULL);
		return 0;
	}
	/* not reached by stepping: a signal handler's call on a stepped thread */
	if (!(f->flags & XP_FRAME_STEP_EXIT))
		return 0;
	s->prev = 0;
	return 1;
}

void step_stop_self(void)
{
	struct xp_thread *t = &xp_self;

	if (xp.counter.kind != EXTPROF_COUNTER_STEPS || !t->step.depth)
		return;
	step_end(t, NULL);
	arch_step_self(false);
}

void step_reset_after_fork(void)
{
	struct xp_thread *t = &xp_self;

	if (xp.counter.kind != EXTPROF_COUNTER_STEPS)
		return;
	if (t->step.depth)
		step_end(t, NULL);
	memset(&t->step, 0, sizeof(t->step));
	arch_step_self(false);
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

void step_trap(struct xp_thread *t, void *uc)
{
	struct xp_step *s = &t->step;
	uint64_t slot;
	bool exit;

	s->count += arch_step_retired(t, uc);
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
