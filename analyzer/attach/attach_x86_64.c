// SPDX-License-Identifier: MIT
/*
 * attach_x86_64: a thread's state and remote calls on x86-64.
 *
 * A borrowed thread (stopped, its state saved) is made to call functions
 * in a way it finishes by itself: if the tracer dies at any moment, the
 * kernel lets the thread go from where it is, and it runs on correctly.
 * Its calls are laid out once on its own stack, well below what it uses:
 *
 *      saved rsp ->  +--------------------------------+  the thread's frames,
 *                    | red zone (128) and a gap       |  left alone
 *                    +--------------------------------+
 *                    | a call's data (a path)         |
 *                    | the gate's block: fn, args,    |  written before each
 *                    |   errno, result, masks         |  call
 *                    | the thread's FP/vector state   |  64-byte aligned
 *             R ->   | rt_sigframe: the restorer,     |  the thread as it will
 *                    |   ucontext: registers, signal  |  go on, written once
 *                    |   mask, FP state pointer       |
 *                    +--------------------------------+
 *                    | the gate's and callee's frames |
 *
 * One PTRACE_SETREGS starts a call: rip at the gate (code copied into the
 * process, attach_gate.c), rsp at R, rbx at the block, orig_rax -1 (no
 * system call restarted under it).  Before it the thread is as it was;
 * after it, with a tracer or without, it runs the gate:
 *
 *   1. every signal blocked but the faults (a blocked fault would make the
 *      kernel reset the program's handler to SIG_DFL), a clean FP state
 *      (what a signal handler starts with), the direction flag clear
 *   2. errno read, fn(args) called, its result stored, errno written back
 *   3. rt_sigprocmask back to the thread's own mask: the tracer sees this
 *      system call (the call is over) and may start the next from there
 *   4. a system call the thread was in that the kernel would restart
 *      through restart_syscall is finished here, with the thread's own
 *      mask, its result put into R (only here: any rt_sigreturn resets
 *      the kernel's restart block, and restart_syscall would say EINTR)
 *   5. ret into glibc's __restore_rt: rt_sigreturn(R) puts back at once
 *      the registers, flags, FP/vector state and signal mask
 *
 * A system call the kernel restarts by itself (-ERESTARTSYS and the like)
 * is set to restart in R: rip back to the syscall instruction, rax its
 * number.  R's uc_stack has flags sigaltstack(2) refuses, which
 * rt_sigreturn ignores: the thread's alternate stack is left alone.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
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

/* The kernel's values (asm/ucontext.h, asm/sigcontext.h), which glibc does not define. */
#define ARCH_UC_FP_XSTATE	   0x1u
#define ARCH_UC_SIGCONTEXT_SS	   0x2u
#define ARCH_UC_STRICT_RESTORE_SS  0x4u
#define ARCH_FP_XSTATE_MAGIC1	   0x46505853u
#define ARCH_FP_XSTATE_MAGIC2	   0x46505845u
#define ARCH_FXSAVE_SIZE	   512u
#define ARCH_FX_SW_OFFSET	   464u /* struct _fpx_sw_bytes, in the FXSAVE area */
#define ARCH_ERESTARTSYS	   512
#define ARCH_ERESTARTNOINTR	   513
#define ARCH_ERESTARTNOHAND	   514
#define ARCH_ERESTART_RESTARTBLOCK 516
#define ARCH_MXCSR_DEFAULT	   0x1f80u

bool xp_arch_sleeps(const struct xp_arch_state *s)
{
	return (long)s->regs.orig_rax >= 0 && (long)s->regs.rax == -ARCH_ERESTART_RESTARTBLOCK;
}

/*
 * The kernel's rt_sigframe, which rt_sigreturn reads at rsp - 8: the
 * handler's return address, then struct ucontext (glibc's ucontext_t
 * begins with it and is longer), then a siginfo the kernel wants room for.
 */
struct arch_sigframe {
	uint64_t pretcode;
	ucontext_t uc;
	siginfo_t info;
};

_Static_assert(offsetof(ucontext_t, uc_mcontext) == 40 && sizeof(mcontext_t) == 256 &&
		       offsetof(ucontext_t, uc_sigmask) == 296,
	       "ucontext_t begins as the kernel's struct ucontext");

/* The gate's block, as the gate's code reads it (offsets in the code below). */
struct arch_block {
	uint64_t fn;		 /* 0 */
	uint64_t errno_location; /* 8: __errno_location, or 0 */
	uint64_t args[6];	 /* 16 */
	uint64_t result;	 /* 64 */
	int32_t errno_saved;	 /* 72 */
	int32_t done;		 /* 76: 1 once fn returned */
	uint64_t errno_at;	 /* 80: where errno is */
	uint64_t call_mask;	 /* 88: every signal blocked but the faults */
	uint64_t own_mask;	 /* 96: the thread's */
	uint64_t restart;	 /* 104: 1: finish its system call with restart_syscall */
	uint64_t result_at;	 /* 112: R's rax, for that system call's result */
	uint32_t mxcsr;		 /* 120: MXCSR's default */
	uint32_t pad;
};

