// SPDX-License-Identifier: MIT
/*
 * stub_cfi: the unwinder's rows for a stub, on x86-64: where the caller's
 * frame is (the CFA) at every instruction of the head and of the moved
 * prologue, so that an unwinder can walk out of a stub from any of them
 * (a cancellation, an exception, a backtrace; unwind_stub.c registers
 * them).  S is the slot of the caller's return address R1 (stub_layout.h);
 * the CFA is S + 8 throughout, and the return address is read at CFA - 8,
 * where R1 is, or R2 while F runs (the shim's personality routine puts R1
 * back there first, unwind_stub.c):
 *
 *   head+0   push $idx             rsp = S          CFA = rsp + 8
 *   head+5   call *enter           rsp = S - 8      CFA = rsp + 16
 *            (xp_thunk_enter; its own rows in thunk.S; ret $16)
 *   head+11  nop; call orig        rsp = S + 8      CFA = rsp + 0
 *            (F runs: [S] = R2, the return address into head+17)
 *   head+17  sub $8,%rsp           rsp = S + 8      CFA = rsp + 0
 *   head+21  call *exit; ret       rsp = S          CFA = rsp + 8
 *            (xp_thunk_exit writes R1 back to S)
 *   head+56  orig: endbr64         rsp = S          CFA = rsp + 8
 *            the moved prologue    each push, sub $n, lea n(%rsp): its
 *                                  change; anything else that sets rsp:
 *                                  the return address undefined from there
 *                                  (the unwinder stops, it does not guess)
 *            jmp back into F
 *
 * A moved call (the last moved instruction) is a push of its return
 * address into F and a jmp: after the push, CFA = rsp + 8 + 8 more.
 *
 * The return address is read at CFA - 8 unless what is there is R2 (the
 * routine did not run: a walk without personality routines, as libgcc's
 * _Unwind_Backtrace): then it is 0, and the walk ends there, rather than
 * return to the stub's own frame again and again.
 */
#include <errno.h>
#include <string.h>

#include "arch/arch.h"
#include "insn.h"
#include "stub_layout.h"

/* DWARF's x86-64 register numbers and call frame instructions. */
#define DW_RSP		      7
#define DW_RIP		      16
#define DW_CFA_set_loc	      0x01
#define DW_CFA_undefined      0x07
#define DW_CFA_def_cfa	      0x0c
#define DW_CFA_def_cfa_offset 0x0e
#define DW_CFA_offset	      0x80
#define DW_CFA_val_expression 0x16
#define DW_OP_const8u	      0x0e
#define DW_OP_deref	      0x06
#define DW_OP_dup	      0x12
#define DW_OP_drop	      0x13
#define DW_OP_minus	      0x1c
#define DW_OP_bra	      0x28
#define DW_OP_eq	      0x29
#define DW_OP_skip	      0x2f
#define DW_OP_lit0	      0x30
#define DW_OP_lit8	      0x38

struct cfi_out {
	uint8_t *p;
	size_t len, cap;
};

static void cfi_byte(struct cfi_out *o, uint8_t b)
{
	if (o->len < o->cap)
		o->p[o->len] = b;
	o->len++;
}

static void cfi_uleb(struct cfi_out *o, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		cfi_byte(o, b | (v ? 0x80 : 0));
	} while (v);
}

static void cfi_loc(struct cfi_out *o, uint64_t at)
{
	cfi_byte(o, DW_CFA_set_loc);
	for (int i = 0; i < 8; i++)
		cfi_byte(o, (uint8_t)(at >> (8 * i)));
}

/* From @at on: CFA = rsp + @off. */
static void cfi_cfa(struct cfi_out *o, uint64_t at, uint64_t off)
{
	cfi_loc(o, at);
	cfi_byte(o, DW_CFA_def_cfa_offset);
	cfi_uleb(o, off);
}

static void cfi_u64(struct cfi_out *o, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		cfi_byte(o, (uint8_t)(v >> (8 * i)));
}

/* From here on, the return address: [CFA - 8], or 0 while that is @r2. */
static void cfi_ra_unless(struct cfi_out *o, uint64_t r2)
{
	static const uint8_t read[] = {DW_OP_lit8, DW_OP_minus, DW_OP_deref, DW_OP_dup,
				       DW_OP_const8u};
	static const uint8_t pick[] = {DW_OP_eq, DW_OP_bra, 3,		0,	   DW_OP_skip,
				       2,	 0,	    DW_OP_drop, DW_OP_lit0};

	cfi_byte(o, DW_CFA_val_expression);
	cfi_uleb(o, DW_RIP);
	cfi_uleb(o, sizeof(read) + 8 + sizeof(pick));
	for (size_t i = 0; i < sizeof(read); i++)
		cfi_byte(o, read[i]);
	cfi_u64(o, r2);
	for (size_t i = 0; i < sizeof(pick); i++)
		cfi_byte(o, pick[i]);
}

long arch_cfi_ra_unless(uint64_t stub_return, uint8_t *ops, size_t cap)
{
	struct cfi_out o = {ops, 0, cap};

	cfi_ra_unless(&o, stub_return);
	return o.len > cap ? -ENOSPC : (long)o.len;
}

void arch_cfi_cie(struct arch_cfi_cie *cie)
{
	/* CFA = rsp + 8, the return address at CFA - 8: a function's first instruction */
	static const uint8_t init[] = {DW_CFA_def_cfa, DW_RSP, 8, DW_CFA_offset | DW_RIP, 1};

	cie->code_align = 1;
	cie->data_align = -8;
	cie->ra = DW_RIP;
	memcpy(cie->init, init, sizeof(init));
	cie->init_len = sizeof(init);
}

long arch_stub_cfi(const struct arch_hook *hook, uint8_t *ops, size_t cap)
{
	struct cfi_out o = {ops, 0, cap};
	uint64_t head = (uint64_t)hook->stub;
	int64_t off = 8;

	/* the CIE's rows again: whatever the fast path's copy left before the head */
	cfi_loc(&o, head);
	cfi_byte(&o, DW_CFA_def_cfa);
	cfi_uleb(&o, DW_RSP);
	cfi_uleb(&o, 8);
	cfi_ra_unless(&o, head + STUB_RET);
	cfi_cfa(&o, head + STUB_CALL_ENTER, 16);
	cfi_cfa(&o, head + STUB_AFTER_ENTER, 0);
	cfi_cfa(&o, head + STUB_RET + 4, 8);
	/* orig: F's first instruction, as at F's entry; 8 is in force since head+21 */
	for (uint32_t i = 0; i < hook->nmoved; i++) {
		int32_t d = hook->moved_sp[i];

		if (hook->moved_call && i + 1 == hook->nmoved) {
			/* lea -8(%rsp),%rsp: its return address is pushed by hand */
			cfi_cfa(&o, head + hook->moved_at[i] + 5, (uint64_t)off + 8);
			break;
		}
		if (d == INSN_SP_UNKNOWN || off - d < 8) {
			cfi_loc(&o, head + hook->moved_at[i + 1]);
			cfi_byte(&o, DW_CFA_undefined);
			cfi_uleb(&o, DW_RIP);
			break;
		}
		if (d) {
			off -= d;
			cfi_cfa(&o, head + hook->moved_at[i + 1], (uint64_t)off);
		}
	}
	return o.len > cap ? -ENOSPC : (long)o.len;
}
