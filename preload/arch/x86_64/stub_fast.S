/* SPDX-License-Identifier: MIT */
/*
 * The fast path every stub carries: a template, copied in front of each
 * stub's head (see patch.c) for the counters that are one or two
 * instructions to read (tsc; var:, global or __thread).  No call to a
 * shared thunk, no register saved that is not used, the declaration's
 * index and the addresses it needs in literals at the end of its copy.
 *
 *   F:   endbr64; jmp stub_F
 *   stub_F (template copy)                 stub_F's head (stub_layout.h)
 *   +-------------------------------+      +---------------------------+
 *   | save 5 registers              |      | push $idx                 |
 *   | checks of xp_eval_enter  -----+----->| call *xp_thunk_enter (C)  |
 *   |   (any doubt, or recursion:   |      | call orig   <- also ours  |
 *   |   restore, jmp to the head)   |      |                           |
 *   | push the activation, R1 moves |      | sub $8,%rsp; call *exit   |
 *   | to the shadow stack           |      | ret                       |
 *   | read the counter (tsc: fenced)|      | orig: endbr64             |
 *   | restore; drop R1's slot       |      |   the relocated prologue  |
 *   | (tsc: fence) call *orig  -----+----->|   jmp back into F         |
 *   | _ret: (R2) (tsc: fence)       |      +---------------------------+
 *   | make room for R1; save 6;     |
 *   | read the counter              |
 *   | checks of xp_eval_exit        |
 *   |   (any doubt: call xp_eval_exit_now, in C, with the counter read)
 *   | pop the activation, R1 back   |
 *   | record: evaluations, sum, max,|
 *   |   floor and hits, histogram   |
 *   |   (through its row), negative,|
 *   |   the parent's nested, the    |
 *   |   nesting (parent and inner)  |
 *   |   (a first floor without a row: call xp_eval_take_row, in C)
 *   | restore; ret      -> R1       |
 *   | literals: tpoff, &xp, var,    |
 *   |   idx, its accumulator's      |
 *   |   offset, nested overhead,    |
 *   |   orig, xp_eval_exit_now,     |
 *   |   xp_eval_take_row            |
 *   +-------------------------------+
 *
 * The head is the C path of thunk.S, unchanged: the fast entry falls back
 * to it for every case but the common one, and an unwinder's rehooked
 * frame returns through it.  Both paths push and pop the same shadow-stack
 * entries and write the same dump fields in the same order (eval.c says
 * why that order is safe against a signal handler on the same thread).
 * Below the shadow stack's first entry lies a sentinel whose slot is above
 * every real one (worker.c), so neither side tests for an empty stack; a
 * floor_limit kept beside the floor (eval.c keeps it too) makes a hit one
 * comparison.  A declaration's histogram is its row of the dump (row 0,
 * nobody's, until it has one): it gets one at its first evaluation in the
 * worker, which always lowers the floor from EXTPROF_FLOOR_NONE, so the
 * test for a missing row lies on the rare path of a new floor and costs
 * the common one nothing.  One call and one ret, in step, as in the head:
 * F's own.  The code uses only rip-relative references to its own literals, so that
 * a copy works wherever it lies.  No vector register is touched.
 */
#include "stub_offsets.h"

	.text

/*
 * The counter into %rax; may clobber %rdx.  With tsc the reads are ordered
 * (counter_read.h says why and what each CPU needs): the entry's read
 * comes after everything before it, and F starts only once every
 * instruction of the hook is done (FENCE right before the call); F is done
 * before any instruction of the exit starts (FENCE right at R2).  So none
 * of F runs outside the two reads, and what of the hook lies between them
 * runs alone, the same whatever F does: the calibration.  tsc-unordered
 * and var: have no fences.
 */
.macro READ_TSC_ORDERED lits
	lfence
	rdtsc
	shlq $32, %rdx
	orq %rdx, %rax
.endm

.macro FENCE
	lfence
.endm

.macro NOFENCE
.endm

.macro READ_TSC lits
	rdtsc
	shlq $32, %rdx
	orq %rdx, %rax
