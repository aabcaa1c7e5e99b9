/* SPDX-License-Identifier: MIT */
/*
 * xlate_kind: what the x86-64 translator made of each native instruction
 * (struct xl_insn.kind), and the layout of each translation, which the
 * signal path reads back (xlate_ctx.c) to find the native state of a thread
 * interrupted in the middle of one.  Sizes are in bytes.
 */
#ifndef EXTPROF_ARCH_X86_64_XLATE_KIND_H
#define EXTPROF_ARCH_X86_64_XLATE_KIND_H

enum xk_kind {
	XK_COPY,     /* copied; a rip-relative operand re-aimed: one instruction */
	XK_JMP,	     /* jmp rel32 */
	XK_JCC,	     /* jcc rel32 (taken), jmp rel32 (not taken) */
	XK_JRCXZ,    /* the original (jrcxz, loop...) over 5 bytes, jmp (not taken), jmp (taken) */
	XK_CALL,     /* pushq ret(%rip), jmp rel32 */
	XK_CALL_IND, /* the target into tgt, pushq ret(%rip), jmp lookup */
	XK_JMP_IND,  /* the target into tgt, jmp lookup */
	XK_RET,	     /* popq tgt, [lea imm16(%rsp),%rsp], jmp lookup */
	XK_SYSCALL,  /* mov %rax,sysnr; syscall; then out for a new thread or child */
	XK_FALL,     /* jmp rel32 to the instruction after the block (no native instruction) */
	XK_JMP_ELIDED, /* a jmp the block goes on after, at its target: nothing */
};

/* The target into tgt: a register (aux 0), or through rax (aux: the mov's length). */
#define XK_IND_SAVE  9 /* mov %rax, save_rax */
#define XK_IND_STORE 9 /* mov %reg or %rax, tgt */
#define XK_IND_BACK  9 /* mov save_rax, %rax */
#define XK_PUSH_RET  6 /* pushq ret(%rip) */
#define XK_POP_TGT   9 /* popq tgt */
#define XK_SYS_NR    9 /* mov %rax, sysnr */
#define XK_JCC_LEN   6
#define XK_JMP_LEN   5

/* A side exit's taking back: XK_ADD_KEEP's layout, then jmp rel32. */
#define XK_SIDE_LEN (XK_KEEP_LEN + XK_JMP_LEN)

/* How the count is added (struct xl_block.add_kind). */
enum xk_add {
	XK_ADD_PLAIN, /* addq $n, count: where the flags are dead */
	XK_ADD_KEEP,  /* mov %rax,save; mov count,%rax; lea n(%rax),%rax; mov %rax,count;
		       * mov save,%rax: the flags untouched */
};
#define XK_KEEP_STEPS 5
/* the offsets of the five instructions of XK_ADD_KEEP */
#define XK_KEEP_OFF(i) ((i) == 0 ? 0 : (i) == 1 ? 9 : (i) == 2 ? 18 : (i) == 3 ? 25 : 34)
#define XK_KEEP_LEN    43

/* What a routine's instruction is about (struct xl_routines.what), for the signal path. */
enum xk_routine {
	XL_R_LOOKUP,   /* native pc: tgt */
	XL_R_RET,      /* a thunk's return, not popped yet: native pc at [rsp] */
	XL_R_DISPATCH, /* the dispatcher's first: native pc from rax (0: tgt) */
	XL_R_INSIDE,   /* in the dispatcher: nothing to translate */
	XL_R_JMP,      /* its last: about to go to %fs:jmp */
	XL_R_END,
};

#endif
