// SPDX-License-Identifier: MIT
/*
 * xlate_ctx: the native state of a thread that a signal interrupted in
 * translated code (the code cache, preload/steps/xlate_signal.c).  A handler must
 * see the program's pc and registers in its ucontext, not the cache's; and
 * the count must then hold exactly the instructions retired before that pc,
 * so that the thread can go on at the native pc's translation, whatever the
 * handler did:
 *
 *   interrupted in                 the native state
 *   --------------                 ----------------
 *   a copied instruction           that instruction, not retired
 *   the count's addition           the instruction it precedes (with
 *                                  XK_ADD_KEEP: rax from its slot, the
 *                                  count back if it was already added)
 *   a branch's translation, before the native branch, not retired (the
 *   its last jump                  borrowed rax back from its slot)
 *   its last jump                  retired: at its target (a return: the
 *                                  popped address, its imm16 added to rsp)
 *   after a syscall                retired: the address after it, in rcx too
 *   an exit stub                   retired: at the exit's native target
 *   the lookup, ret_entry          at tgt (the borrowed registers back), or
 *                                  at the thunk's return address, popped
 *   the dispatcher                 nothing: its own state (returns -1)
 *
 * The count is added once per block, somewhere in it; what retired before
 * the pc is the weights of the instructions before it (and of it, once
 * retired), so the count moves by that less what the block's addition
 * already added.
 */
#include <string.h>
#include <ucontext.h>

#include "arch/arch.h"
#include "steps/state.h"
#include "steps/xlate.h"
#include "xlate_kind.h"
#include "xlate_offsets.h"

static greg_t *xc_regs(void *uc)
{
	return ((ucontext_t *)uc)->uc_mcontext.gregs;
}

void arch_ctx_set_pc(void *uc, uint64_t pc)
{
	xc_regs(uc)[REG_RIP] = (greg_t)pc;
}

void arch_ctx_get_regs(const void *uc, uint64_t *regs)
{
	memcpy(regs, ((const ucontext_t *)uc)->uc_mcontext.gregs, ARCH_CTX_NREGS * sizeof(*regs));
}

void arch_ctx_set_regs(void *uc, const uint64_t *regs)
{
	memcpy(xc_regs(uc), regs, ARCH_CTX_NREGS * sizeof(*regs));
}

/* The registers a routine borrowed, back from their slots. */
static void xc_give_back(greg_t *g, uint8_t saved)
{
	if (saved & 1)
		g[REG_RAX] = (greg_t)xl_self.save_rax;
	if (saved & 2)
		g[REG_RCX] = (greg_t)xl_self.save_rcx;
	if (saved & 4)
		g[REG_RDX] = (greg_t)xl_self.save_rdx;
}

/* Interrupted in an arena's routines. */
static int xc_routine(const struct xl_routines *r, greg_t *g)
{
	uint64_t off = (uint64_t)g[REG_RIP] - (uint64_t)r->lookup, arg;
	uint16_t m = 0;

	while (m + 1 < r->n && r->off[m + 1] <= off)
		m++;
	switch (r->what[m]) {
	case XL_R_LOOKUP:
		xc_give_back(g, r->saved[m]);
		g[REG_RIP] = (greg_t)xl_self.tgt;
		return 0;
	case XL_R_RET:
		g[REG_RIP] = (greg_t) * (const uint64_t *)g[REG_RSP];
		g[REG_RSP] += 8;
		return 0;
	case XL_R_DISPATCH:
		arg = (uint64_t)g[REG_RAX];
		xc_give_back(g, r->saved[m]);
		g[REG_RIP] = (greg_t)(arg ? arg : xl_self.tgt);
		return arg ? 1 : 0;
	case XL_R_JMP:
		g[REG_RIP] = (greg_t)xl_self.jmp;
		return 2;
	default:
		return -1;
	}
}

/*
 * Past the body: a side exit taking back what the block added and did not
 * run (XK_ADD_KEEP's layout, then its jmp), or an exit stub; either way at
 * the exit's target, rax back from its slot once borrowed.
 */
static int xc_exit(const struct xl_block *b, greg_t *g, uint64_t off, int64_t *adj)
{
	for (uint32_t i = 0; i < b->nexits; i++) {
		const struct xl_exit *e = &b->exit[i];
		uint64_t q;

		if (e->sub_off && off >= e->sub_off &&
		    off < e->sub_off + (uint64_t)(e->rem ? XK_SIDE_LEN : XK_JMP_LEN)) {
			q = off - e->sub_off;
			if (e->rem && q >= XK_KEEP_OFF(2) && q < XK_KEEP_LEN)
				g[REG_RAX] = (greg_t)xl_self.save_rax;
			/* not taken back yet: what it skips is in the count */
			if (e->rem && q < XK_KEEP_OFF(4))
				*adj = -(int64_t)e->rem;
			g[REG_RIP] = (greg_t)e->target;
			return 0;
		}
		if (e->stub_off && off >= e->stub_off && off < e->stub_off + 24u) {
			if (off >= e->stub_off + 9u)
				g[REG_RAX] = (greg_t)xl_self.save_rax;
			g[REG_RIP] = (greg_t)e->target;
			return 0;
		}
	}
	return -1;
}

