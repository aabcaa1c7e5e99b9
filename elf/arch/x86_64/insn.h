/* SPDX-License-Identifier: MIT */
/*
 * insn: decide whether a function's entry can be patched, and how its first
 * instructions move.  Pure: it reads bytes and writes a plan, so the shim
 * (on a loaded function) and `extprof symbols` (on a file) give the same
 * answer.
 */
#ifndef EXTPROF_ARCH_X86_64_INSN_H
#define EXTPROF_ARCH_X86_64_INSN_H

#include <stddef.h>
#include <stdint.h>

#define INSN_PATCH_SIZE 5 /* jmp rel32 */
#define INSN_SHORT_SIZE 2 /* jmp rel8, to a jmp rel32 in the padding before the function */
#define INSN_MAX_MOVED	8

enum insn_move {
	INSN_COPY,   /* position independent: copied as is */
	INSN_RIPREL, /* [rip + disp32]: copied, disp32 re-aimed */
	INSN_JMP,    /* jmp rel: becomes jmp *[rip] to the same target */
	INSN_JCC,    /* jcc rel: becomes an inverted jcc over a jmp *[rip] */
	INSN_CALL,   /* call rel32: becomes call *[rip] to the same target */
};

struct insn_moved {
	uint32_t offset; /* from the function's entry */
	uint8_t length;
	uint8_t move;	  /* enum insn_move */
	uint8_t cond;	  /* jcc: the condition nibble */
	uint8_t disp_off; /* riprel: where disp32 sits in the instruction */
	uint64_t target;  /* absolute target (riprel: the operand's address) */
};

struct insn_plan {
	uint32_t start;	   /* where the patch goes: 4 after endbr64, else 0 */
	uint32_t length;   /* bytes overwritten: whole instructions, >= 5 (>= 2 when short) */
	uint32_t pad_back; /* short: the jmp rel32 starts this far before start; 0: none */
	uint32_t nmoved;
	struct insn_moved moved[INSN_MAX_MOVED];
};

/*
 * Plan the patch of the function at runtime address @addr whose @size
 * bytes are @code.  Returns 0, or -1 with the reason in @why ("is 4 bytes",
 * "a jump at +0x1c lands inside the patched bytes", ...).
 */
int insn_plan_patch(const uint8_t *code, uint64_t size, uint64_t addr, struct insn_plan *plan,
		    char *why, size_t whylen);

/*
 * Call @fn for every direct branch (jmp, jcc, call) of the @size bytes at
 * @code (runtime address @addr) whose target lies outside them: a branch
 * into another function, which that function's own scan cannot see.
 */
void insn_each_branch(const uint8_t *code, uint64_t size, uint64_t addr,
		      void (*fn)(uint64_t from, uint64_t target, void *arg), void *arg);

/*
 * A short patch, for a function whose first 5 bytes another function jumps
 * into (glibc's __mempcpy_* jump into __memcpy_*'s after its first mov):
 *
 *   P:    cmp %rdx,%rcx            cmp %rdx,%rcx
 *         jb __chk_fail            jb __chk_fail      (P falls through)
 *   pad:  nopw (11 bytes)          nopw (11 bytes)
 *         nopw (6 bytes)    ==>    jmp stub_F         (at an instruction's start)
 *   F:    mov %rdi,%rax            jmp pad+11         (2 bytes), int3
 *   F+3:  cmp ...                  cmp ...            <- the other function's jump
 *
 * The jmp rel32 goes at the last instruction boundary of the padding,
 * decoded from its start as a fall-through out of P runs it, that leaves
 * it 5 bytes and that the jmp rel8 reaches: whatever enters the padding
 * at its start runs whole nops, then the whole jmp, and so becomes a
 * counted call of F, whose code it was about to run.  @pad, @pad_len: the
 * padding (insn_plan_hook finds it: no symbol names it, no jump lands in
 * it); it must be nop and int3 only.  Returns 0 with @plan->pad_back set,
 * or -1 with the reason.
 */
int insn_plan_patch_short(const uint8_t *code, uint64_t size, uint64_t addr, const uint8_t *pad,
			  uint64_t pad_len, struct insn_plan *plan, char *why, size_t whylen);

struct functab;
typedef const uint8_t *(*functab_code_fn)(uint64_t start, uint64_t size, void *arg);

/*
 * The shim's whole verdict on the function at @addr (@size bytes at
 * @code), in an object loaded at @base whose functions are @table (its
 * branches scanned: functab_scan_jumps): the 5-byte patch; when another
 * function jumps into its bytes, a short one through the padding before it
 * (whose bytes @bytes gives, object-relative); else the reason.  @table NULL:
 * the function alone.  0, or -1 with the reason in @why.
 */
int insn_plan_hook(const uint8_t *code, uint64_t size, uint64_t addr, uint64_t base,
		   const struct functab *table, functab_code_fn bytes, void *arg,
		   struct insn_plan *plan, char *why, size_t whylen);

/* Bytes the relocated copy of @plan's instructions takes at most. */
size_t insn_relocated_size(const struct insn_plan *plan);

/*
 * Write the relocated instructions of @plan (of the function at @fn_addr,
 * whose bytes are @code) for code that will run at @dest_addr into @out,
 * followed by the jump back into the function.  @starts (NULL, or room for
 * plan->nmoved + 1) gets where in @out the code of each moved instruction
 * begins: that first instruction runs exactly when the original would
 * have, so it stands for it when instructions are counted (steps); and
 * last where the jump back begins (none after a moved call).
 * Returns the bytes written, or -1 if an operand cannot reach its target
 * from there.
 */
long insn_relocate(const struct insn_plan *plan, const uint8_t *code, uint64_t fn_addr,
		   uint64_t dest_addr, uint8_t *out, uint16_t *starts);

/* What insn_sp_delta() says of an instruction whose change of the stack pointer is not known. */
#define INSN_SP_UNKNOWN INT32_MIN

/*
 * How the instruction at @code (@len bytes at most) moves the stack
 * pointer, in bytes (push: -8), for the unwinder's rows of a relocated
 * prologue: 0 for one that does not (a call's callee returns; a jump or a
 * return leaves), INSN_SP_UNKNOWN for one that sets it otherwise (leave,
 * and $-16, mov %rbp: the distance to the frame is then not known).
 */
int32_t insn_sp_delta(const uint8_t *code, size_t len);

/* A function's patch planned (arch_plan_hook): what moves where, nothing built yet. */
struct arch_plan {
	struct insn_plan insn;
};

#endif
