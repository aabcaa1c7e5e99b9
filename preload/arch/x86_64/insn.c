// SPDX-License-Identifier: MIT
/*
 * insn: plan a function's entry patch with the Zydis decoder.
 *
 * The patch is a 5-byte jmp rel32 over the first whole instructions after
 * an endbr64 (which stays: it is the indirect-branch landing pad).  What it
 * overwrites must be moved, and must never be jumped into:
 *
 *   F:    endbr64                 F:    endbr64
 *         push %rbp        ==>          jmp stub_F
 *         mov  %rsp,%rbp                int3 int3
 *         sub  $0x10,%rsp               sub  $0x10,%rsp
 *
 * so the whole body is decoded (the symbol's size) and any branch landing
 * inside the overwritten bytes refuses the function (uftrace #855, #1692:
 * measured from the real patch start, after endbr64).  A branch to the
 * patch start itself is a call of F (a tail call from F's body) and is fine.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "../../functab.h"
#include "insn.h"

static const uint8_t insn_endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};

static void insn_why(char *why, size_t whylen, const char *fmt, uint64_t a, const char *s)
{
	if (why && whylen)
		snprintf(why, whylen, fmt, (unsigned long long)a, s);
}

static void insn_decoder(ZydisDecoder *dec)
{
	ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

/* The target of a relative branch, or 0 if @in is none. */
static uint64_t insn_branch_target(const ZydisDecodedInstruction *in, uint64_t ip)
{
	for (int i = 0; i < 2; i++) {
		if (in->raw.imm[i].is_relative)
			return ip + in->length + (uint64_t)in->raw.imm[i].value.s;
	}
	return 0;
}

/*
 * @end: where the patched bytes end, at the least.  A ret that reaches it is
 * the last instruction moved (xor; xor; ret, or mov; ret): nothing of the
 * function lies under the patch after it, so it moves like any other.  One
 * that ends before it leaves bytes behind it that something may reach.
 */
static int insn_classify(const ZydisDecodedInstruction *in, uint64_t ip, uint32_t end,
			 struct insn_moved *m, char *why, size_t whylen)
{
	const char *name = ZydisMnemonicGetString(in->mnemonic);
	uint64_t target = insn_branch_target(in, ip);

	m->move = INSN_COPY;
	if (in->meta.category == ZYDIS_CATEGORY_RET) {
		if (m->offset + in->length >= end)
			return 0;
		insn_why(why, whylen, "returns at +0x%llx, inside the patched bytes%s", m->offset,
			 "");
		return -1;
	}
	if (target) {
		m->target = target;
		if (in->meta.category == ZYDIS_CATEGORY_UNCOND_BR) {
			m->move = INSN_JMP;
		} else if (in->meta.category == ZYDIS_CATEGORY_CALL) {
			m->move = INSN_CALL;
		} else if (in->meta.category == ZYDIS_CATEGORY_COND_BR &&
			   in->mnemonic != ZYDIS_MNEMONIC_JRCXZ &&
			   in->mnemonic != ZYDIS_MNEMONIC_JECXZ &&
			   in->mnemonic != ZYDIS_MNEMONIC_JCXZ) {
			m->move = INSN_JCC;
			/* 7x rel8 or 0f 8x rel32: the condition is the low nibble */
			m->cond = in->opcode & 0x0f;
		} else {
			insn_why(why, whylen, "cannot move '%2$s' at +0x%1$llx", m->offset, name);
			return -1;
		}
		return 0;
	}
	if (in->attributes & ZYDIS_ATTRIB_IS_RELATIVE) {
		if (in->raw.disp.size != 32) {
			insn_why(why, whylen, "cannot move '%2$s' at +0x%1$llx", m->offset, name);
			return -1;
		}
		m->move = INSN_RIPREL;
		m->disp_off = in->raw.disp.offset;
		m->target = ip + in->length + (uint64_t)in->raw.disp.value;
	}
	return 0;
}