.endm

.macro READ_VAR lits
	movq \lits+LIT_VAR(%rip), %rax
	movq (%rax), %rax
.endm

.macro READ_TVAR lits
	movq \lits+LIT_VAR(%rip), %rax
	movq %fs:(%rax), %rax
.endm

/*
 * The margin of the floor %rax (extprof_floor_margin) into %rcx; %rdx is
 * clobbered.  Only when a floor falls, which is rare.
 *   PCT: the larger of 2 units and 1 % of the floor (tsc, ns)
 *   ABS: 2 units (var)
 */
.macro MARGIN_PCT
	push %rax
	.cfi_adjust_cfa_offset 8
	xorl %edx, %edx
	movl $100, %ecx
	divq %rcx
	movq %rax, %rcx
	pop %rax
	.cfi_adjust_cfa_offset -8
	movl $2, %edx
	cmpq %rdx, %rcx
	cmovbq %rdx, %rcx
.endm

.macro MARGIN_ABS
	movl $2, %ecx
.endm

.macro TEMPLATE name, read_start, read_end, fence, margin
	.globl \name, \name\()_ret, \name\()_end
	.hidden \name, \name\()_ret, \name\()_end
	.type \name, @function
	.p2align 4
\name:
	/*
	 * The unwinder's rows (.cfi_*): a cancellation may unwind the thread
	 * from any instruction of a copy; unwind_stub.c registers these rows,
	 * the assembler's, for every copy (the CFA: R1's slot + 8 throughout).
	 */
	.cfi_startproc
	/* ---- entry: [rsp] = R1, the caller's return address, in its slot */
	push %rax
	.cfi_adjust_cfa_offset 8
	push %rcx
	.cfi_adjust_cfa_offset 8
	push %rdx
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdi
	.cfi_adjust_cfa_offset 8
	.cfi_def_cfa_offset 48
	/* 40 bytes pushed: R1 at 40(%rsp) */
	movq .L\name\()_lits+LIT_TPOFF(%rip), %rsi
	movq %fs:XT_WORKER(%rsi), %rcx
	testq %rcx, %rcx
	jz .L\name\()_slow_enter
	/*
	 * busy or filling (one word), or shared or cancel_async (the next):
	 * a block shared with threads without TLS of their own (clone.c),
	 * whose C path finds whose call it is, or a thread in asynchronous
	 * cancellation, which the C path switches to deferred (eval.c)
	 */
	movq %fs:XT_BUSY(%rsi), %rax
	orq %fs:XT_SHARED(%rsi), %rax
	jnz .L\name\()_slow_enter
	movq .L\name\()_lits+LIT_XP(%rip), %rdx
	cmpb $0, XS_FINISHED(%rdx)
	jne .L\name\()_slow_enter
	movl .L\name\()_lits+LIT_IDX(%rip), %edi
	cmpl XW_NDECLS(%rcx), %edi
	jae .L\name\()_slow_enter
	/* rdx = the declaration's accumulator; open already: a recursive
	 * activation, which the C path tallies */
	movq .L\name\()_lits+LIT_DOFF(%rip), %rdx
	addq XW_DECLS(%rcx), %rdx
	cmpq $0, XD_OPEN(%rdx)
	jne .L\name\()_slow_enter
	movl %fs:XT_DEPTH(%rsi), %eax
	leal 1(%rax), %ecx
	cmpl %fs:XT_CAP(%rsi), %ecx
	jae .L\name\()_slow_enter
	/* rax = the new entry, stack + depth * 40 */
	leaq (%rax,%rax,4), %rax
	shlq $3, %rax
	addq %fs:XT_STACK(%rsi), %rax
	/* the entry below must lie above our slot, or a longjmp (...) went
	 * past it; below the first entry is a sentinel above every slot */
	leaq 40(%rsp), %rdi
	cmpq %rdi, XF_SLOT-XF_SIZE(%rax)
	jbe .L\name\()_slow_enter
	/* the push: filling first, depth last (eval_push_begin/end) */
	movl %ecx, %fs:XT_FILLING(%rsi)
	movq %rdi, XF_SLOT(%rax)
	movq (%rdi), %rdi
	movq %rdi, XF_RET(%rax)
	movq $0, XF_NESTED(%rax)
	/* idx, and flags 0: one word */
	movq .L\name\()_lits+LIT_IDX(%rip), %rdi
	movq %rdi, XF_IDX(%rax)
	incq XD_OPEN(%rdx)
	movl %ecx, %fs:XT_DEPTH(%rsi)
	movl $0, %fs:XT_FILLING(%rsi)
	movq %rax, %rcx
	\read_start .L\name\()_lits
	movq %rax, XF_START(%rcx)
	pop %rdi
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rdx
	.cfi_adjust_cfa_offset -8
	pop %rcx
	.cfi_adjust_cfa_offset -8
	pop %rax
	.cfi_adjust_cfa_offset -8
	.cfi_def_cfa_offset 8
	/* R1 is on the shadow stack: its slot takes R2, F's stack arguments
	 * stay where the caller put them */
	leaq 8(%rsp), %rsp
	.cfi_def_cfa_offset 0
	\fence
	call *.L\name\()_lits+LIT_ORIG(%rip)
