// SPDX-License-Identifier: MIT
/*
 * xlate_block: translate one basic block of x86-64 code for the steps
 * counter's code cache (preload/steps/xlate.h).  The block is decoded once, up to
 * its first control transfer (or 64 instructions), and copied with the
 * addition of its instruction count to the thread's count:
 *
 *   native block at pc                     its translation (in an arena near pc)
 *   +-------------------------------+      +------------------------------------+
 *   | mov  0x10(%rdi),%rax          |      | mov  0x10(%rdi),%rax        copied  |
 *   | lea  tbl(%rip),%rdx           |      | lea  tbl(%rip),%rdx    disp re-aimed|
 *   | cmp  %rax,%rsi  <- writes the |      | addq $4,%fs:count   <- where the    |
 *   |                   flags first |      | cmp  %rax,%rsi         flags are dead|
 *   | jne  L                        |      | jne  L'  ---------> L's block, or   |
 *   +-------------------------------+      | jmp  next' -------> an exit stub:   |
 *                                          |   mov %rax,%fs:save_rax             |
 *                                          |   lea stub(%rip),%rax; jmp dispatch |
 *                                          +------------------------------------+
 *
 * What is counted is the trap engine's definition (docs/measurement.md):
 * each of the program's instructions counts 1 (a rep-prefixed one once, a
 * syscall once), the shim's own text 0, a stub's relocated prologue what
 * its steps list says, a patched entry's jump 0.  The count is added where
 * the arithmetic flags are dead: before the first instruction from which
 * every flag is written before it is read, within the block or the code it
 * goes to (a call and a return end the flags' life: the ABI keeps none
 * across them); where there is no such point, through rax, saved in the
 * thread's slot, leaving the flags alone.  Nothing is pushed below the
 * program's stack pointer, whose red zone leaf functions use: the
 * translated code keeps what it borrows in thread-local slots.
 *
 *   native                     translated
 *   jmp/jcc L                  jmp/jcc rel32 to L's translation (linked by the
 *                              dispatcher at the first pass)
 *   call F                     pushq $ret (the native return address, from a
 *                              literal); jmp F's translation
 *   ret [$n]                   popq %fs:tgt; [lea n(%rsp),%rsp]; jmp lookup
 *   call/jmp *op               op into %fs:tgt (through rax when in memory);
 *                              [pushq $ret]; jmp lookup
 *   syscall                    mov %rax,%fs:sysnr; syscall; and natively on
 *                              if this is a new thread (its TLS says no
 *                              session) or a clone/fork/vfork child
 *   jmp to a stub's head       mov %rsp,%fs:via; jmp the stub (natively: its
 *                              thunk sees via and goes on in the cache)
 *   a stub's R2                mov %rsp,%fs:exited; jmp R2 (natively)
 *
 * Anything else is copied as it is, whatever its encoding (VEX, EVEX...),
 * a rip-relative operand re-aimed at the same address: the arena is chosen
 * near the code so that it reaches.  Far branches, xbegin, and what Zydis
 * cannot decode end the block: the code from there runs natively.
 */
#include <stdbool.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "arch/arch.h"
#include "core/state.h"
#include "steps/state.h"
#include "steps/xlate.h"
#include "stub_layout.h"
#include "xlate_emit.h"
#include "xlate_kind.h"

#define XB_ARITH                                                                                   \
	(ZYDIS_CPUFLAG_CF | ZYDIS_CPUFLAG_PF | ZYDIS_CPUFLAG_AF | ZYDIS_CPUFLAG_ZF |               \
	 ZYDIS_CPUFLAG_SF | ZYDIS_CPUFLAG_OF)
#define XB_LOOKAHEAD 16

#define XL_OFF(field) ((int32_t)(xl_cfg.tp_xl + offsetof(struct xl_thread, field)))

/* One decoded instruction of the block. */
struct xb_insn {
	ZydisDecodedInstruction in;
	uint64_t pc;
	uint64_t target; /* a direct branch's; a rip-relative operand's */
	uint8_t kind;
	uint8_t weight;
	uint8_t rip_rel; /* a copied one has a rip-relative operand */
	uint8_t side;	 /* a jcc the block goes on after, at its fall-through */
	uint32_t rd, wr; /* the arithmetic flags it reads, writes */
};

/*
 * Side exits a block may have: conditional branches it goes on after.  (A
 * loop's body is not unrolled: the example checker ran 15 % slower with two
 * or four copies than with one, its loops leaving early through the side
 * exits, whose taking back of the count lies on the count's own chain.)
 */