_Static_assert(offsetof(struct arch_block, mxcsr) == 120, "the gate's offsets");

/*
 * The gate, copied into the process (attach_gate.c), never run here.
 * Entered with rsp at R (R + 8 is 16-byte aligned, as after a call) and
 * rbx at the block.  Position-independent.
 */
extern const uint8_t arch_gate_start[] __attribute__((visibility("hidden")));
extern const uint8_t arch_gate_end[] __attribute__((visibility("hidden")));
__asm__(".pushsection .rodata\n"
	".globl arch_gate_start\n"
	".hidden arch_gate_start\n"
	".globl arch_gate_end\n"
	".hidden arch_gate_end\n"
	"arch_gate_start:\n\t"
	/* 1: rt_sigprocmask(SIG_SETMASK, &call_mask, NULL, 8) */
	"mov $14, %eax\n\t"
	"mov $2, %edi\n\t"
	"lea 88(%rbx), %rsi\n\t"
	"xor %edx, %edx\n\t"
	"mov $8, %r10d\n\t"
	"syscall\n\t"
	"fninit\n\t"
	"ldmxcsr 120(%rbx)\n\t"
	"cld\n\t"
	"sub $8, %rsp\n\t"
	/* 2 */
	"mov 8(%rbx), %rax\n\t"
	"test %rax, %rax\n\t"
	"jz 1f\n\t"
	"call *%rax\n\t" /* __errno_location() */
	"mov %rax, 80(%rbx)\n\t"
	"mov (%rax), %eax\n\t"
	"mov %eax, 72(%rbx)\n"
	"1:\n\t"
	"mov 16(%rbx), %rdi\n\t"
	"mov 24(%rbx), %rsi\n\t"
	"mov 32(%rbx), %rdx\n\t"
	"mov 40(%rbx), %rcx\n\t"
	"mov 48(%rbx), %r8\n\t"
	"mov 56(%rbx), %r9\n\t"
	"xor %eax, %eax\n\t" /* no vector registers for a variadic callee */
	"call *(%rbx)\n\t"
	"mov %rax, 64(%rbx)\n\t"
	"cmpq $0, 8(%rbx)\n\t"
	"jz 2f\n\t"
	"mov 80(%rbx), %rcx\n\t"
	"mov 72(%rbx), %eax\n\t"
	"mov %eax, (%rcx)\n"
	"2:\n\t"
	"movl $1, 76(%rbx)\n\t"
	/* 3: rt_sigprocmask(SIG_SETMASK, &own_mask, NULL, 8) */
	"mov $14, %eax\n\t"
	"mov $2, %edi\n\t"
	"lea 96(%rbx), %rsi\n\t"
	"xor %edx, %edx\n\t"
	"mov $8, %r10d\n\t"
	"syscall\n\t"
	/* 4: restart_syscall */
	"cmpq $0, 104(%rbx)\n\t"
	"jz 3f\n\t"
	"mov $219, %eax\n\t"
	"syscall\n\t"
	"mov 112(%rbx), %rcx\n\t"
	"mov %rax, (%rcx)\n"
	"3:\n\t"
	/* 5: into the restorer, rt_sigreturn(R) */
	"add $8, %rsp\n\t"
	"ret\n"
	"arch_gate_end:\n\t"
	".popsection\n");

_Static_assert(SYS_rt_sigprocmask == 14 && SYS_restart_syscall == 219, "the gate's numbers");

const uint8_t *xp_arch_gate(size_t *len)
{
	*len = (size_t)(arch_gate_end - arch_gate_start);
	return arch_gate_start;
}

/*
 * The state @s will go on from, into @r: a system call it was stopped in
 * restarted as the kernel does (when no handler runs).  Returns true when
 * that restart is restart_syscall's, which the gate makes itself.
 */
static bool arch_resumed(const struct xp_arch_state *s, struct user_regs_struct *r)
{
	long ret = (long)s->regs.rax;
	bool block = false;

	*r = s->regs;
	if ((long)r->orig_rax >= 0) {
		if (ret == -ARCH_ERESTARTSYS || ret == -ARCH_ERESTARTNOINTR ||
		    ret == -ARCH_ERESTARTNOHAND) {
			r->rax = r->orig_rax;
			r->rip -= 2; /* the syscall instruction */
		} else if (ret == -ARCH_ERESTART_RESTARTBLOCK) {
			/* after the syscall instruction, its result put in by the gate */
			r->rax = (uint64_t)-EINTR;
			block = true;
		}
	}
	r->orig_rax = (uint64_t)-1;
	return block;
}