/* Any branch of the body that lands strictly inside (start, start+length). */
static int insn_scan_body(const ZydisDecoder *dec, const uint8_t *code, uint64_t size,
			  uint64_t addr, const struct insn_plan *plan, char *why, size_t whylen)
{
	uint64_t lo = addr + plan->start, hi = lo + plan->length;
	ZydisDecodedInstruction in;

	for (uint64_t off = 0; off < size;) {
		uint64_t target;

		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(dec, NULL, code + off, size - off,
							      &in))) {
			off++; /* data or padding: resynchronise */
			continue;
		}
		target = insn_branch_target(&in, addr + off);
		if (target > lo && target < hi) {
			insn_why(why, whylen, "a jump at +0x%llx lands inside the patched bytes%s",
				 off, "");
			return -1;
		}
		off += in.length;
	}
	return 0;
}

/* The plan of a patch of @patch bytes (5, or 2 for a short one). */
static int insn_plan(const uint8_t *code, uint64_t size, uint64_t addr, uint32_t patch,
		     struct insn_plan *plan, char *why, size_t whylen)
{
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	uint32_t off;

	memset(plan, 0, sizeof(*plan));
	insn_decoder(&dec);
	if (size >= sizeof(insn_endbr64) && !memcmp(code, insn_endbr64, sizeof(insn_endbr64)))
		plan->start = sizeof(insn_endbr64);
	if (size < plan->start + patch) {
		insn_why(why, whylen, "is %llu bytes%s", size, "");
		return -1;
	}
	for (off = plan->start; off < plan->start + patch;) {
		struct insn_moved *m = &plan->moved[plan->nmoved];

		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&dec, NULL, code + off, size - off,
							      &in))) {
			insn_why(why, whylen, "cannot decode the instruction at +0x%llx%s", off,
				 "");
			return -1;
		}
		if (off + in.length > size) {
			insn_why(why, whylen, "is %llu bytes%s", size, "");
			return -1;
		}
		m->offset = off;
		m->length = in.length;
		if (insn_classify(&in, addr + off, plan->start + patch, m, why, whylen))
			return -1;
		plan->nmoved++;
		off += in.length;
		if (m->move == INSN_CALL && off < plan->start + patch) {
			/* its return address would land in the int3 bytes */
			insn_why(why, whylen, "calls at +0x%llx, inside the patched bytes%s",
				 m->offset, "");
			return -1;
		}
	}
	plan->length = off - plan->start;
	return insn_scan_body(&dec, code, size, addr, plan, why, whylen);
}

int insn_plan_patch(const uint8_t *code, uint64_t size, uint64_t addr, struct insn_plan *plan,
		    char *why, size_t whylen)
{
	return insn_plan(code, size, addr, INSN_PATCH_SIZE, plan, why, whylen);
}

/* Whether @len bytes at @p are all fill: nop (of any length) and int3. */
static bool insn_is_fill(const uint8_t *p, uint64_t len)
{
	ZydisDecodedInstruction in;
	ZydisDecoder dec;

	insn_decoder(&dec);
	for (uint64_t off = 0; off < len; off += in.length) {
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&dec, NULL, p + off, len - off, &in)))
			return false;
		if (in.mnemonic != ZYDIS_MNEMONIC_NOP && in.mnemonic != ZYDIS_MNEMONIC_INT3)
			return false;
	}
	return true;
}

int insn_plan_patch_short(const uint8_t *code, uint64_t size, uint64_t addr, const uint8_t *gap,
			  uint64_t gap_len, struct insn_plan *plan, char *why, size_t whylen)
{
	if (gap_len < INSN_PATCH_SIZE || !insn_is_fill(gap, gap_len)) {
		insn_why(why, whylen, "has no padding before it for a short patch%.0llu%s", 0, "");
		return -1;
	}
	if (insn_plan(code, size, addr, INSN_SHORT_SIZE, plan, why, whylen))
		return -1;
	/* the 5-byte jmp in the last bytes of the padding, within a jmp rel8's reach */
	plan->pad_back = plan->start + INSN_PATCH_SIZE;
	if (plan->pad_back + INSN_SHORT_SIZE > 128) {
		insn_why(why, whylen, "has no padding within reach of a short jump%.0llu%s", 0, "");
		return -1;
	}
	return 0;
}