\name\()_ret:
	/* ---- exit: F returned; make room for R1 again */
	\fence
	leaq -8(%rsp), %rsp
	.cfi_def_cfa_offset 8
	push %rax
	.cfi_adjust_cfa_offset 8
	push %rdx
	.cfi_adjust_cfa_offset 8
	.cfi_def_cfa_offset 24
	\read_end .L\name\()_lits
	push %rcx
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %r8
	.cfi_adjust_cfa_offset 8
	.cfi_def_cfa_offset 56
	/* 48 bytes pushed: the room at 48(%rsp); rax = now */
	movq .L\name\()_lits+LIT_TPOFF(%rip), %rsi
	/* filling, shared or cancel_async (the last two one word): the C path */
	movl %fs:XT_FILLING(%rsi), %ecx
	orq %fs:XT_SHARED(%rsi), %rcx
	jnz .L\name\()_slow_exit
	/* rdi = the top entry, stack + (depth - 1) * 40: with depth 0 the
	 * sentinel, whose slot is no one's */
	movl %fs:XT_DEPTH(%rsi), %ecx
	leaq (%rcx,%rcx,4), %rdi
	shlq $3, %rdi
	addq %fs:XT_STACK(%rsi), %rdi
	subq $XF_SIZE, %rdi
	leaq 48(%rsp), %rdx
	cmpq %rdx, XF_SLOT(%rdi)
	jne .L\name\()_slow_exit
	cmpl $0, XF_FLAGS(%rdi)
	jne .L\name\()_slow_exit
	/* everything read before the pop: a signal handler may reuse the entry */
	movq XF_RET(%rdi), %r8
	movq %r8, (%rdx)
	subq XF_START(%rdi), %rax
	movq XF_NESTED(%rdi), %rdx
	movl XF_IDX(%rdi), %r8d
	decl %ecx
	movl %ecx, %fs:XT_DEPTH(%rsi)
	/* delta = now - start - nested; below 0, rarely: see 7 */
	subq %rdx, %rax
	jb 7f
1:
	/* the parent pays for the hooks nested in us, not for their work */
	testl %ecx, %ecx
	jz 2f
	addq .L\name\()_lits+LIT_NEST(%rip), %rdx
	addq %rdx, XF_NESTED-XF_SIZE(%rdi)
	/* the nesting (eval_record_nesting): the parent's inner and our
	 * nested, unless the parent is not counted (its idx may lie past
	 * the table); rcx = its idx, rdx = the worker's declarations */
	testl $XF_UNCOUNTED, XF_FLAGS-XF_SIZE(%rdi)
	jnz 2f
	movl XF_IDX-XF_SIZE(%rdi), %ecx
	movq %fs:XT_WORKER(%rsi), %rdx
	movq XW_DECLS(%rdx), %rdx
	imulq $XD_SIZE, %rcx, %rdi
	incq XD_INNER(%rdx,%rdi)
	addq %rax, XD_INNER_SUM(%rdx,%rdi)
	imulq $XD_SIZE, %r8, %rdi
	addq %rdx, %rdi
	incq XD_NESTED(%rdi)
	addq %rax, XD_NESTED_SUM(%rdi)
	/* parent = idx + 1 while it is the only one seen, else SEVERAL (~0) */
	incl %ecx
	movl XD_PARENT(%rdi), %edx
	testl %edx, %edx
	cmovz %ecx, %edx
	cmpl %ecx, %edx
	je 9f
	movl $-1, %edx
