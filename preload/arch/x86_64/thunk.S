/* SPDX-License-Identifier: MIT */
/*
 * The two halves of every hooked call, shared by all stubs.
 *
 *   caller:  call F                          [rsp] = R1 (caller's return)
 *   F:       jmp stub_F                      (the patched entry, see patch.c)
 *   stub_F:  push $idx
 *            call *xp_thunk_enter            moves R1 to the shadow stack,
 *                                            reads the counter; ret $16
 *                                            drops idx and R1
 *            call *orig_F                    the relocated prologue, then F:
 *                                            [rsp] = R2 (back into stub_F),
 *                                            stack arguments where they were
 *            sub $8, %rsp                    room for R1 again
 *            call *xp_thunk_exit             reads the counter, records,
 *                                            writes R1 into the room
 *            ret                             to R1
 *
 * With an ordered counter (counter_read.h) F is fenced on both sides: an
 * lfence before the entry thunk returns into it, and one as the exit
 * thunk's first instruction, so that F overlaps none of the hook's work
 * between the two counter reads.
 *
 * Every call has its matching ret, so the CPU's return predictor and a
 * CET shadow stack stay in step.  With the steps counter (preload/steps/step.c)
 * the C halves may ask for the trap flag to be set as the thunk leaves, so
 * that single-stepping goes on in F (enter) or in its caller (exit): set by
 * popf just before the thunk's ret, it traps after the ret, the first
 * instruction that is not the thunk's.  The C halves are built with
 * -mgeneral-regs-only, so the vector, x87 and mask registers (arguments and
 * return values alike) pass through untouched; the thunks save every
 * caller-saved general register because gcc's -fipa-ra lets a caller keep
 * values in registers it knows F does not clobber.
 */
#include "asm_gprs.h"
#include "stub_layout.h"
#include "stub_offsets.h"
#include "xlate_offsets.h"

/* the trap flag, set as the last thing before a ret (the flags are dead there) */
#define STEP_ON \
	pushfq; .cfi_adjust_cfa_offset 8; orq $0x100, (%rsp); popfq; .cfi_adjust_cfa_offset -8

	.text

/*
 * Return into the code cache (preload/steps/xlate.h) instead of the stub: the
 * return address at \off(%rsp) replaced with xl_self.resume, before the
 * registers are restored (rax is free then).
 */
.macro RESUME_CACHE off
	movq xl_self@gottpoff(%rip), %rax
	movq %fs:XL_RESUME(%rax), %rax
	movq %rax, \off(%rsp)
.endm

/* the callee-saved registers xp_thunk_exit_callers pushed, back */
#define POP_CALLEE \
	POP(%rbx); POP(%rbp); POP(%r12); POP(%r13); POP(%r14); POP(%r15)

/* lfence when the counter is ordered; the flags are F's to clobber, as a call's */
#define FENCE_F \
	cmpb $0, xp+XS_ORDERED(%rip); je 9f; lfence; 9:

/* [rsp] = back into the stub, [rsp+8] = idx, [rsp+16] = R1 */
	.globl xp_thunk_enter
	.hidden xp_thunk_enter
	.type xp_thunk_enter, @function
xp_thunk_enter:
	.cfi_startproc
	endbr64
	SAVE_GPRS
	/* 72 bytes pushed: the stack is 16-byte aligned again */
	movl 80(%rsp), %edi
	movq 88(%rsp), %rsi
	leaq 88(%rsp), %rdx
	call xp_eval_enter
	testl %eax, %eax
	jnz 1f
	RESTORE_GPRS
	FENCE_F
	ret $16
	.cfi_adjust_cfa_offset 72
1:
	cmpl $2, %eax
	jne 3f
	/* 2: pushed, and F is stepped */
	RESTORE_GPRS
	STEP_ON
	ret $16
	.cfi_adjust_cfa_offset 72
3:
	cmpl $3, %eax
	jne 2f
	/* 3: pushed, and F is counted by the code cache: return into it */
	RESUME_CACHE 72
	RESTORE_GPRS
	ret $16
	.cfi_adjust_cfa_offset 72
2:
	/*
	 * Pass through uncounted (no shadow stack could be had): put orig in
	 * idx's place and "return" into it, leaving R1 as F's return address.
	 */
	RESTORE_GPRS
	PUSH(%rax)
	movq 8(%rsp), %rax
	movq (STUB_LIT_ORIG - STUB_AFTER_ENTER)(%rax), %rax
	movq %rax, 16(%rsp)
	POP(%rax)
	/* orig is the return address now, R1 above it: as if orig had been called */
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size xp_thunk_enter, .-xp_thunk_enter

/* [rsp] = back into the stub, [rsp+8] = the room for R1 */
	.globl xp_thunk_exit
	.hidden xp_thunk_exit
	.type xp_thunk_exit, @function
xp_thunk_exit:
	.cfi_startproc
	endbr64
	FENCE_F
	SAVE_GPRS
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	leaq 88(%rsp), %rdi
	call xp_eval_exit
	leaq 8(%rsp), %rsp
	.cfi_adjust_cfa_offset -8
	cmpl $3, %eax
	je 3f
	testl %eax, %eax
	RESTORE_GPRS
	jnz 1f
	ret
1:	/* stepping goes on in the caller */
	STEP_ON
	ret
	.cfi_adjust_cfa_offset 72
3:	/* the code cache goes on in the caller: return into it, which pops R1 */
	RESUME_CACHE 72
	RESTORE_GPRS
	ret
	.cfi_endproc
	.size xp_thunk_exit, .-xp_thunk_exit

/*
 * The exit half when callers are attributed (EXTPROF_CALLERS): the same,
 * and the callee-saved registers too, which still hold the caller's values
 * after F returned: with R1 and the slot they let libunwind walk on from
 * the caller.  regs: rbx, rbp, r12, r13, r14, r15.
 */
	.globl xp_thunk_exit_callers
	.hidden xp_thunk_exit_callers
	.type xp_thunk_exit_callers, @function
xp_thunk_exit_callers:
	.cfi_startproc
	endbr64
	FENCE_F
	SAVE_GPRS
	PUSH(%r15)
	PUSH(%r14)
	PUSH(%r13)
	PUSH(%r12)
	PUSH(%rbp)
	PUSH(%rbx)
	/* 120 bytes pushed, 8 more to align the call */
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	leaq 136(%rsp), %rdi
	leaq 8(%rsp), %rsi
	call xp_eval_exit_callers
	leaq 8(%rsp), %rsp
	.cfi_adjust_cfa_offset -8
	cmpl $3, %eax
	je 3f
	testl %eax, %eax
	POP_CALLEE
	RESTORE_GPRS
	jnz 1f
	ret
1:	STEP_ON
	ret
	.cfi_adjust_cfa_offset 120
3:	/* the code cache goes on in the caller: return into it, which pops R1 */
	RESUME_CACHE 120
	POP_CALLEE
	RESTORE_GPRS
	ret
	.cfi_endproc
	.size xp_thunk_exit_callers, .-xp_thunk_exit_callers

	.section .note.GNU-stack,"",@progbits