/* "a jump from memcpy+0x6 lands inside the patched bytes" */
static void insn_jump_reason(const struct functab *t, const struct functab_jump *j, char *why,
			     size_t len)
{
	const struct functab_sym *s = functab_sym_holding(t, j->from);
	const struct functab_fde *f = functab_fde_holding(t, j->from);
	char name[300];

	if (!why || !len)
		return;
	if (s)
		snprintf(why, len, "a jump from %s+0x%llx lands inside the patched bytes",
			 functab_sym_name(s, name, sizeof(name)),
			 (unsigned long long)(j->from - s->value));
	else if (f)
		snprintf(why, len, "a jump from 0x%llx+0x%llx lands inside the patched bytes",
			 (unsigned long long)f->start, (unsigned long long)(j->from - f->start));
	else
		snprintf(why, len, "a jump from 0x%llx lands inside the patched bytes",
			 (unsigned long long)j->from);
}

int insn_plan_hook(const uint8_t *code, uint64_t size, uint64_t addr, uint64_t base,
		   const struct functab *t, functab_code_fn bytes, void *arg,
		   struct insn_plan *plan, char *why, size_t whylen)
{
	uint64_t value = addr - base, gap;
	const struct functab_jump *j;
	struct insn_plan alt;
	const uint8_t *g;

	if (insn_plan_patch(code, size, addr, plan, why, whylen))
		return -1;
	if (!t ||
	    !(j = functab_jump_into(t, value + plan->start, value + plan->start + plan->length)))
		return 0;
	insn_jump_reason(t, j, why, whylen);
	gap = functab_gap_start(t, value);
	g = gap < value ? bytes(gap, value - gap, arg) : NULL;
	if (!g || insn_plan_patch_short(code, size, addr, g, value - gap, &alt, NULL, 0))
		return -1;
	j = functab_jump_into(t, value + alt.start, value + alt.start + alt.length);
	if (j) {
		insn_jump_reason(t, j, why, whylen);
		return -1;
	}
	*plan = alt;
	return 0;
}

void insn_each_branch(const uint8_t *code, uint64_t size, uint64_t addr,
		      void (*fn)(uint64_t from, uint64_t target, void *arg), void *arg)
{
	ZydisDecodedInstruction in;
	ZydisDecoder dec;

	insn_decoder(&dec);
	for (uint64_t off = 0; off < size;) {
		uint64_t target;

		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&dec, NULL, code + off, size - off,
							      &in))) {
			off++; /* data or padding: resynchronise */
			continue;
		}
		target = insn_branch_target(&in, addr + off);
		if (target && (target < addr || target >= addr + size))
			fn(addr + off, target, arg);
		off += in.length;
	}
}

size_t insn_relocated_size(const struct insn_plan *plan)
{
	/* the longest forms, jcc (2 + 14 bytes) and call (20 + 14); the jump back */
	return (size_t)plan->nmoved * 34 + 14;
}

static uint8_t *insn_put_abs_jmp(uint8_t *p, uint64_t target)
{
	static const uint8_t jmp_rip[6] = {0xff, 0x25, 0, 0, 0, 0}; /* jmp *0(%rip) */

	memcpy(p, jmp_rip, sizeof(jmp_rip));
	memcpy(p + sizeof(jmp_rip), &target, sizeof(target));
	return p + sizeof(jmp_rip) + sizeof(target);
}