#define XB_MAX_SIDES 3

/* What the translation of a block is being built from. */
struct xb_ctx {
	const struct xl_where *where;
	struct xb_insn insn[XL_MAX_INSNS];
	uint32_t n;
	bool fall;    /* it ends without a control transfer: a jump to end follows */
	uint64_t end; /* native address after the last instruction */
	enum xl_code code;
	uint64_t range_end;
};

static void xb_decoder(ZydisDecoder *dec)
{
	ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

/* Decode at @pc, not past @limit. */
static bool xb_decode(const ZydisDecoder *dec, uint64_t pc, uint64_t limit,
		      ZydisDecodedInstruction *in)
{
	uint64_t room = limit - pc;

	if (limit <= pc)
		return false;
	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
		dec, NULL, (const void *)pc,
		room < ZYDIS_MAX_INSTRUCTION_LENGTH ? room : ZYDIS_MAX_INSTRUCTION_LENGTH, in));
}

static void xb_flags(const ZydisDecodedInstruction *in, uint32_t *rd, uint32_t *wr)
{
	const ZydisAccessedFlags *f = in->cpu_flags;

	*rd = f ? (f->tested & XB_ARITH) : 0;
	*wr = f ? ((f->modified | f->set_0 | f->set_1 | f->undefined) & XB_ARITH) : 0;
}

/* The target of a relative branch. */
static uint64_t xb_rel_target(const ZydisDecodedInstruction *in, uint64_t pc)
{
	for (int i = 0; i < 2; i++)
		if (in->raw.imm[i].is_relative)
			return pc + in->length + (uint64_t)in->raw.imm[i].value.s;
	return 0;
}

static bool xb_has_prefix(const ZydisDecodedInstruction *in, const uint8_t *bytes, uint8_t p)
{
	for (uint8_t i = 0; i < in->raw.prefix_count; i++)
		if (bytes[i] == p)
			return true;
	return false;
}

/* Whether @pc is a stub's head (reached by a patched entry's jmp). */
bool arch_xl_is_head(uint64_t pc)
{
	const uint8_t *p = (const uint8_t *)pc;
	uint32_t idx;

	if (!arch_code_owns(pc) || p[0] != 0x68) /* push $idx */
		return false;
	memcpy(&idx, p + 1, sizeof(idx));
	return xp.decls && idx < __atomic_load_n(&xp.ndecls, __ATOMIC_ACQUIRE) &&
	       xp.decls[idx].stub == (const void *)p;
}

/* Whether @pc is where a hooked function returns into its stub (R2). */
static bool xb_is_r2(uint64_t pc)
{
	return arch_code_owns(pc) && arch_xl_is_head(pc - STUB_RET);
}

/* The head of the stub whose code holds @pc (the relocated prologue), or NULL. */
static const uint8_t *xb_stub_of(uint64_t pc)
{
	uint32_t n = __atomic_load_n(&xp.ndecls, __ATOMIC_ACQUIRE);

	if (arch_xl_is_head(pc - STUB_AFTER_ENTER))
		return (const uint8_t *)(pc - STUB_AFTER_ENTER);
	if (arch_xl_is_head(pc - STUB_ORIG))
		return (const uint8_t *)(pc - STUB_ORIG);
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *h = xp.decls[i].stub;
		uint16_t list;

		if (!h)
			continue;
		memcpy(&list, h + STUB_STEP_LIST, sizeof(list));
		if (list && pc >= (uint64_t)h && pc < (uint64_t)h + list)
			return h;
	}
	return NULL;
}

/* The function's own instructions the stub instruction at @pc stands for: 0 or 1. */
static uint8_t xb_stub_weight(uint64_t pc)
{
	const uint8_t *h = xb_stub_of(pc);
	uint16_t list, off;
	uint32_t n;

	if (!h)
		return 0;
	n = h[STUB_STEP_N];
	memcpy(&list, h + STUB_STEP_LIST, sizeof(list));
	for (uint32_t k = 0; list && k < n; k++) {
		memcpy(&off, h + list + 2 * k, sizeof(off));
		if (pc == (uint64_t)h + off)
			return 1;
	}
	return 0;
}

/*
 * A jmp that is a patched entry's: to a stub's head, or (a short patch) a
 * jmp rel8 to a jmp rel32 in the padding that goes there.  Its final
 * target (the head) in *@head.
 */
