// SPDX-License-Identifier: MIT
/*
 * attach_x86_64: a thread's state and remote calls on x86-64.
 *
 * A hijacked thread (stopped, its state saved) is made to call a function
 * on its own stack, well below what it uses:
 *
 *      saved rsp ->  +--------------------------+  the thread's own frames
 *                    | red zone (128) and a gap |  left alone
 *      stack_top ->  +--------------------------+
 *                    | the call's data (a path) |  written by the caller
 *                    +--------------------------+  16-byte aligned
 *   rsp at entry ->  | XP_ARCH_CALL_TRAP        |  the return address
 *                    +--------------------------+
 *                    | the callee's frames      |
 *
 * The call returns to XP_ARCH_CALL_TRAP, an address in the never-mapped
 * first page: the fault stops the thread with SIGSEGV and rip there, and
 * the tracer puts everything back as it was.  For the call: orig_rax -1
 * (a thread stopped inside a system call must not have the kernel restart
 * that call on the way out: its -ERESTART* comes back with the registers,
 * and the kernel restarts it then), the direction and trap flags clear, a
 * clean x87/SSE state, and every signal blocked but the faults (a blocked
 * fault would make the kernel reset the program's handler to SIG_DFL).
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "attach/attach.h"
#include "attach/attach_arch.h"

#ifndef NT_X86_XSTATE
#define NT_X86_XSTATE 0x202
#endif
#ifndef PTRACE_GETSIGMASK
#define PTRACE_GETSIGMASK 0x420a
#define PTRACE_SETSIGMASK 0x420b
#endif

#define X86_EFLAGS_FIXED 0x2u	/* bit 1, always set */
#define X86_EFLAGS_IF	 0x200u /* interrupts: user code always has it */

int xp_arch_save(pid_t tid, struct xp_arch_state *s, struct xp_err *e)
{
	struct iovec iov = {s->xstate, sizeof(s->xstate)};

	s->valid = false;
	if (ptrace(PTRACE_GETREGS, tid, NULL, &s->regs) < 0)
		return xp_err_set(e, -errno, "thread %d: PTRACE_GETREGS: %s", tid, strerror(errno));
	/* the whole extended state: x87, SSE, AVX, AVX-512, whatever it has */
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0) {
		/* no XSAVE: the legacy area */
		iov.iov_len = sizeof(struct user_fpregs_struct);
		if (ptrace(PTRACE_GETFPREGS, tid, NULL, s->xstate) < 0)
			return xp_err_set(e, -errno, "thread %d: PTRACE_GETFPREGS: %s", tid,
					  strerror(errno));
		s->xstate_len = 0;
	} else {
		s->xstate_len = iov.iov_len;
	}
	if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(s->sigmask), &s->sigmask) < 0)
		return xp_err_set(e, -errno, "thread %d: PTRACE_GETSIGMASK: %s", tid,
				  strerror(errno));
	s->valid = true;
	return 0;
}

int xp_arch_restore(pid_t tid, const struct xp_arch_state *s, struct xp_err *e)
{
	struct iovec iov = {(void *)s->xstate, s->xstate_len};
	uint64_t mask = s->sigmask;
	int r;

	if (s->xstate_len)
		r = (int)ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov);
	else
		r = (int)ptrace(PTRACE_SETFPREGS, tid, NULL, (void *)s->xstate);
	if (r < 0)
		return xp_err_set(e, -errno, "thread %d: restoring its FP state: %s", tid,
				  strerror(errno));
	if (ptrace(PTRACE_SETREGS, tid, NULL, (void *)&s->regs) < 0)
		return xp_err_set(e, -errno, "thread %d: restoring its registers: %s", tid,
				  strerror(errno));
	if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask) < 0)
		return xp_err_set(e, -errno, "thread %d: restoring its signal mask: %s", tid,
				  strerror(errno));
	return 0;
}

uint64_t xp_arch_pc(const struct xp_arch_state *s)
{
	return s->regs.rip;
}

uint64_t xp_arch_sp(const struct xp_arch_state *s)
{
	return s->regs.rsp;
}

uint64_t xp_arch_tp(const struct xp_arch_state *s)
{
	return s->regs.fs_base;
}

long xp_arch_syscall(const struct xp_arch_state *s)
{
	return (long)s->regs.orig_rax;
}

/* The kernel's rt_sigframe: pretcode (8 bytes), then the ucontext, whose rip is at 168. */
const uint64_t xp_arch_sigframe_pc = 8 + 168;

int xp_arch_now_of(pid_t tid, struct xp_arch_now *now)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) < 0)
		return -errno;
	now->pc = regs.rip;
	now->sp = regs.rsp;
	now->tp = regs.fs_base;
	return 0;
}

uint64_t xp_arch_pc_of(pid_t tid)
{
	struct xp_arch_now now;

	return xp_arch_now_of(tid, &now) ? 0 : now.pc;
}

/* The faults a call may take: left unblocked (see the top of the file). */
static uint64_t arch_call_mask(void)
{
	static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
	uint64_t mask = ~0ull;

	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		mask &= ~(1ull << (faults[i] - 1));
	return mask;
}

int xp_arch_setup_call(pid_t tid, const struct xp_arch_state *saved, uint64_t stack_top,
		       uint64_t fn, const uint64_t *args, int nargs, struct xp_err *e)
{
	struct user_regs_struct r = saved->regs;
	struct user_fpregs_struct fp;
	uint64_t trap = XP_ARCH_CALL_TRAP, mask = arch_call_mask();
	unsigned long long *argreg[6] = {&r.rdi, &r.rsi, &r.rdx, &r.rcx, &r.r8, &r.r9};
	uint64_t sp;

	if (nargs > 6 || stack_top > saved->regs.rsp - XP_ARCH_STACK_GAP)
		return xp_err_set(e, -EINVAL, "thread %d: a remote call badly set up", tid);
	sp = (stack_top & ~15ull) - 8;
	if (xp_mem_write(tid, sp, &trap, sizeof(trap)))
		return xp_err_set(e, -errno, "thread %d: writing on its stack at 0x%llx: %s", tid,
				  (unsigned long long)sp, strerror(errno));
	for (int i = 0; i < nargs; i++)
		*argreg[i] = args[i];
	r.rsp = sp;
	r.rip = fn;
	r.rax = 0; /* no vector registers for a variadic callee */
	r.orig_rax = (uint64_t)-1;
	r.eflags = X86_EFLAGS_FIXED | X86_EFLAGS_IF;
	/* what a process starts with: x87 control 0x37f, MXCSR 0x1f80, empty stack */
	memset(&fp, 0, sizeof(fp));
	fp.cwd = 0x37f;
	fp.mxcsr = 0x1f80;
	if (ptrace(PTRACE_SETFPREGS, tid, NULL, &fp) < 0 ||
	    ptrace(PTRACE_SETREGS, tid, NULL, &r) < 0 ||
	    ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask) < 0)
		return xp_err_set(e, -errno, "thread %d: setting up a call: %s", tid,
				  strerror(errno));
	return 0;
}

bool xp_arch_call_returned(pid_t tid, uint64_t *ret)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0 || r.rip != XP_ARCH_CALL_TRAP)
		return false;
	*ret = r.rax;
	return true;
}
