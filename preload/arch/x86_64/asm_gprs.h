/* SPDX-License-Identifier: MIT */
/*
 * asm_gprs: the caller-saved general registers, pushed and popped in one
 * order by every assembly path that calls C with the program's registers
 * live (thunk.S's halves, xlate_entry.S's dispatcher): 72 bytes.
 */
#ifndef EXTPROF_ARCH_X86_64_ASM_GPRS_H
#define EXTPROF_ARCH_X86_64_ASM_GPRS_H

#define SAVE_GPRS \
	push %rax; push %rcx; push %rdx; push %rsi; push %rdi; \
	push %r8; push %r9; push %r10; push %r11
#define RESTORE_GPRS \
	pop %r11; pop %r10; pop %r9; pop %r8; pop %rdi; \
	pop %rsi; pop %rdx; pop %rcx; pop %rax

#endif