/* A ucontext that rt_sigreturn turns into @r, @mask and the FP state at @fpstate. */
static void arch_ucontext(ucontext_t *uc, const struct user_regs_struct *r, uint64_t mask,
			  uint64_t fpstate)
{
	greg_t *g = uc->uc_mcontext.gregs;

	memset(uc, 0, sizeof(*uc));
	uc->uc_flags = ARCH_UC_FP_XSTATE | ARCH_UC_SIGCONTEXT_SS | ARCH_UC_STRICT_RESTORE_SS;
	/* flags sigaltstack(2) refuses: rt_sigreturn leaves the thread's own as it is */
	uc->uc_stack.ss_flags = SS_ONSTACK | SS_DISABLE;
	g[REG_R8] = (greg_t)r->r8;
	g[REG_R9] = (greg_t)r->r9;
	g[REG_R10] = (greg_t)r->r10;
	g[REG_R11] = (greg_t)r->r11;
	g[REG_R12] = (greg_t)r->r12;
	g[REG_R13] = (greg_t)r->r13;
	g[REG_R14] = (greg_t)r->r14;
	g[REG_R15] = (greg_t)r->r15;
	g[REG_RDI] = (greg_t)r->rdi;
	g[REG_RSI] = (greg_t)r->rsi;
	g[REG_RBP] = (greg_t)r->rbp;
	g[REG_RBX] = (greg_t)r->rbx;
	g[REG_RDX] = (greg_t)r->rdx;
	g[REG_RAX] = (greg_t)r->rax;
	g[REG_RCX] = (greg_t)r->rcx;
	g[REG_RSP] = (greg_t)r->rsp;
	g[REG_RIP] = (greg_t)r->rip;
	g[REG_EFL] = (greg_t)r->eflags;
	/* cs, gs, fs, ss: 16 bits each (fs and gs are not restored in 64-bit mode) */
	g[REG_CSGSFS] = (greg_t)((r->cs & 0xffff) | (r->ss & 0xffff) << 48);
	uc->uc_mcontext.fpregs = (fpregset_t)fpstate;
	memcpy(&uc->uc_sigmask, &mask, sizeof(mask));
}

/*
 * The saved FP/vector state as a signal frame holds it: the XSAVE image
 * ptrace gave, its software bytes those of a signal frame (ptrace's hold
 * XCR0 in their first word), and the second magic after it.  @buf has room
 * for xstate_len + 4 bytes.
 */
static void arch_fpstate(const struct xp_arch_state *s, uint8_t *buf)
{
	struct {
		uint32_t magic1, extended_size;
		uint64_t xfeatures;
		uint32_t xstate_size, padding[7];
	} sw;
	uint32_t magic2 = ARCH_FP_XSTATE_MAGIC2;
	uint64_t xcr0;

	if (!s->xstate_len) {
		/* no XSAVE: the legacy area alone, restored with FXRSTOR */
		memcpy(buf, s->xstate, ARCH_FXSAVE_SIZE);
		memset(buf + ARCH_FX_SW_OFFSET, 0, ARCH_FXSAVE_SIZE - ARCH_FX_SW_OFFSET);
		return;
	}
	memcpy(buf, s->xstate, s->xstate_len);
	memcpy(&xcr0, s->xstate + ARCH_FX_SW_OFFSET, sizeof(xcr0));
	memset(&sw, 0, sizeof(sw));
	sw.magic1 = ARCH_FP_XSTATE_MAGIC1;
	sw.extended_size = (uint32_t)s->xstate_len + sizeof(magic2);
	sw.xfeatures = xcr0;
	sw.xstate_size = (uint32_t)s->xstate_len;
	memcpy(buf + ARCH_FX_SW_OFFSET, &sw, sizeof(sw));
	memcpy(buf + s->xstate_len, &magic2, sizeof(magic2));
}

int xp_arch_calls_lay(pid_t pid, const struct xp_arch_state *saved, struct xp_arch_calls *c,
		      struct xp_err *e)
{
	size_t fp_room = (saved->xstate_len ? saved->xstate_len : ARCH_FXSAVE_SIZE) + 4;
	uint64_t top = saved->regs.rsp - XP_ARCH_STACK_GAP, fp, r;
	struct user_regs_struct back;
	struct arch_sigframe *f;
	uint8_t *buf;
	int err = 0;