static bool xb_patch_jump(const ZydisDecodedInstruction *in, uint64_t target, uint64_t *head)
{
	const uint8_t *p = (const uint8_t *)target;
	uint64_t end;
	int32_t rel;

	if (arch_xl_is_head(target)) {
		*head = target;
		return true;
	}
	if (in->length != 2 || xlate_code_kind(target, &end) == XL_CODE_NONE || end < target + 5 ||
	    p[0] != 0xe9)
		return false;
	memcpy(&rel, p + 1, sizeof(rel));
	*head = target + 5 + (uint64_t)(int64_t)rel;
	return arch_xl_is_head(*head);
}

/* Whether @target, an operand's address, is within a rel32 of every byte of the arena. */
static bool xb_reaches(const struct xl_where *w, uint64_t target)
{
	int64_t a = (int64_t)(target - w->lo), b = (int64_t)(target - w->hi);

	return a == (int32_t)a && b == (int32_t)b;
}

/*
 * What the instruction @x is made into; false when it cannot be translated
 * (the block ends before it).  Sets whether it ends the block.
 */
static bool xb_classify(struct xb_ctx *c, struct xb_insn *x, bool *ends)
{
	const ZydisDecodedInstruction *in = &x->in;
	const uint8_t *bytes = (const uint8_t *)x->pc;
	uint64_t head;

	*ends = true;
	x->target = xb_rel_target(in, x->pc);
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
		if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR || xb_has_prefix(in, bytes, 0x66))
			return false;
		if (x->target) {
			x->kind = XK_JMP;
			if (xb_patch_jump(in, x->target, &head)) {
				x->target = head;
				x->weight = 0;
			}
			return true;
		}
		x->kind = XK_JMP_IND;
		return true;
	case ZYDIS_MNEMONIC_CALL:
		if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR || xb_has_prefix(in, bytes, 0x66))
			return false;
		x->kind = x->target ? XK_CALL : XK_CALL_IND;
		return true;
	case ZYDIS_MNEMONIC_RET:
		if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR || xb_has_prefix(in, bytes, 0x66))
			return false;
		x->kind = XK_RET;
		return true;
	case ZYDIS_MNEMONIC_JRCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
		if (!x->target || xb_has_prefix(in, bytes, 0x66))
			return false;
		x->kind = XK_JRCXZ;
		return true;
	case ZYDIS_MNEMONIC_SYSCALL:
		x->kind = XK_SYSCALL;
		return true;
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_SYSENTER:
		return false;
	default:
		break;
	}
	if (in->meta.category == ZYDIS_CATEGORY_COND_BR) {
		if (!x->target || xb_has_prefix(in, bytes, 0x66))
			return false;
		x->kind = XK_JCC;
		return true;
	}
	*ends = false;
	x->kind = XK_COPY;
	/* a relative operand other than a branch's (or a branch not known above) */
	if (x->target)
		return false;
	if (in->raw.modrm.offset && in->raw.modrm.mod == 0 && in->raw.modrm.rm == 5 &&
	    (in->attributes & ZYDIS_ATTRIB_HAS_MODRM)) {
		if (in->raw.disp.size != 32)
			return false;
		x->target = x->pc + in->length + (uint64_t)(int64_t)in->raw.disp.value;
		x->rip_rel = 1;
		return xb_reaches(c->where, x->target);
	}
	return true;
}

/* The weight of the instruction at @pc in code of kind @code. */
static uint8_t xb_weight(enum xl_code code, uint64_t pc)
{
	switch (code) {
	case XL_CODE_PROGRAM:
		return 1;
	case XL_CODE_STUB:
		return xb_stub_weight(pc);
	default:
		return 0;
	}
}

/* Whether @pc is one of the block's instructions so far. */
static bool xb_in_block(const struct xb_ctx *c, uint64_t pc)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (c->insn[i].pc == pc)
			return true;
	return false;
}

/*
 * Whether the block may go on at @pc (a jmp's target, a jcc's
 * fall-through): code of the same kind, not a stub's head or R2, not in
 * the block already; the end of its range in *@end.
 */
static bool xb_may_follow(const struct xb_ctx *c, uint64_t pc, uint64_t *end)
{
	return c->n + 1 < XL_MAX_INSNS && !arch_xl_is_head(pc) && !xb_is_r2(pc) &&
	       xlate_code_kind(pc, end) == c->code && !xb_in_block(c, pc);
}

/*
 * Decode the block at @pc: a superblock, which goes on through direct jumps
 * (elided) and past conditional branches (side exits), so that a loop's
 * body adds its count once a trip.  False when not even its first
 * instruction can be translated.
 */
