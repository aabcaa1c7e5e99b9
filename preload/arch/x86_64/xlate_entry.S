/* SPDX-License-Identifier: MIT */
/*
 * xlate_dispatch_entry: the code cache's dispatcher, called by an arena's
 * dispatch routine (xlate_routines.c) on the thread's own dispatcher stack,
 * with every register and the flags as the program left them.  They are
 * kept, the extended state too (xp_call_preserving: the translator calls
 * Zydis and libc, whose string functions use vector registers), and
 * xlate_dispatch (preload/steps/xlate_dispatch.c) says where the thread goes on,
 * in %fs:jmp.
 *
 *   dstack top   [return into the routine]
 *                flags, rax, rcx, rdx, rsi, rdi, r8, r9, r10, r11
 *                (8 to align)  -> xp_call_preserving(xlate_dispatch, 0, 0)
 *
 * Its pushes are told to the unwinder; the routine that called it is in an
 * arena, which has no unwind rows: a walk from the dispatcher (an
 * asynchronous cancellation there) ends at it (docs/limits.md).
 */
#include "asm_gprs.h"

	.text
	.globl xlate_dispatch_entry
	.hidden xlate_dispatch_entry
	.type xlate_dispatch_entry, @function
xlate_dispatch_entry:
	.cfi_startproc
	pushfq
	.cfi_adjust_cfa_offset 8
	SAVE_GPRS
	cld
	/* 8 (return) + 80 pushed from a 16-byte aligned top: 8 more */
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	leaq xlate_dispatch(%rip), %rdi
	xorl %esi, %esi
	/* on this stack: the dispatcher's own already (the program's rdx is saved) */
	xorl %edx, %edx
	call xp_call_preserving
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	RESTORE_GPRS
	popfq
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size xlate_dispatch_entry, .-xlate_dispatch_entry

/*
 * arch_call_on_stack(fn, arg, top): call fn(arg) on the stack whose top
 * (16-byte aligned) is @top: the signal path translates on the thread's
 * dispatcher stack, a handler's own (a sigaltstack) may be small.
 */
	.globl arch_call_on_stack
	.hidden arch_call_on_stack
	.type arch_call_on_stack, @function
arch_call_on_stack:
	.cfi_startproc
	FRAME_BEGIN
	movq %rdx, %rsp
	movq %rdi, %rax
	movq %rsi, %rdi
	call *%rax
	movq %rbp, %rsp
	FRAME_END
	.cfi_endproc
	.size arch_call_on_stack, .-arch_call_on_stack

	.section .note.GNU-stack,"",@progbits
