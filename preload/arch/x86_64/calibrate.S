/* SPDX-License-Identifier: MIT */
/*
 * The functions calibration (calibrate.c) hooks and times, shaped as a
 * program's own: an endbr64, a prologue the patch can move, a body.  They
 * are patched and entered exactly as a program's function is (its entry's
 * jmp, its stub, its relocated prologue, the jmp back), so that what
 * calibration measures is what every hooked call costs.
 *
 *   xp_cal_empty         endbr64; nopl 0(%rax,%rax,1); ret
 *                        the least a function can hold and still be hooked
 *   xp_cal_empty_plain   the same, never hooked
 *   xp_cal_outer         push %rbx; mov $ARCH_CAL_NESTED, %ebx
 *                        1: call xp_cal_empty; dec %ebx; jnz 1b
 *                        pop %rbx; ret
 *   xp_cal_outer_plain   the same, calling xp_cal_empty_plain
 *
 * The patch moves the 5-byte nop, and the outer functions' push and mov
 * (the loop starts right after them).  Their CFI lets libunwind walk
 * through them, as it walks through a program's functions for
 * EXTPROF_CALLERS.
 */
#include "arch/arch.h"

	.text

/* A function's opening and closing: global to the shim, an end label for its size. */
.macro CAL_BEGIN name
	.globl \name, \name\()_end
	.hidden \name, \name\()_end
	.type \name, @function
	.p2align 4
\name:
	.cfi_startproc
	endbr64
.endm

.macro CAL_END name
	.cfi_endproc
\name\()_end:
	.size \name, .-\name
.endm

.macro CAL_EMPTY name
	CAL_BEGIN \name
	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00 /* nopl 0(%rax,%rax,1), 5 bytes */
	ret
	CAL_END \name
.endm

.macro CAL_OUTER name, callee
	CAL_BEGIN \name
	push %rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	movl $ARCH_CAL_NESTED, %ebx
1:
	call \callee
	decl %ebx
	jnz 1b
	pop %rbx
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbx
	ret
	CAL_END \name
.endm

CAL_EMPTY xp_cal_empty
CAL_EMPTY xp_cal_empty_plain
CAL_OUTER xp_cal_outer, xp_cal_empty
CAL_OUTER xp_cal_outer_plain, xp_cal_empty_plain

	.section .note.GNU-stack,"",@progbits
