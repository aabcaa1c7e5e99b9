// SPDX-License-Identifier: MIT
/*
 * context: the x86-64 registers the rest of the shim needs but never names:
 * the frame a libunwind walk starts from (callers.c), and the stack pointer
 * of a glibc jmp_buf (longjmp.c).
 */
#include <libunwind.h>
#include <stdint.h>

#include "arch/arch.h"

/* regs as xp_thunk_exit_callers pushed them (thunk.S) */
enum { CR_RBX, CR_RBP, CR_R12, CR_R13, CR_R14, CR_R15 };

int arch_unwind_start(void *cursor, const uint64_t *regs, uint64_t ret, uint64_t slot)
{
	static const int callee_saved[] = {
		[CR_RBX] = UNW_X86_64_RBX, [CR_RBP] = UNW_X86_64_RBP, [CR_R12] = UNW_X86_64_R12,
		[CR_R13] = UNW_X86_64_R13, [CR_R14] = UNW_X86_64_R14, [CR_R15] = UNW_X86_64_R15,
	};
	unw_cursor_t *c = cursor;
	unw_context_t uc;

	if (unw_getcontext(&uc) || unw_init_local(c, &uc))
		return -1;
	/* the caller's stack pointer: past the return address it pushed */
	if (unw_set_reg(c, UNW_X86_64_RSP, slot + 8))
		return -1;
	for (int i = CR_RBX; i <= CR_R15; i++) {
		if (unw_set_reg(c, callee_saved[i], regs[i]))
			return -1;
	}
	/* last: libunwind finds the frame's unwind information by it */
	return unw_set_reg(c, UNW_REG_IP, ret) ? -1 : 0;
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
