/* SPDX-License-Identifier: MIT */
/*
 * call: xp_call_preserving, the way from the evaluation path (and the code
 * cache's dispatcher, xlate_entry.S) into a slow path in C, on a stack of
 * the shim's own with the extended state kept; a file of its own, so that
 * calling it ties the caller to no thunk.
 */
#include "asm_gprs.h"

	.text

/*
 * xp_call_preserving(fn, arg, stack): call a slow path (a thread's first
 * evaluation opens files and maps memory through libc, whose string
 * functions use vector registers) with the whole extended state saved, so
 * that F's vector arguments survive; on @stack (its top, 16-byte aligned),
 * the shim's own for the thread (worker.c), when not 0: the program's may
 * be a 16 KiB thread stack or a 4 KiB sigaltstack, and the save area alone
 * is 2.7 KiB with AVX-512.  The save area size comes from CPUID leaf 0xd
 * at start-up (xp_xsave_size); 0 means fxsave will do.
 */
	.globl xp_call_preserving
	.hidden xp_call_preserving
	.type xp_call_preserving, @function
xp_call_preserving:
	.cfi_startproc
	FRAME_BEGIN
	push %rbx
	push %r12
	movq %rdi, %r12
	/* the shim's stack from here on; rbp keeps the way back */
	testq %rdx, %rdx
	cmovnzq %rdx, %rsp
	movq xp_xsave_size(%rip), %rbx
	testq %rbx, %rbx
	jz 1f
	subq %rbx, %rsp
	andq $-64, %rsp
	/* xsave needs its header zeroed */
	movq $0, 512(%rsp)
	movq $0, 520(%rsp)
	movq $0, 528(%rsp)
	movq $0, 536(%rsp)
	movq $0, 544(%rsp)
	movq $0, 552(%rsp)
	movq $0, 560(%rsp)
	movq $0, 568(%rsp)
	movq %rsi, %rdi
	movl $-1, %eax
	movl $-1, %edx
	xsave64 (%rsp)
	call *%r12
	movl $-1, %eax
	movl $-1, %edx
	xrstor64 (%rsp)
	jmp 2f
1:
	subq $512, %rsp
	andq $-16, %rsp
	movq %rsi, %rdi
	fxsave64 (%rsp)
	call *%r12
	fxrstor64 (%rsp)
2:
	leaq -16(%rbp), %rsp
	pop %r12
	pop %rbx
	FRAME_END
	.cfi_endproc
	.size xp_call_preserving, .-xp_call_preserving

	.section .note.GNU-stack,"",@progbits
