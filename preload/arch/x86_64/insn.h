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
	uint32_t start;	 /* where the patch goes: 4 after endbr64, else 0 */
	uint32_t length; /* bytes overwritten: whole instructions, >= 5 */
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

/* Bytes the relocated copy of @plan's instructions takes at most. */
size_t insn_relocated_size(const struct insn_plan *plan);

/*
 * Write the relocated instructions of @plan (of the function at @fn_addr,
 * whose bytes are @code) for code that will run at @dest_addr into @out,
 * followed by the jump back into the function.  Returns the bytes written,
 * or -1 if an operand cannot reach its target from there.
 */
long insn_relocate(const struct insn_plan *plan, const uint8_t *code, uint64_t fn_addr,
		   uint64_t dest_addr, uint8_t *out);

#endif
