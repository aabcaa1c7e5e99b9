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
 *   |   (any doubt: restore, jmp)   |      | call orig   <- also ours  |
 *   | push the activation, R1 moves |      | sub $8,%rsp; call *exit   |
 *   | to the shadow stack           |      | ret                       |
 *   | read the counter              |      | orig: endbr64             |
 *   | restore; drop R1's slot       |      |   the relocated prologue  |
 *   | call *orig  -------------------+---->|   jmp back into F         |
 *   | _ret: (R2) make room for R1   |      +---------------------------+
 *   | save 6; read the counter      |
 *   | checks of xp_eval_exit        |
 *   |   (any doubt: call xp_eval_exit_now, in C, with the counter read)
 *   | pop the activation, R1 back   |
 *   | record: evaluations, sum, max,|
 *   |   histogram, floor and hits,  |
 *   |   the parent's nested         |
 *   | restore; ret      -> R1       |
 *   | literals: tpoff, &xp, var,    |
 *   |   idx, orig, xp_eval_exit_now |
 *   +-------------------------------+
 *
 * The head is the C path of thunk.S, unchanged: the fast entry falls back
 * to it for every case but the common one, and an unwinder's rehooked
 * frame returns through it.  Both paths push and pop the same shadow-stack
 * entries and write the same dump fields in the same order (eval.c says
 * why that order is safe against a signal handler on the same thread).
 * One call and one ret, in step, as in the head: F's own.  The code uses
 * only rip-relative references to its own literals, so that a copy works
 * wherever it lies.  No vector register is touched.
 */
#include "stub_offsets.h"

	.text

/* The counter into %rax; may clobber %rdx. */
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
 * Is \diff within the floor's margin of \base (extprof_floor_margin)?  1 or 0
 * in %r8, without a branch: a state-dependent function's deltas fall on
 * either side of the margin at random.  \diff, %r9 and %rax are clobbered.
 *   PCT: the larger of 2 units and 1 % of \base (tsc, ns):
 *        diff <= 2, or diff <= base / 100, that is 100 * diff <= base
 *        (and no overflow)
 *   ABS: 2 units (var)
 */
.macro WITHIN_PCT diff, base
	cmpq $2, \diff
	setbe %r8b
	imulq $100, \diff, \diff
	setno %r9b
	cmpq \base, \diff
	setbe %al
	andb %al, %r9b
	orb %r9b, %r8b
	movzbl %r8b, %r8d
.endm

.macro WITHIN_ABS diff, base
	cmpq $2, \diff
	setbe %r8b
	movzbl %r8b, %r8d
.endm

.macro TEMPLATE name, read, within
	.globl \name, \name\()_ret, \name\()_end
	.hidden \name, \name\()_ret, \name\()_end
	.type \name, @function
	.p2align 4
\name:
	/* ---- entry: [rsp] = R1, the caller's return address, in its slot */
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	/* 40 bytes pushed: R1 at 40(%rsp) */
	movq .L\name\()_lits+LIT_TPOFF(%rip), %rsi
	movq %fs:XT_WORKER(%rsi), %rcx
	testq %rcx, %rcx
	jz .L\name\()_slow_enter
	movl %fs:XT_BUSY(%rsi), %eax
	orl %fs:XT_FILLING(%rsi), %eax
	jnz .L\name\()_slow_enter
	movq .L\name\()_lits+LIT_XP(%rip), %rdx
	cmpb $0, XS_FINISHED(%rdx)
	jne .L\name\()_slow_enter
	movl .L\name\()_lits+LIT_IDX(%rip), %edi
	cmpl XW_NDECLS(%rcx), %edi
	jae .L\name\()_slow_enter
	/* rdx = the declaration's accumulator */
	imulq $XD_SIZE, %rdi, %rdx
	addq XW_DECLS(%rcx), %rdx
	movl %fs:XT_DEPTH(%rsi), %eax
	leal 1(%rax), %ecx
	cmpl %fs:XT_CAP(%rsi), %ecx
	jae .L\name\()_slow_enter
	/* rax = the new entry, stack + depth * 40 */
	leaq (%rax,%rax,4), %rax
	shlq $3, %rax
	addq %fs:XT_STACK(%rsi), %rax
	/* an activation at or below our slot was unwound past (longjmp, ...) */
	cmpl $1, %ecx
	je 1f
	leaq 40(%rsp), %rdi
	cmpq %rdi, XF_SLOT-XF_SIZE(%rax)
	jbe .L\name\()_slow_enter
1:
	/* the push: filling first, depth last (eval_push_begin/end) */
	movl %ecx, %fs:XT_FILLING(%rsi)
	leaq 40(%rsp), %rdi
	movq %rdi, XF_SLOT(%rax)
	movq 40(%rsp), %rdi
	movq %rdi, XF_RET(%rax)
	movq $0, XF_NESTED(%rax)
	/* open++, and the activation is recursive if one was open already */
	xorl %edi, %edi
	cmpq $0, XD_OPEN(%rdx)
	setne %dil
	incq XD_OPEN(%rdx)
	movl %edi, XF_FLAGS(%rax)
	movl .L\name\()_lits+LIT_IDX(%rip), %edi
	movl %edi, XF_IDX(%rax)
	movl %ecx, %fs:XT_DEPTH(%rsi)
	movl $0, %fs:XT_FILLING(%rsi)
	movq %rax, %rcx
	\read .L\name\()_lits
	movq %rax, XF_START(%rcx)
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	/* R1 is on the shadow stack: its slot takes R2, F's stack arguments
	 * stay where the caller put them */
	leaq 8(%rsp), %rsp
	call *.L\name\()_lits+LIT_ORIG(%rip)