	if (!c->gate || !c->restorer)
		return xp_err_set(e, -EINVAL, "thread %d: remote calls badly set up", (int)pid);
	c->data = (top - XP_ARCH_CALL_DATA) & ~15ull;
	c->block = (c->data - sizeof(struct arch_block)) & ~15ull;
	fp = (c->block - fp_room) & ~63ull;
	r = ((fp - sizeof(struct arch_sigframe)) & ~15ull) - 8;
	buf = calloc(1, c->block - r);
	if (!buf)
		return xp_err_set(e, -ENOMEM, "out of memory");
	/* R: the thread as it will go on, through the restorer */
	c->restart = arch_resumed(saved, &back);
	arch_fpstate(saved, buf + (fp - r));
	f = (void *)buf;
	f->pretcode = c->restorer;
	arch_ucontext(&f->uc, &back, saved->sigmask, fp);
	c->result_at = r + offsetof(struct arch_sigframe, uc) +
		       offsetof(ucontext_t, uc_mcontext.gregs[REG_RAX]);
	c->own_mask = saved->sigmask;
	if (xp_mem_write(pid, r, buf, c->block - r))
		err = xp_err_set(e, -errno, "thread %d: writing on its stack at 0x%llx: %s",
				 (int)pid, (unsigned long long)r, strerror(errno));
	free(buf);
	if (err)
		return err;
	c->back = r + 8;
	c->marker_sp = r - 8;
	/* the one change of registers that starts each call */
	c->start = saved->regs;
	c->start.rip = c->gate;
	c->start.rsp = r;
	c->start.rbx = c->block;
	c->start.orig_rax = (uint64_t)-1;    /* no system call restarted, nor ended, under it */
	c->start.eflags &= ~(uint64_t)0x100; /* TF */
	return 0;
}

int xp_arch_call_start(pid_t pid, pid_t tid, const struct xp_arch_calls *c, uint64_t fn,
		       const uint64_t *args, int nargs, struct xp_err *e)
{
	uint64_t mask = arch_call_mask();
	struct arch_block b;

	if (nargs > 6)
		return xp_err_set(e, -EINVAL, "thread %d: a remote call badly set up", (int)tid);
	memset(&b, 0, sizeof(b));
	b.fn = fn;
	b.errno_location = c->errno_location;
	for (int i = 0; i < nargs; i++)
		b.args[i] = args[i];
	b.call_mask = mask;
	b.own_mask = c->own_mask;
	b.restart = c->restart;
	b.result_at = c->result_at;
	b.mxcsr = ARCH_MXCSR_DEFAULT;
	/* what the way back reads (masks, restart) is the same in every block */
	if (xp_mem_write(pid, c->block, &b, sizeof(b)))
		return xp_err_set(e, -errno, "thread %d: writing on its stack: %s", (int)tid,
				  strerror(errno));
	xp_trace_test_point();
	if (ptrace(PTRACE_SETREGS, tid, NULL, &c->start) < 0)
		return xp_err_set(e, -errno, "thread %d: starting a call: %s", (int)tid,
				  strerror(errno));
	/* the gate blocks them itself too; this keeps them off its first instructions */
	xp_trace_test_point();
	if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask) < 0)
		return xp_err_set(e, -errno, "thread %d: starting a call: %s", (int)tid,
				  strerror(errno));
	return 0;
}

enum xp_arch_at xp_arch_calls_at(const struct xp_arch_calls *c, uint64_t nr, uint64_t sp)
{
	if (nr == SYS_rt_sigprocmask && sp == c->marker_sp)
		return XP_ARCH_AT_DONE;
	if (nr == SYS_rt_sigreturn && sp == c->back)
		return XP_ARCH_AT_BACK;
	return XP_ARCH_AT_OTHER;
}

int xp_arch_call_result(pid_t pid, const struct xp_arch_calls *c, uint64_t *ret)
{
	struct arch_block b;

	if (xp_mem_read(pid, c->block, &b, sizeof(b)))
		return -errno;
	if (!b.done)
		return -EFAULT;
	*ret = b.result;
	return 0;
}

int xp_arch_calls_abandon(pid_t tid, pid_t pid, const struct xp_arch_calls *c, struct xp_err *e)
{
	struct user_regs_struct r = c->start;
	struct arch_block b;

	/* errno as it was, if the gate had read it */
	if (c->errno_location && !xp_mem_read(pid, c->block, &b, sizeof(b)) && b.errno_at)
		xp_mem_write(pid, b.errno_at, &b.errno_saved, sizeof(b.errno_saved));
	/* straight to rt_sigreturn(R) (a system call it was in then says EINTR) */
	r.rip = c->restorer;
	r.rsp = c->back;
	xp_trace_test_point();
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) < 0)
		return xp_err_set(e, -errno, "thread %d: putting it back: %s", (int)tid,
				  strerror(errno));
	return 0;
}