static bool xb_decode_block(struct xb_ctx *c, uint64_t pc)
{
	ZydisDecoder dec;
	uint64_t at = pc, end;
	uint32_t sides = 0;

	xb_decoder(&dec);
	c->code = xlate_code_kind(pc, &c->range_end);
	if (c->code == XL_CODE_NONE)
		return false;
	c->n = 0;
	c->fall = true;
	while (c->n < XL_MAX_INSNS) {
		struct xb_insn *x = &c->insn[c->n];
		bool ends;

		memset(x, 0, sizeof(*x));
		x->pc = at;
		if (!xb_decode(&dec, at, c->range_end, &x->in))
			break;
		x->weight = xb_weight(c->code, at);
		if (!xb_classify(c, x, &ends))
			break;
		xb_flags(&x->in, &x->rd, &x->wr);
		at += x->in.length;
		c->n++;
		if (!ends)
			continue;
		if (x->kind == XK_JMP && x->weight && xb_may_follow(c, x->target, &end)) {
			x->kind = XK_JMP_ELIDED;
			at = x->target;
			c->range_end = end;
			continue;
		}
		/* a loop's back edge ends the block: its trips add once each, not twice */
		if (x->kind == XK_JCC && sides < XB_MAX_SIDES && !xb_in_block(c, x->target) &&
		    xb_may_follow(c, at, &end)) {
			x->side = 1;
			sides++;
			c->range_end = end;
			continue;
		}
		c->fall = false;
		break;
	}
	c->end = at;
	return c->n > 0;
}

/* ---- where the flags are dead ------------------------------------------------------------ */

/*
 * The flags the code at @pc reads before it writes them (decoded, not
 * translated), up to XB_LOOKAHEAD instructions: a call or a return ends
 * the flags' life; other branches, and what cannot be decoded, keep what
 * is still undecided live.
 */
static uint32_t xb_live_at(uint64_t pc)
{
	uint32_t live = 0, open = XB_ARITH, rd, wr;
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	uint64_t end;

	if (xlate_code_kind(pc, &end) == XL_CODE_NONE)
		return XB_ARITH;
	xb_decoder(&dec);
	for (int n = 0; n < XB_LOOKAHEAD && open; n++) {
		if (!xb_decode(&dec, pc, end, &in))
			return live | open;
		xb_flags(&in, &rd, &wr);
		live |= rd & open;
		open &= ~wr;
		if (in.meta.category == ZYDIS_CATEGORY_CALL ||
		    in.meta.category == ZYDIS_CATEGORY_RET)
			return live;
		if (in.meta.category == ZYDIS_CATEGORY_COND_BR ||
		    in.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		    in.meta.category == ZYDIS_CATEGORY_SYSCALL ||
		    in.meta.category == ZYDIS_CATEGORY_INTERRUPT)
			return live | open;
		pc += in.length;
	}
	return live | open;
}

/* The flags live after the block's last instruction. */
static uint32_t xb_live_end(const struct xb_ctx *c)
{
	const struct xb_insn *last = &c->insn[c->n - 1];

	if (c->fall)
		return c->end < c->range_end ? xb_live_at(c->end) : XB_ARITH;
	switch (last->kind) {
	case XK_RET:
	case XK_CALL:
	case XK_CALL_IND:
		return 0;
	case XK_JMP:
		return arch_xl_is_head(last->target) ? 0 : xb_live_at(last->target);
	case XK_JCC:
	case XK_JRCXZ:
		return xb_live_at(last->target) | xb_live_at(c->end);
	case XK_SYSCALL:
		return xb_live_at(c->end);
	default:
		return XB_ARITH;
	}
}

/*
 * Where the count goes: the first instruction before which no flag is live
 * (c->n for the fall-through jump), else -1.
 */
static int xb_dead_point(const struct xb_ctx *c)
{
	uint32_t live[XL_MAX_INSNS + 1];
	int k = -1;

	uint32_t first_side = c->n;

	live[c->n] = xb_live_end(c);
	for (int i = (int)c->n - 1; i >= 0; i--) {
		const struct xb_insn *x = &c->insn[i];
		uint32_t after = live[i + 1];

		/* a call and a return: nothing of the flags lives across them */
		if (x->kind == XK_CALL || x->kind == XK_CALL_IND || x->kind == XK_RET)
			after = 0;
		if (x->side) {
			after |= xb_live_at(x->target);
			first_side = (uint32_t)i;
		}
		live[i] = x->rd | (after & ~x->wr);
	}
	/* the count is added before any side exit: each takes back what it skips */
	for (uint32_t i = 0; i <= c->n && i <= first_side; i++) {
		if (i == c->n && !c->fall)
			break;
		if (!live[i]) {
			k = (int)i;
			break;
		}
	}
	return k;
}

