// SPDX-License-Identifier: MIT
/*
 * step: the x86-64 side of the steps counter that the evaluation path uses
 * (preload/steps/step.c): the trap flag of the thread and of a signal's saved
 * context, and what a stub says of the function's own instructions before
 * it (system calls without errno: syscall.c).  What a trap retired is in
 * step_trap.c.  A stepped evaluation, as preload/steps/step.c draws it, here:
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
 */
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "arch/arch.h"
#include "stub_layout.h"

#define TF 0x100ull

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

uint64_t arch_ctx_pc(const void *uc)
{
	return (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
}

uint64_t arch_ctx_sp(const void *uc)
{
	return (uint64_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
}

uint32_t arch_step_entry_credit(const void *stub)
{
	return ((const uint8_t *)stub)[STUB_STEP_ENTRY];
}