\name\()_ret:
	/* ---- exit: F returned; make room for R1 again */
	leaq -8(%rsp), %rsp
	push %rax
	push %rdx
	\read .L\name\()_lits
	push %rcx
	push %rsi
	push %rdi
	push %r8
	push %r9
	/* 56 bytes pushed: the room at 56(%rsp); rax = now */
	movq .L\name\()_lits+LIT_TPOFF(%rip), %rsi
	movl %fs:XT_DEPTH(%rsi), %ecx
	testl %ecx, %ecx
	jz .L\name\()_slow_exit
	cmpl $0, %fs:XT_FILLING(%rsi)
	jne .L\name\()_slow_exit
	/* rdi = the top entry, stack + (depth - 1) * 40 */
	leaq (%rcx,%rcx,4), %rdi
	shlq $3, %rdi
	addq %fs:XT_STACK(%rsi), %rdi
	subq $XF_SIZE, %rdi
	leaq 56(%rsp), %rdx
	cmpq %rdx, XF_SLOT(%rdi)
	jne .L\name\()_slow_exit
	cmpl $0, XF_FLAGS(%rdi)
	jne .L\name\()_slow_exit
	/* everything read before the pop: a signal handler may reuse the entry */
	movq XF_RET(%rdi), %r8
	movq %r8, 56(%rsp)
	subq XF_START(%rdi), %rax
	movq XF_NESTED(%rdi), %rdx
	movl XF_IDX(%rdi), %r8d
	decl %ecx
	movl %ecx, %fs:XT_DEPTH(%rsi)
	/* delta = now - start - nested, or 0 */
	subq %rdx, %rax
	jae 1f
	xorl %eax, %eax
1:
	/* the parent pays for the hooks nested in us, not for their work */
	testl %ecx, %ecx
	jz 2f
	movq .L\name\()_lits+LIT_XP(%rip), %rcx
	addq XS_NESTED_OVERHEAD(%rcx), %rdx
	addq %rdx, XF_NESTED-XF_SIZE(%rdi)
2:
	/* eval_record: rsi = the worker, rdi = its declaration, r8 = idx */
	movq %fs:XT_WORKER(%rsi), %rsi
	imulq $XD_SIZE, %r8, %rdi
	addq XW_DECLS(%rsi), %rdi
	decq XD_OPEN(%rdi)
	incq XD_EVALUATIONS(%rdi)
	addq %rax, XD_SUM(%rdi)
	/* max, the bucket and the floor's hits without a branch either */
	movq XD_MAX(%rdi), %rdx
	cmpq %rdx, %rax
	cmovaq %rax, %rdx
	movq %rdx, XD_MAX(%rdi)
	/* extprof_hist_bucket: with e the top bit of (delta | 64),
	 * (delta >> (e - 6)) + ((e - 6) << 6): delta itself below 128, then
	 * 64 buckets per power of two */
	movq %rax, %rcx
	orq $(1 << XH_SUB_BITS), %rcx
	bsrq %rcx, %rcx
	subl $XH_SUB_BITS, %ecx
	movq %rax, %rdx
	shrq %cl, %rdx
	shlq $XH_SUB_BITS, %rcx
	addq %rcx, %rdx
	imulq $XH_BUCKETS, %r8, %rcx
	addq %rdx, %rcx
	movq XW_HIST(%rsi), %rdx
	incq (%rdx,%rcx,8)
	/* eval_floor: rcx = delta - floor */
	movq XD_FLOOR(%rdi), %rdx
	movq %rax, %rcx
	subq %rdx, %rcx
	jb 5f
	\within %rcx, %rdx
	addq %r8, XD_FLOOR_HITS(%rdi)
	jmp 8f
5:
	/* a new floor (rare): its hits go on if the old one was within its
	 * margin, or start again at 1 */
	negq %rcx
	movq %rax, XD_FLOOR(%rdi)
	movq %rax, %rdx
	\within %rcx, %rdx
	movq XD_FLOOR_HITS(%rdi), %rdx
	incq %rdx
	movl $1, %ecx
	testl %r8d, %r8d
	cmovzq %rcx, %rdx
	movq %rdx, XD_FLOOR_HITS(%rdi)
8:
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rcx
	pop %rdx
	pop %rax
	ret

.L\name\()_slow_enter:
	/* the C path, in the head right after this copy, as if F had jumped
	 * there: R1 is still in its slot */
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	jmp \name\()_end

.L\name\()_slow_exit:
	/* every other case, in C, with the counter as read; C may clobber
	 * every caller-saved register, so save the rest, and align the call
	 * (rbx is C's to keep) */
	push %r10
	push %r11
	leaq 72(%rsp), %rdi
	movq %rax, %rsi
	push %rbx
	movq %rsp, %rbx
	andq $-16, %rsp
	call *.L\name\()_lits+LIT_EXIT(%rip)
	movq %rbx, %rsp
	pop %rbx
	pop %r11
	pop %r10
	jmp 8b

	.p2align 3
.L\name\()_lits:
	.quad 0, 0, 0, 0, 0, 0
\name\()_end:
	.size \name, .-\name
.endm

TEMPLATE xp_stub_tsc, READ_TSC, WITHIN_PCT
TEMPLATE xp_stub_var, READ_VAR, WITHIN_ABS
TEMPLATE xp_stub_tvar, READ_TVAR, WITHIN_ABS

	.section .note.GNU-stack,"",@progbits