/* ---- emission ------------------------------------------------------------------------------ */

/*
 * An exit: a rel32 field to aim at its stub once the stubs are laid out (NULL:
 * linked already), its native target, and for a side exit where it takes
 * back what the block did not run.
 */
struct xb_fix {
	uint8_t *field;
	uint64_t target;
	uint16_t sub_off;
	uint16_t rem;
};

/* A side exit's jcc: its rel32, its target, what it takes back. */
struct xb_side {
	uint8_t *field;
	uint64_t target;
	uint16_t rem;
};

struct xb_out {
	uint8_t *p;
	struct xb_fix fix[XL_MAX_EXITS];
	uint32_t nfix;
	struct xb_side side[XB_MAX_SIDES];
	uint32_t nside;
	uint8_t *lit_field[2]; /* pushq ret(%rip) fields, and their values */
	uint64_t lit[2];
	uint32_t nlit;
	bool overflow;
};

/* A direct branch's rel32 @field to native @target: its block if translated and near, else an exit.
 */
static void xb_aim_exit(struct xb_out *o, uint8_t *field, uint64_t target, uint16_t sub_off,
			uint16_t rem)
{
	struct xl_block *t = xlate_cache_find(xl_self.cache, target);
	bool linked = t && xe_rel32_ok(field + 4, (uint64_t)t->code);

	if (linked)
		xe_set_rel32(field, (uint64_t)t->code);
	/* a side exit is recorded even when linked: the signal path reads it */
	if (linked && !sub_off)
		return;
	if (o->nfix == XL_MAX_EXITS) {
		o->overflow = true;
		return;
	}
	o->fix[o->nfix].field = linked ? NULL : field;
	o->fix[o->nfix].target = target;
	o->fix[o->nfix].sub_off = sub_off;
	o->fix[o->nfix].rem = rem;
	o->nfix++;
}

static void xb_aim(struct xb_out *o, uint8_t *field, uint64_t target)
{
	xb_aim_exit(o, field, target, 0, 0);
}

static void xb_push_ret(struct xb_out *o, uint64_t ret)
{
	o->p = xe_push_rip(o->p, &o->lit_field[o->nlit]);
	o->lit[o->nlit++] = ret;
}

/*
 * @d added to the count without touching the flags (XK_ADD_KEEP's layout):
 * mov %rax,save; mov count,%rax; lea d(%rax),%rax (a disp32, for a fixed
 * layout); mov %rax,count; mov save,%rax.
 */
static void xb_emit_count_keep(struct xb_out *o, int32_t d)
{
	int32_t count = (int32_t)xl_cfg.tp_count;

	o->p = xe_store_fs(o->p, XR_RAX, XL_OFF(save_rax));
	o->p = xe_load_fs(o->p, XR_RAX, count);
	o->p = xe_bytes(o->p, "\x48\x8d\x80", 3);
	o->p = xe_u32(o->p, (uint32_t)d);
	o->p = xe_store_fs(o->p, XR_RAX, count);
	o->p = xe_load_fs(o->p, XR_RAX, XL_OFF(save_rax));
}

/* The count: plainly where the flags are dead, else through rax. */
static void xb_emit_add(struct xb_out *o, uint32_t n, bool keep)
{
	if (keep)
		xb_emit_count_keep(o, (int32_t)n);
	else
		o->p = xe_add_fs_imm(o->p, (int32_t)xl_cfg.tp_count, n);
}

/*
 * The operand of call/jmp *op into tgt: a register directly; memory
 * through rax (mov op,%rax, its ModRM, SIB and displacement copied, a
 * rip-relative one re-aimed).  Returns the mov's length (0 for a
 * register), or -1 when the operand cannot be moved.
 */
