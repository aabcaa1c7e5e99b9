/* SPDX-License-Identifier: MIT */
/*
 * asm_gprs: the caller-saved general registers, pushed and popped in one
 * order by every assembly path that calls C with the program's registers
 * live (thunk.S's halves, xlate_entry.S's dispatcher): 72 bytes; and the
 * frame of the two that call C on another stack.
 *
 * Every push and pop is told to the unwinder (.cfi_adjust_cfa_offset): a
 * cancellation may unwind the thread from any instruction there (an
 * asynchronous one, or one that acts as the C halves end, cancel.c), and
 * the walk must find the frame below (a stub, whose own rows the shim
 * registers, unwind_stub.c).
 */
#ifndef EXTPROF_ARCH_X86_64_ASM_GPRS_H
#define EXTPROF_ARCH_X86_64_ASM_GPRS_H

/* assembler, not C: kept as written */
/* clang-format off */
#define PUSH(reg) push reg; .cfi_adjust_cfa_offset 8
#define POP(reg) pop reg; .cfi_adjust_cfa_offset -8
#define SAVE_GPRS \
	PUSH(%rax); PUSH(%rcx); PUSH(%rdx); PUSH(%rsi); PUSH(%rdi); \
	PUSH(%r8); PUSH(%r9); PUSH(%r10); PUSH(%r11)
#define RESTORE_GPRS \
	POP(%r11); POP(%r10); POP(%r9); POP(%r8); POP(%rdi); \
	POP(%rsi); POP(%rdx); POP(%rcx); POP(%rax)
/*
 * A frame on rbp for a function that moves rsp to another stack (call.S's
 * xp_call_preserving, xlate_entry.S's arch_call_on_stack): the unwinder
 * finds the caller through rbp wherever rsp goes; FRAME_END returns.
 */
#define FRAME_BEGIN \
	endbr64; push %rbp; .cfi_def_cfa_offset 16; .cfi_offset %rbp, -16; \
	movq %rsp, %rbp; .cfi_def_cfa_register %rbp
#define FRAME_END \
	pop %rbp; .cfi_def_cfa %rsp, 8; ret
/* clang-format on */

#endif
