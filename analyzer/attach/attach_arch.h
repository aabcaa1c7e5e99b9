/* SPDX-License-Identifier: MIT */
/*
 * attach_arch: what the tracer asks of the architecture (attach_x86_64.c):
 * a thread's whole state saved and put back exactly, a function call set
 * up in it, the call's return recognised, and the few registers the rest
 * looks at.
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
/* Put it back, all of it.  0 or -errno with @e set. */
int xp_arch_restore(pid_t tid, const struct xp_arch_state *s, struct xp_err *e);

/* The saved program counter. */
uint64_t xp_arch_pc(const struct xp_arch_state *s);
/* The saved stack pointer. */
uint64_t xp_arch_sp(const struct xp_arch_state *s);
/* The saved thread pointer (the base of its TLS). */
uint64_t xp_arch_tp(const struct xp_arch_state *s); /* the thread pointer (TLS) */
/* The system call the thread is inside (stopped in it), or -1. */
long xp_arch_syscall(const struct xp_arch_state *s);
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

/* The return address of remote calls: a fault there means "returned". */
#define XP_ARCH_CALL_TRAP 0x10ull
/* Bytes below the stack pointer a call leaves alone (the red zone, and more). */
#define XP_ARCH_STACK_GAP 512u

/*
 * Set @tid up to call @fn(@args...) (at most 6) on its own stack below
 * @stack_top (at most @saved's sp less XP_ARCH_STACK_GAP), returning to
 * XP_ARCH_CALL_TRAP, with a clean FP state, the direction flag clear, no
 * system call to restart, and every signal blocked but the faults.
 */
int xp_arch_setup_call(pid_t tid, const struct xp_arch_state *saved, uint64_t stack_top,
		       uint64_t fn, const uint64_t *args, int nargs, struct xp_err *e);
/* After @tid stopped with SIGSEGV: did the call return?  Its value in @ret. */
bool xp_arch_call_returned(pid_t tid, uint64_t *ret);

#endif