static int xb_emit_target(struct xb_out *o, const struct xb_insn *x)
{
	const ZydisDecodedInstruction *in = &x->in;
	const uint8_t *b = (const uint8_t *)x->pc;
	uint8_t modrm = b[in->raw.modrm.offset], *start;
	uint8_t rex = (uint8_t)(0x48 | (in->raw.rex.X ? 2 : 0) | (in->raw.rex.B ? 1 : 0));
	uint32_t tail = in->length - in->raw.modrm.offset - 1u;

	if (!in->raw.modrm.offset && !(in->attributes & ZYDIS_ATTRIB_HAS_MODRM))
		return -1;
	if (in->raw.modrm.mod == 3) {
		o->p = xe_store_fs(o->p, (int)(in->raw.modrm.rm | (in->raw.rex.B ? 8 : 0)),
				   XL_OFF(tgt));
		return 0;
	}
	o->p = xe_store_fs(o->p, XR_RAX, XL_OFF(save_rax));
	start = o->p;
	for (uint8_t i = 0; i < in->raw.prefix_count; i++) {
		/* a segment (fs, gs) and the address size stay; bnd, notrack and hints go */
		if (b[i] == 0x64 || b[i] == 0x65 || b[i] == 0x67)
			o->p = xe_u8(o->p, b[i]);
		else if (b[i] != 0xf2 && b[i] != 0x3e && b[i] != 0x2e && b[i] != 0x26 &&
			 b[i] != 0x36 && (b[i] & 0xf0) != 0x40)
			return -1;
	}
	o->p = xe_u8(o->p, rex);
	o->p = xe_u8(o->p, 0x8b);
	o->p = xe_u8(o->p, (uint8_t)(modrm & 0xc7));
	memcpy(o->p, b + in->raw.modrm.offset + 1, tail);
	o->p += tail;
	if (in->raw.modrm.mod == 0 && in->raw.modrm.rm == 5) {
		uint64_t op = x->pc + in->length + (uint64_t)(int64_t)in->raw.disp.value;
		int64_t d = (int64_t)(op - (uint64_t)o->p);
		int32_t d32 = (int32_t)d;

		if (d != d32)
			return -1;
		/* the disp32 is the mov's last 4 bytes (no immediate follows) */
		memcpy(o->p - 4, &d32, 4);
	}
	o->p = xe_store_fs(o->p, XR_RAX, XL_OFF(tgt));
	o->p = xe_load_fs(o->p, XR_RAX, XL_OFF(save_rax));
	return (int)(o->p - start) - XK_IND_STORE - XK_IND_BACK;
}

/* system call: natively on in a thread that has no session (a new one) or in a clone's child */
static void xb_emit_syscall(struct xb_out *o, const struct xb_insn *x, uint64_t after)
{
	uint8_t *go, *zero, *native[6], *field;
	int nn = 0;
	static const int32_t steps[4] = {-56, -1, -1, -377}; /* clone, fork, vfork, clone3 */

	o->p = xe_store_fs(o->p, XR_RAX, XL_OFF(sysnr));
	memcpy(o->p, (const void *)x->pc, x->in.length);
	o->p += x->in.length;
	o->p = xe_load_fs(o->p, XR_RCX, XL_OFF(active));
	native[nn++] = o->p;
	o->p = xe_jrcxz(o->p, 0);
	o->p = xe_mov_rr(o->p, XR_RCX, XR_RAX);
	zero = o->p;
	o->p = xe_jrcxz(o->p, 0);
	go = o->p;
	/* rcx as the native syscall leaves it: the address after it */
	o->p = xe_movabs(o->p, XR_RCX, after);
	o->p = xe_jmp32(o->p, &field);
	xb_aim(o, field, after);
	zero[1] = (uint8_t)(o->p - (zero + 2));
	o->p = xe_load_fs(o->p, XR_RCX, XL_OFF(sysnr));
	for (int i = 0; i < 4; i++) {
		o->p = xe_lea_self(o->p, XR_RCX, steps[i]);
		native[nn++] = o->p;
		o->p = xe_jrcxz(o->p, 0);
	}
	o->p = xe_u8(o->p, 0xeb);
	o->p = xe_u8(o->p, (uint8_t)(int8_t)(go - (o->p + 1)));
	for (int i = 0; i < nn; i++)
		native[i][1] = (uint8_t)(o->p - (native[i] + 2));
	o->p = xe_movabs(o->p, XR_RCX, after);
	o->p = xe_jmp_reg(o->p, XR_RCX);
}

/* One instruction's translation; false if it cannot be made after all. */
static bool xb_emit_insn(struct xb_out *o, const struct xb_ctx *c, const struct xb_insn *x,
			 struct xl_insn *rec)
{
	const ZydisDecodedInstruction *in = &x->in;
	const struct xl_routines *r = c->where->r;
	uint64_t next = x->pc + in->length;
	uint8_t *field;
	int len;