/* The weights of insn[0 .. i) of @b. */
static uint32_t xc_cum(const struct xl_block *b, uint32_t i)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < i && k < b->ninsn; k++)
		n += b->insn[k].weight;
	return n;
}

/* The rel32 (or rel8) target of the native branch @x of @b. */
static uint64_t xc_native_target(const struct xl_block *b, const struct xl_insn *x, int rel8)
{
	uint64_t pc = b->pc + x->pc_off, end = pc + x->len;
	int32_t rel;

	if (rel8)
		return end + (uint64_t)(int64_t) * (const int8_t *)(end - 1);
	memcpy(&rel, (const void *)(end - 4), sizeof(rel));
	return end + (uint64_t)(int64_t)rel;
}

int arch_xl_native_ctx(const struct xl_block *block, const struct xl_routines *routines, void *uc,
		       int64_t *adj)
{
	greg_t *g = xc_regs(uc);
	uint64_t off, pc, q;
	const struct xl_insn *x;
	uint32_t i, retired, last;
	bool added;

	*adj = 0;
	if (!block)
		return xc_routine(routines, g);
	if (block->flags & XL_B_NATIVE) {
		g[REG_RIP] = (greg_t)block->pc;
		return 0;
	}
	off = (uint64_t)g[REG_RIP] - (uint64_t)block->code;
	if (off >= block->body_len)
		return xc_exit(block, g, off, adj);
	if (block->add_len && off >= block->add_off &&
	    off < (uint64_t)block->add_off + block->add_len) {
		q = off - block->add_off;
		added = false;
		if (block->add_kind == XK_ADD_KEEP) {
			if (q >= XK_KEEP_OFF(2))
				g[REG_RAX] = (greg_t)xl_self.save_rax;
			added = q >= XK_KEEP_OFF(4);
		}
		i = block->add_before;
		g[REG_RIP] = (greg_t)(block->pc + block->insn[i].pc_off);
		*adj = (int64_t)xc_cum(block, i) - (added ? block->weight : 0);
		return 0;
	}
	/* the instruction whose translation holds the pc */
	last = block->ninsn - 1u + ((block->flags & XL_B_FALL) ? 1u : 0u);
	for (i = 0; i < last && block->insn[i + 1].code_off <= off; i++)
		;
	x = &block->insn[i];
	q = off - x->code_off;
	pc = block->pc + x->pc_off;
	added = block->add_len && i >= block->add_before;
	retired = 0;
	switch (x->kind) {
	case XK_JCC:
		if (q >= XK_JCC_LEN) {
			retired = 1;
			pc += x->len;
		}
		break;
	case XK_JRCXZ:
		if (q >= x->aux) {
			retired = 1;
			pc = q >= x->aux + (uint64_t)XK_JMP_LEN ? xc_native_target(block, x, 1)
								: pc + x->len;
		}
		break;
	case XK_CALL:
		if (q >= XK_PUSH_RET) {
			retired = 1;
			pc = xc_native_target(block, x, 0);
		}
		break;
	case XK_CALL_IND:
	case XK_JMP_IND: {
		uint32_t load = x->aux ? XK_IND_SAVE + x->aux : 0;
		uint32_t store = load + XK_IND_STORE + (x->aux ? XK_IND_BACK : 0);

		if (x->aux && q >= load && q < store)
			g[REG_RAX] = (greg_t)xl_self.save_rax;
		if (q >= store + (x->kind == XK_CALL_IND ? XK_PUSH_RET : 0u)) {
			retired = 1;
			pc = xl_self.tgt;
		}
		break;
	}
	case XK_RET:
		if (q >= XK_POP_TGT) {
			retired = 1;
			if (x->aux && q < XK_POP_TGT + 8u) {
				uint16_t imm;

				memcpy(&imm, (const void *)(pc + x->len - 2), sizeof(imm));
				g[REG_RSP] += imm;
			}
			pc = xl_self.tgt;
		}
		break;
	case XK_SYSCALL:
		if (q >= XK_SYS_NR + (uint64_t)x->len) {
			retired = 1;
			pc += x->len;
			g[REG_RCX] = (greg_t)pc;
		}
		break;
	case XK_FALL:
		retired = 0;
		break;
	default:
		break;
	}
	g[REG_RIP] = (greg_t)pc;
	*adj = (int64_t)xc_cum(block, i + retired) - (added ? block->weight : 0);
	return 0;
}

_Static_assert(XL_RESUME == offsetof(struct xl_thread, resume), "XL_RESUME");
