// SPDX-License-Identifier: MIT
/*
 * context: the x86-64 registers the rest of the shim needs but never names:
 * the context a libunwind walk starts from (callers.c), and the stack
 * pointer of a glibc jmp_buf (longjmp.c).
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "../../arch.h"

/* regs as xp_thunk_exit_callers pushed them (thunk.S) */
enum { CR_RBX, CR_RBP, CR_R12, CR_R13, CR_R14, CR_R15 };

/* libunwind's local context is a ucontext_t on x86-64 */
_Static_assert(sizeof(unw_context_t) == sizeof(ucontext_t), "unw_context_t is a ucontext_t");

void arch_unwind_context(void *context, const uint64_t *regs, uint64_t ret, uint64_t slot)
{
	ucontext_t *uc = context;

	memset(uc, 0, sizeof(*uc));
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)ret;
	/* the caller's stack pointer: past the return address it pushed */
	uc->uc_mcontext.gregs[REG_RSP] = (greg_t)(slot + 8);
	uc->uc_mcontext.gregs[REG_RBX] = (greg_t)regs[CR_RBX];
	uc->uc_mcontext.gregs[REG_RBP] = (greg_t)regs[CR_RBP];
	uc->uc_mcontext.gregs[REG_R12] = (greg_t)regs[CR_R12];
	uc->uc_mcontext.gregs[REG_R13] = (greg_t)regs[CR_R13];
	uc->uc_mcontext.gregs[REG_R14] = (greg_t)regs[CR_R14];
	uc->uc_mcontext.gregs[REG_R15] = (greg_t)regs[CR_R15];
}

/*
 * glibc keeps the stack pointer in a jmp_buf mangled with the thread's
 * pointer guard (PTR_MANGLE: xor %fs:0x30, rol $0x11): unmangled here.
 */
#define JB_RSP 6 /* glibc's x86-64 __jmp_buf: rbx rbp r12 r13 r14 r15 rsp pc */

uint64_t arch_jmpbuf_sp(const void *env)
{
	uint64_t v = ((const uint64_t *)env)[JB_RSP], guard;

	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	v = (v >> 0x11) | (v << (64 - 0x11));
	return v ^ guard;
}
