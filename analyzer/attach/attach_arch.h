/* SPDX-License-Identifier: MIT */
/*
 * attach_arch: what the tracer asks of the architecture (attach_x86_64.c):
 * a thread's whole state saved, a function call laid out in it that the
 * thread finishes and comes back from by itself, the call's return
 * recognised, and the few registers the rest looks at.
 */
#ifndef XP_ATTACH_ARCH_H
#define XP_ATTACH_ARCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "util/err.h"

/* A thread's state: registers, the extended (FP/vector) state, its signal mask. */
struct xp_arch_state {
	struct user_regs_struct regs;
	uint8_t xstate[16384];
	size_t xstate_len;
	uint64_t sigmask;
	bool valid;
};

/* Save @tid's state (it is in a ptrace-stop).  0 or -errno with @e set. */
int xp_arch_save(pid_t tid, struct xp_arch_state *s, struct xp_err *e);

/* The saved program counter. */
uint64_t xp_arch_pc(const struct xp_arch_state *s);
/* The saved stack pointer. */
uint64_t xp_arch_sp(const struct xp_arch_state *s);
/* The saved thread pointer (the base of its TLS). */
uint64_t xp_arch_tp(const struct xp_arch_state *s); /* the thread pointer (TLS) */
/* The system call the thread is inside (stopped in it), or -1. */
long xp_arch_syscall(const struct xp_arch_state *s);
/*
 * Whether that system call goes on through restart_syscall (a sleep with
 * a timeout: nanosleep, poll, futex): a thread borrowed then finishes it
 * on its way back, which takes as long as the sleep has left.
 */
bool xp_arch_sleeps(const struct xp_arch_state *s);
/* The registers of a stopped thread the rest of the tracer looks at. */
struct xp_arch_now {
	uint64_t pc, sp, tp;
};

/* Read @tid's pc, sp and thread pointer now (it is stopped): 0 or -errno. */
int xp_arch_now_of(pid_t tid, struct xp_arch_now *now);
/* The pc of @tid now (it is stopped): 0 on error. */
uint64_t xp_arch_pc_of(pid_t tid);

/*
 * Where a signal frame keeps the interrupted pc: its offset from the word
 * that holds the frame's return address (the restorer), on the stack.
 */
extern const uint64_t xp_arch_sigframe_pc;

/* Bytes below the stack pointer a call leaves alone (the red zone, and more). */
#define XP_ARCH_STACK_GAP 512u

/*
 * The gate: position-independent code the tracer copies into the process
 * (attach_gate.c), through which every remote call goes.  Its bytes.
 */
const uint8_t *xp_arch_gate(size_t *len);

/* The bytes a call's data (a path) may take on the thread's stack. */
#define XP_ARCH_CALL_DATA 4096u

/*
 * A borrowed thread's remote calls, each of which it finishes by itself,
 * tracer or not: laid out once on its stack by xp_arch_calls_lay; each
 * started by one change of its registers (xp_arch_call_start), through
 * the gate, errno kept, ending at a system call the tracer sees
 * (XP_ARCH_AT_DONE), from which the next may start; the thread then goes
 * back to the state it was saved in through glibc's restorer, whose
 * rt_sigreturn is seen too (XP_ARCH_AT_BACK).
 */
struct xp_arch_calls {
	uint64_t errno_location; /* libc's __errno_location: errno kept (0: not) */
	uint64_t gate;		 /* the gate's address in the process */
	uint64_t restorer;	 /* glibc's __restore_rt in the process */
	/* set by xp_arch_calls_lay */
	uint64_t data;	    /* XP_ARCH_CALL_DATA bytes for a call's data */
	uint64_t block;	    /* the gate's block: the result */
	uint64_t back;	    /* the stack pointer of the rt_sigreturn that ends it */
	uint64_t marker_sp; /* the stack pointer at the system call that ends a call */
	uint64_t result_at; /* where the thread's own system call's result goes */
	uint64_t own_mask;
	bool restart; /* on the way back, the gate finishes a system call of the thread's */
	struct user_regs_struct start; /* the registers that start a call */
};

/* Where a call is, at the entry of system call @nr with stack pointer @sp. */
enum xp_arch_at {
	XP_ARCH_AT_OTHER, /* inside it */
	XP_ARCH_AT_DONE,  /* the function returned: the way back begins */
	XP_ARCH_AT_BACK,  /* the rt_sigreturn that gives the thread back */
};

/*
 * Lay the calls @c out on @pid's stack, below @saved's sp less
 * XP_ARCH_STACK_GAP, nothing of the thread changed: 0, or -errno with @e.
 */
int xp_arch_calls_lay(pid_t pid, const struct xp_arch_state *saved, struct xp_arch_calls *c,
		      struct xp_err *e);
/*
 * Start @fn(@args) in @tid (stopped, as it was saved or at a call's end):
 * the block written, then one PTRACE_SETREGS.  0, or -errno with @e set.
 */
int xp_arch_call_start(pid_t pid, pid_t tid, const struct xp_arch_calls *c, uint64_t fn,
		       const uint64_t *args, int nargs, struct xp_err *e);
/* Where the call is, at the entry of system call @nr with stack pointer @sp. */
enum xp_arch_at xp_arch_calls_at(const struct xp_arch_calls *c, uint64_t nr, uint64_t sp);
/* Its result, once done: 0, -EFAULT when the function never returned, or -errno. */
int xp_arch_call_result(pid_t pid, const struct xp_arch_calls *c, uint64_t *ret);
/*
 * A call that crashed (@tid stopped at the fault): sent straight to its
 * way back, errno put back as it was.  0, or -errno with @e set.
 */
int xp_arch_calls_abandon(pid_t tid, pid_t pid, const struct xp_arch_calls *c, struct xp_err *e);

#endif