9:
	movl %edx, XD_PARENT(%rdi)
2:
	/* eval_record: rsi = the worker, rdi = its declaration, r8 = idx (the
	 * entry's: a tail-called function returns through its caller's stub) */
	movq %fs:XT_WORKER(%rsi), %rsi
	imulq $XD_SIZE, %r8, %rdi
	addq XW_DECLS(%rsi), %rdi
	decq XD_OPEN(%rdi)
	incq XD_EVALUATIONS(%rdi)
	addq %rax, XD_SUM(%rdi)
	/* max, the bucket and the floor's hits without a branch: a
	 * state-dependent function's deltas go up and down at random */
	movq XD_MAX(%rdi), %rdx
	cmpq %rdx, %rax
	cmovaq %rax, %rdx
	movq %rdx, XD_MAX(%rdi)
	/* r8 = extprof_hist_bucket: with e the top bit of (delta | 64),
	 * (delta >> (e - 6)) + ((e - 6) << 6): delta itself below 128, then
	 * 64 buckets per power of two (idx is not needed any more) */
	movq %rax, %rcx
	orq $(1 << XH_SUB_BITS), %rcx
	bsrq %rcx, %rcx
	subl $XH_SUB_BITS, %ecx
	movq %rax, %r8
	shrq %cl, %r8
	shlq $XH_SUB_BITS, %rcx
	addq %rcx, %r8
	/* eval_floor: a hit is a delta from the floor to floor + margin,
	 * floor_limit (kept by whoever moves the floor) */
	cmpq XD_FLOOR(%rdi), %rax
	jb 5f
	xorl %ecx, %ecx
	cmpq XD_FLOOR_LIMIT(%rdi), %rax
	setbe %cl
	addq %rcx, XD_FLOOR_HITS(%rdi)
3:
	/* the bucket of the declaration's row: the row lies in the dump's
	 * chunk k = bsr((row >> ROWS0_LOG) + 1), at row_bias[k] + row * row
	 * size (dump_row_at) */
	movl XD_ROW(%rdi), %ecx
	movl %ecx, %edx
	shrl $XH_ROWS0_LOG, %edx
	incl %edx
	bsrl %edx, %edx
	imulq $XH_ROW_BYTES, %rcx, %rcx
	addq XW_ROW_BIAS(%rsi,%rdx,8), %rcx
	incq (%rcx,%r8,8)
8:
	pop %r8
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rcx
	.cfi_adjust_cfa_offset -8
	pop %rdx
	.cfi_adjust_cfa_offset -8
	pop %rax
	.cfi_adjust_cfa_offset -8
	.cfi_def_cfa_offset 8
	ret
	.cfi_def_cfa_offset 56
5:
	/* a new floor: its hits go on if the old one was within the new
	 * one's margin, else start again */
	\margin
	movq XD_FLOOR(%rdi), %rdx
	subq %rax, %rdx
	movq %rax, XD_FLOOR(%rdi)
	addq %rcx, %rax
	movq %rax, XD_FLOOR_LIMIT(%rdi)
	cmpq %rcx, %rdx
	ja 6f
	incq XD_FLOOR_HITS(%rdi)
	jmp 4f
6:
	movq $1, XD_FLOOR_HITS(%rdi)
