// SPDX-License-Identifier: MIT
/*
 * step: the x86-64 side of the steps counter that the evaluation path uses
 * (preload/step.c): the trap flag of the thread and of a signal's saved
 * context, system calls without errno, and what a stub says of the
 * function's own instructions before it.  What a trap retired is in
 * step_trap.c.
 */
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "../../arch.h"
#include "stub_layout.h"

#define TF 0x100ull

long arch_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

long arch_syscall4(long nr, long a, long b, long c, long d)
{
	return arch_syscall6(nr, a, b, c, d, 0, 0);
}

void arch_step_self(bool on)
{
	if (on)
		__asm__ volatile("pushfq; orq $0x100, (%%rsp); popfq" ::: "memory", "cc");
	else
		__asm__ volatile("pushfq; andq $~0x100, (%%rsp); popfq" ::: "memory", "cc");
}

void arch_ctx_step(void *uc, bool on)
{
	greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;

	g[REG_EFL] =
		on ? (greg_t)((uint64_t)g[REG_EFL] | TF) : (greg_t)((uint64_t)g[REG_EFL] & ~TF);
}

uint32_t arch_step_entry_credit(const void *stub)
{
	return ((const uint8_t *)stub)[STUB_STEP_ENTRY];
}