long insn_relocate(const struct insn_plan *plan, const uint8_t *code, uint64_t fn_addr,
		   uint64_t dest_addr, uint8_t *out, uint16_t *starts)
{
	uint32_t lo, hi;
	uint64_t back;
	uint8_t *p = out;
	int64_t disp;
	int32_t d32;

	for (uint32_t i = 0; i < plan->nmoved; i++) {
		const struct insn_moved *m = &plan->moved[i];
		uint64_t here = dest_addr + (uint64_t)(p - out);

		if (starts)
			starts[i] = (uint16_t)(p - out);
		switch (m->move) {
		case INSN_COPY:
			memcpy(p, code + m->offset, m->length);
			p += m->length;
			break;
		case INSN_RIPREL:
			disp = (int64_t)(m->target - (here + m->length));
			if (disp != (int32_t)disp)
				return -1;
			d32 = (int32_t)disp;
			memcpy(p, code + m->offset, m->length);
			memcpy(p + m->disp_off, &d32, sizeof(d32));
			p += m->length;
			break;
		case INSN_JMP:
			p = insn_put_abs_jmp(p, m->target);
			break;
		case INSN_JCC:
			/* j<not cc> over the absolute jump */
			*p++ = (uint8_t)(0x70 | (m->cond ^ 1));
			*p++ = 14;
			p = insn_put_abs_jmp(p, m->target);
			break;
		case INSN_CALL:
			/*
			 * Only ever the last moved instruction (see the plan): the
			 * callee returns straight into F after the patched bytes,
			 * so unwinders and backtraces see F, not the stub.
			 *   lea -8(%rsp),%rsp; movl $lo,(%rsp); movl $hi,4(%rsp)
			 *   jmp *0(%rip); .quad target
			 */
			back = fn_addr + m->offset + m->length;
			lo = (uint32_t)back;
			hi = (uint32_t)(back >> 32);
			memcpy(p, "\x48\x8d\x64\x24\xf8", 5);
			p += 5;
			memcpy(p, "\xc7\x04\x24", 3);
			memcpy(p + 3, &lo, 4);
			p += 7;
			memcpy(p, "\xc7\x44\x24\x04", 4);
			memcpy(p + 4, &hi, 4);
			p += 8;
			p = insn_put_abs_jmp(p, m->target);
			return (long)(p - out);
		}
	}
	/* and on into F after the overwritten bytes: a direct jmp, the stub
	 * being near F, unless it is not */
	if (starts)
		starts[plan->nmoved] = (uint16_t)(p - out);
	back = fn_addr + plan->start + plan->length;
	disp = (int64_t)(back - (dest_addr + (uint64_t)(p - out) + 5));
	if (disp == (int32_t)disp) {
		d32 = (int32_t)disp;
		*p++ = 0xe9;
		memcpy(p, &d32, 4);
		p += 4;
	} else {
		p = insn_put_abs_jmp(p, back);
	}
	return (long)(p - out);
}

static bool insn_is_sp(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_RSP || r == ZYDIS_REGISTER_ESP || r == ZYDIS_REGISTER_SP ||
	       r == ZYDIS_REGISTER_SPL;
}

int32_t insn_sp_delta(const uint8_t *code, size_t len)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	bool to_sp;

	insn_decoder(&dec);
	if (ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code, len, &in, op)))
		return INSN_SP_UNKNOWN;
	to_sp = in.operand_count_visible && op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		insn_is_sp(op[0].reg.value);
	switch (in.mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHF:
	case ZYDIS_MNEMONIC_PUSHFQ:
		return -(int32_t)(in.operand_width / 8);
	case ZYDIS_MNEMONIC_POP:
		if (to_sp)
			return INSN_SP_UNKNOWN;
		return (int32_t)(in.operand_width / 8);
	case ZYDIS_MNEMONIC_POPF:
	case ZYDIS_MNEMONIC_POPFQ:
		return (int32_t)(in.operand_width / 8);
	case ZYDIS_MNEMONIC_SUB:
	case ZYDIS_MNEMONIC_ADD:
		if (!to_sp)
			break;
		if (in.operand_count_visible < 2 || op[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    in.operand_width != 64)
			return INSN_SP_UNKNOWN;
		return (int32_t)(in.mnemonic == ZYDIS_MNEMONIC_SUB ? -op[1].imm.value.s
								   : op[1].imm.value.s);
	case ZYDIS_MNEMONIC_LEA:
		if (!to_sp)
			break;
		if (op[1].mem.base != ZYDIS_REGISTER_RSP ||
		    op[1].mem.index != ZYDIS_REGISTER_NONE || in.operand_width != 64)
			return INSN_SP_UNKNOWN;
		return (int32_t)op[1].mem.disp.value;
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_RET:
	case ZYDIS_MNEMONIC_JMP:
		return 0;
	default:
		if (in.meta.category == ZYDIS_CATEGORY_COND_BR)
			return 0;
		break;
	}
	/* anything else that writes the stack pointer, as an operand or not */
	for (uint8_t i = 0; i < in.operand_count; i++) {
		if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER && insn_is_sp(op[i].reg.value) &&
		    (op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return INSN_SP_UNKNOWN;
	}
	return 0;
}