	switch (x->kind) {
	case XK_COPY:
		memcpy(o->p, (const void *)x->pc, in->length);
		if (x->rip_rel) {
			int64_t d = (int64_t)(x->target - ((uint64_t)o->p + in->length));
			int32_t d32 = (int32_t)d;

			if (d != d32)
				return false;
			memcpy(o->p + in->raw.disp.offset, &d32, 4);
		}
		o->p += in->length;
		return true;
	case XK_JMP:
		o->p = xe_jmp32(o->p, &field);
		xb_aim(o, field, x->target);
		return true;
	case XK_JCC:
		o->p = xe_jcc32(o->p, in->opcode & 0x0f, &field);
		if (x->side) {
			/* to its taking back, laid out after the body (xb_emit_sides) */
			o->side[o->nside].field = field;
			o->side[o->nside].target = x->target;
			o->nside++;
			return true;
		}
		xb_aim(o, field, x->target);
		o->p = xe_jmp32(o->p, &field);
		xb_aim(o, field, next);
		return true;
	case XK_JMP_ELIDED:
		/* the block goes on at its target: nothing to emit */
		return true;
	case XK_JRCXZ:
		/* the original over the next jmp: taken lands on the second */
		memcpy(o->p, (const void *)x->pc, in->length);
		o->p[in->length - 1] = XK_JMP_LEN;
		o->p += in->length;
		o->p = xe_jmp32(o->p, &field);
		xb_aim(o, field, next);
		o->p = xe_jmp32(o->p, &field);
		xb_aim(o, field, x->target);
		rec->aux = in->length;
		return true;
	case XK_CALL:
		xb_push_ret(o, next);
		/* out of the cache: the callee returns natively (xlate_guard.c) */
		if (x->target == (uint64_t)xlate_leave) {
			o->p = xe_jmp(o->p, x->target);
			return true;
		}
		o->p = xe_jmp32(o->p, &field);
		xb_aim(o, field, x->target);
		return true;
	case XK_CALL_IND:
	case XK_JMP_IND:
		len = xb_emit_target(o, x);
		if (len < 0)
			return false;
		rec->aux = (uint8_t)len;
		if (x->kind == XK_CALL_IND)
			xb_push_ret(o, next);
		o->p = xe_jmp(o->p, (uint64_t)r->lookup);
		return true;
	case XK_RET:
		o->p = xe_pop_fs(o->p, XL_OFF(tgt));
		if (in->raw.imm[0].size) {
			o->p = xe_lea_rsp(o->p, (int32_t)(in->raw.imm[0].value.u & 0xffff));
			rec->aux = 1;
		}
		o->p = xe_jmp(o->p, (uint64_t)r->lookup);
		return true;
	case XK_SYSCALL:
		xb_emit_syscall(o, x, next);
		return true;
	default:
		return false;
	}
}

/*
 * Each side exit: the count less what the block added and did not run
 * (through rax, leaving the flags alone), then a jmp to its target, linked
 * or to an exit stub as the others'.
 */
static void xb_emit_sides(struct xb_out *o, struct xl_block *b)
{
	for (uint32_t i = 0; i < o->nside; i++) {
		const struct xb_side *sd = &o->side[i];
		uint16_t sub_off = (uint16_t)(o->p - b->code);
		uint8_t *field;

		xe_set_rel32(sd->field, (uint64_t)o->p);
		if (sd->rem)
			xb_emit_count_keep(o, -(int32_t)sd->rem);
		o->p = xe_jmp32(o->p, &field);
		xb_aim_exit(o, field, sd->target, sub_off, sd->rem);
	}
}

/* An exit stub for each unlinked exit: mov %rax,save_rax; lea stub(%rip),%rax; jmp dispatch. */
static void xb_emit_exits(struct xb_out *o, struct xl_block *b, const struct xl_routines *r)
{
	b->nexits = 0;
	for (uint32_t i = 0; i < o->nfix; i++) {
		struct xl_exit *e = &b->exit[b->nexits++];
		uint8_t *stub = o->p;

		e->target = o->fix[i].target;
		e->sub_off = o->fix[i].sub_off;
		e->rem = o->fix[i].rem;
		if (!o->fix[i].field) {
			e->stub_off = 0;
			e->site_off = 0;
			continue;
		}
		e->stub_off = (uint16_t)(stub - b->code);
		e->site_off = (uint16_t)(o->fix[i].field - b->code);
		xe_set_rel32(o->fix[i].field, (uint64_t)stub);
		o->p = xe_store_fs(o->p, XR_RAX, XL_OFF(save_rax));
		/* lea stub(%rip), %rax */
		o->p = xe_bytes(o->p, "\x48\x8d\x05", 3);
		o->p = xe_u32(o->p, (uint32_t)(int32_t)(stub - (o->p + 4)));
		o->p = xe_jmp(o->p, (uint64_t)r->dispatch);
		/* room to be made a jmp *0(%rip); .quad when linked out of reach */
		while (o->p - stub < 24)
			o->p = xe_u8(o->p, 0xcc);
	}
}