4:
	/* the first floor of a declaration with no row yet: its first
	 * evaluation in this worker takes one, in C (rdi = the declaration,
	 * rsi = the worker, its arguments); C may clobber every
	 * caller-saved register */
	cmpl $0, XD_ROW(%rdi)
	jne 3b
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %r8
	.cfi_adjust_cfa_offset 8
	push %r9
	.cfi_adjust_cfa_offset 8
	push %r10
	.cfi_adjust_cfa_offset 8
	push %r11
	.cfi_adjust_cfa_offset 8
	push %rbx
	.cfi_adjust_cfa_offset 8
	.cfi_def_cfa_offset 112
	movq %rsp, %rbx
	.cfi_def_cfa_register %rbx
	andq $-16, %rsp
	call *.L\name\()_lits+LIT_ROW(%rip)
	movq %rbx, %rsp
	.cfi_def_cfa_register %rsp
	pop %rbx
	.cfi_adjust_cfa_offset -8
	pop %r11
	.cfi_adjust_cfa_offset -8
	pop %r10
	.cfi_adjust_cfa_offset -8
	pop %r9
	.cfi_adjust_cfa_offset -8
	pop %r8
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	.cfi_def_cfa_offset 56
	jmp 3b
7:
	/* a delta below zero is a measurement error: recorded as 0, and
	 * counted in the declaration's "negative" (r8 = idx, rsi = tpoff) */
	push %rdi
	.cfi_adjust_cfa_offset 8
	.cfi_def_cfa_offset 64
	movq %fs:XT_WORKER(%rsi), %rdi
	imulq $XD_SIZE, %r8, %rax
	addq XW_DECLS(%rdi), %rax
	incq XD_NEGATIVE(%rax)
	pop %rdi
	.cfi_adjust_cfa_offset -8
	.cfi_def_cfa_offset 56
	xorl %eax, %eax
	jmp 1b

.L\name\()_slow_enter:
	/* the C path, in the head right after this copy, as if F had jumped
	 * there: R1 is still in its slot */
	.cfi_def_cfa_offset 48
	pop %rdi
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rdx
	.cfi_adjust_cfa_offset -8
	pop %rcx
	.cfi_adjust_cfa_offset -8
	pop %rax
	.cfi_adjust_cfa_offset -8
	.cfi_def_cfa_offset 8
	jmp \name\()_end

.L\name\()_slow_exit:
	/* every other case, in C, with the counter as read; C may clobber
	 * every caller-saved register, so save the rest, and align the call
	 * (rbx is C's to keep) */
	.cfi_def_cfa_offset 56
	push %r9
	.cfi_adjust_cfa_offset 8
	push %r10
	.cfi_adjust_cfa_offset 8
	push %r11
	.cfi_adjust_cfa_offset 8
	leaq 72(%rsp), %rdi
	movq %rax, %rsi
	push %rbx
	.cfi_adjust_cfa_offset 8
	.cfi_def_cfa_offset 88
	movq %rsp, %rbx
	.cfi_def_cfa_register %rbx
	andq $-16, %rsp
	call *.L\name\()_lits+LIT_EXIT(%rip)
	movq %rbx, %rsp
	.cfi_def_cfa_register %rsp
	pop %rbx
	.cfi_adjust_cfa_offset -8
	pop %r11
	.cfi_adjust_cfa_offset -8
	pop %r10
	.cfi_adjust_cfa_offset -8
	pop %r9
	.cfi_adjust_cfa_offset -8
	.cfi_def_cfa_offset 56
	jmp 8b

	.p2align 3
.L\name\()_lits:
	.quad 0, 0, 0, 0, 0, 0, 0, 0, 0
	.cfi_endproc
\name\()_end:
	.size \name, .-\name
.endm

TEMPLATE xp_stub_tsc, READ_TSC_ORDERED, READ_TSC, FENCE, MARGIN_PCT
TEMPLATE xp_stub_tsc_unordered, READ_TSC, READ_TSC, NOFENCE, MARGIN_PCT
TEMPLATE xp_stub_var, READ_VAR, READ_VAR, NOFENCE, MARGIN_ABS
TEMPLATE xp_stub_tvar, READ_TVAR, READ_TVAR, NOFENCE, MARGIN_ABS

	.section .note.GNU-stack,"",@progbits