static void xb_emit_literals(struct xb_out *o)
{
	o->p = (uint8_t *)(((uint64_t)o->p + 7) & ~7ull);
	for (uint32_t i = 0; i < o->nlit; i++) {
		xe_set_rel32(o->lit_field[i], (uint64_t)o->p);
		o->p = xe_u64(o->p, o->lit[i]);
	}
}

/*
 * The whole block is an exit to native code: a stub's head (a hooked call,
 * counted by its thunk) or its R2 (a hooked function's return), with the
 * marker that tells the thunk the cache sent it.
 */
static long xb_exit_block(uint64_t pc, int32_t marker, const struct xl_where *w, struct xl_block *b)
{
	uint8_t *p = w->out;

	memset(b, 0, offsetof(struct xl_block, insn));
	b->pc = pc;
	b->code = p;
	p = xe_store_fs(p, XR_RSP, marker);
	p = xe_jmp(p, pc);
	b->body_len = (uint16_t)(p - w->out);
	b->code_len = b->body_len;
	b->flags = XL_B_NATIVE;
	return b->code_len;
}

long arch_xl_translate(uint64_t pc, const struct xl_where *where, struct xl_block *block)
{
	struct xb_ctx c;
	struct xb_out o;
	uint32_t total = 0;
	int k;

	if (arch_xl_is_head(pc))
		return xb_exit_block(pc, XL_OFF(via), where, block);
	if (xb_is_r2(pc))
		return xb_exit_block(pc, XL_OFF(exited), where, block);
	c.where = where;
	if (!xb_decode_block(&c, pc))
		return -1;
	for (uint32_t i = 0; i < c.n; i++)
		total += c.insn[i].weight;
	k = total ? xb_dead_point(&c) : 0;

	memset(block, 0, offsetof(struct xl_block, insn));
	memset(&o, 0, sizeof(o));
	block->pc = pc;
	block->code = where->out;
	block->weight = (uint16_t)total;
	o.p = where->out;
	for (uint32_t i = 0, cum = 0; i <= c.n; i++) {
		struct xl_insn *rec = &block->insn[i];

		if (total && i == (uint32_t)(k < 0 ? 0 : k)) {
			block->add_off = (uint16_t)(o.p - block->code);
			block->add_before = (uint8_t)i;
			block->add_kind = k < 0 ? XK_ADD_KEEP : XK_ADD_PLAIN;
			xb_emit_add(&o, total, k < 0);
			block->add_len = (uint8_t)(o.p - block->code - block->add_off);
		}
		if (i == c.n) {
			if (!c.fall)
				break;
			/* the fall-through: on at the instruction after the block */
			uint8_t *field;

			rec->pc_off = (uint16_t)(c.end - pc);
			rec->code_off = (uint16_t)(o.p - block->code);
			rec->kind = XK_FALL;
			o.p = xe_jmp32(o.p, &field);
			xb_aim(&o, field, c.end);
			block->flags |= XL_B_FALL;
			break;
		}
		rec->pc_off = (uint16_t)(c.insn[i].pc - pc);
		rec->code_off = (uint16_t)(o.p - block->code);
		rec->kind = c.insn[i].kind;
		rec->weight = c.insn[i].weight;
		rec->len = c.insn[i].in.length;
		cum += c.insn[i].weight;
		if (!xb_emit_insn(&o, &c, &c.insn[i], rec) || o.overflow)
			return -1;
		/* a side exit takes back the rest of the block */
		if (c.insn[i].side)
			o.side[o.nside - 1].rem = (uint16_t)(total - cum);
		if ((size_t)(o.p - where->out) > where->room - 256)
			return -1;
	}
	block->ninsn = (uint8_t)c.n;
	block->body_len = (uint16_t)(o.p - block->code);
	xb_emit_sides(&o, block);
	if (o.overflow)
		return -1;
	xb_emit_exits(&o, block, where->r);
	xb_emit_literals(&o);
	block->code_len = (uint32_t)(o.p - block->code);
	return block->code_len;
}

void arch_xl_link(struct xl_block *block, const struct xl_exit *block_exit, uint64_t to)
{
	/* linked when translated: nothing to do */
	if (!block_exit->stub_off)
		return;
	uint8_t *site = block->code + block_exit->site_off,
		*stub = block->code + block_exit->stub_off;

	if (xe_rel32_ok(site + 4, to))
		xe_set_rel32(site, to);
	else
		xe_jmp_abs(stub, to);
}
