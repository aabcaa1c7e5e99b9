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
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "functab.h"
#include "insn.h"
#include "plan.h"

static const uint8_t insn_endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};

static void insn_why(char *why, size_t whylen, const char *fmt, uint64_t a, const char *s)
{
	if (why && whylen)
		snprintf(why, whylen, fmt, (unsigned long long)a, s);
}

/* The reason, when one is asked for: @fmt into @why. */
static __attribute__((format(printf, 3, 4))) void insn_say(char *why, size_t whylen,
							   const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
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

/* A function too short for the patch: "is 4 bytes, too short for the 5-byte jump to its stub". */
static void insn_say_short(char *why, size_t whylen, uint64_t size, uint32_t start, uint32_t patch)
{
	insn_say(why, whylen, "is %llu byte%s%s, too short for the %u-byte jump to its stub",
		 (unsigned long long)size, size == 1 ? "" : "s", start ? " with its endbr64" : "",
		 patch);
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
		insn_say_short(why, whylen, size, plan->start, patch);
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
			insn_say_short(why, whylen, size, plan->start, patch);
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

/*
 * Whether the @len bytes at @code, decoded from their start, end with an
 * instruction that ends at their very end: the code before a padding ends
 * where the padding starts, so that a fall-through out of it enters the
 * padding at its first byte.
 */
static bool insn_decodes_to(const uint8_t *code, uint64_t len)
{
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	uint64_t off;

	insn_decoder(&dec);
	for (off = 0; off < len; off += in.length) {
		if (ZYAN_FAILED(
			    ZydisDecoderDecodeInstruction(&dec, NULL, code + off, len - off, &in)))
			return false;
	}
	return off == len;
}

/*
 * The padding's slot for the jmp rel32: decoded from its start, as a
 * fall-through out of the code before it runs it, the padding must be
 * fill only (nop of any length, int3), and the jmp goes at the last
 * instruction boundary that leaves it room before the function and no
 * lower than @lowest (a jmp rel8's reach).  So whatever enters the
 * padding at its start runs whole nops and then meets the whole jmp.
 * Returns the slot's offset in the padding, or -1 with the reason.
 */
static long insn_pad_slot(const uint8_t *pad, uint64_t len, uint64_t lowest, char *why,
			  size_t whylen)
{
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	long slot = -1;

	insn_decoder(&dec);
	for (uint64_t off = 0; off < len; off += in.length) {
		if (ZYAN_FAILED(
			    ZydisDecoderDecodeInstruction(&dec, NULL, pad + off, len - off, &in)) ||
		    (in.mnemonic != ZYDIS_MNEMONIC_NOP && in.mnemonic != ZYDIS_MNEMONIC_INT3)) {
			insn_say(why, whylen,
				 "the %llu bytes of padding before it are not all nop and int3",
				 (unsigned long long)len);
			return -1;
		}
		if (off >= lowest && off + INSN_PATCH_SIZE <= len)
			slot = (long)off;
	}
	if (slot < 0)
		insn_say(why, whylen,
			 "no instruction of the %llu bytes of padding before it starts within a "
			 "short jump's reach with room for a 5-byte jump",
			 (unsigned long long)len);
	return slot;
}

int insn_plan_patch_short(const uint8_t *code, uint64_t size, uint64_t addr, const uint8_t *pad,
			  uint64_t pad_len, struct insn_plan *plan, char *why, size_t whylen)
{
	uint64_t reach;
	long slot;

	if (pad_len < INSN_PATCH_SIZE) {
		insn_say(why, whylen,
			 "the padding before it is %llu bytes, less than a 5-byte jump",
			 (unsigned long long)pad_len);
		return -1;
	}
	if (insn_plan(code, size, addr, INSN_SHORT_SIZE, plan, why, whylen))
		return -1;
	/* the jmp rel8 at start reaches 128 bytes back from its end: this far before F */
	reach = 128 - INSN_SHORT_SIZE - plan->start;
	slot = insn_pad_slot(pad, pad_len, pad_len > reach ? pad_len - reach : 0, why, whylen);
	if (slot < 0)
		return -1;
	plan->pad_back = (uint32_t)(pad_len - (uint64_t)slot) + plan->start;
	return 0;
}

/* "a jump from memcpy+0x6" into @buf */
static const char *insn_jump_from(const struct functab *t, const struct functab_jump *j, char *buf,
				  size_t len)
{
	const struct functab_sym *s = functab_sym_holding(t, j->from);
	const struct functab_fde *f = functab_fde_holding(t, j->from);
	char name[300];

	if (s)
		snprintf(buf, len, "a jump from %s+0x%llx", functab_sym_name(s, name, sizeof(name)),
			 (unsigned long long)(j->from - s->value));
	else if (f)
		snprintf(buf, len, "a jump from 0x%llx+0x%llx", (unsigned long long)f->start,
			 (unsigned long long)(j->from - f->start));
	else
		snprintf(buf, len, "a jump from 0x%llx", (unsigned long long)j->from);
	return buf;
}

/*
 * The padding before the function at object offset @value that a short
 * patch may use: the bytes between the end of the code before it and the
 * function, which no symbol names and no jump lands in, and which a
 * fall-through out of that code enters at an instruction boundary (its
 * last instruction ends where the padding starts).  Its start in @pad,
 * its bytes in @bytes; 0, or -1 with the reason.
 */
static int insn_find_pad(const struct functab *t, uint64_t value, functab_code_fn bytes, void *arg,
			 uint64_t *pad, const uint8_t **code, char *why, size_t whylen)
{
	const struct functab_jump *j;
	uint64_t prev, end;
	const uint8_t *p;
	const char *label;
	char from[360];

	if (!functab_code_before(t, value, &prev, &end)) {
		insn_say(why, whylen,
			 "no function is known to end before it, where padding would be");
		return -1;
	}
	if ((label = functab_label_in(t, end, value))) {
		insn_say(why, whylen, "the symbol %s names the padding before it", label);
		return -1;
	}
	if (end && (j = functab_jump_into(t, end - 1, value))) {
		insn_say(why, whylen, "%s lands in the padding before it",
			 insn_jump_from(t, j, from, sizeof(from)));
		return -1;
	}
	p = bytes(prev, value - prev, arg);
	if (!p) {
		insn_say(why, whylen, "the code before it cannot be read");
		return -1;
	}
	if (!insn_decodes_to(p, end - prev)) {
		insn_say(why, whylen,
			 "the code before it does not decode to an instruction "
			 "ending where its padding starts");
		return -1;
	}
	*pad = end;
	*code = p + (end - prev);
	return 0;
}

int insn_plan_hook(const uint8_t *code, uint64_t size, uint64_t addr, uint64_t base,
		   const struct functab *table, functab_code_fn bytes, void *arg,
		   struct insn_plan *plan, char *why, size_t whylen)
{
	uint64_t value = addr - base, pad;
	const struct functab_jump *j;
	char jump[360], padwhy[300];
	struct insn_plan alt;
	const uint8_t *p;

	if (insn_plan_patch(code, size, addr, plan, why, whylen))
		return -1;
	if (!table || !(j = functab_jump_into(table, value + plan->start,
					      value + plan->start + plan->length)))
		return 0;
	/* another function jumps into the 5 bytes: a 2-byte jump to 5 in the padding */
	insn_jump_from(table, j, jump, sizeof(jump));
	if (insn_find_pad(table, value, bytes, arg, &pad, &p, padwhy, sizeof(padwhy)) ||
	    insn_plan_patch_short(code, size, addr, p, value - pad, &alt, padwhy, sizeof(padwhy))) {
		insn_say(why, whylen, "%s lands inside the patched bytes, and %s", jump, padwhy);
		return -1;
	}
	j = functab_jump_into(table, value + alt.start, value + alt.start + alt.length);
	if (j) {
		insn_say(why, whylen, "%s lands inside the patched bytes",
			 insn_jump_from(table, j, jump, sizeof(jump)));
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

int arch_plan_hook(const uint8_t *code, uint64_t size, uint64_t addr, uint64_t base,
		   const struct functab *table,
		   const uint8_t *(*bytes)(uint64_t start, uint64_t size, void *arg), void *arg,
		   struct arch_plan *plan, char *why, size_t whylen)
{
	if (insn_plan_hook(code, size, addr, base, table, bytes, arg, &plan->insn, why, whylen))
		return -EINVAL;
	return 0;
}

void arch_each_branch(const uint8_t *code, uint64_t size, uint64_t addr,
		      void (*fn)(uint64_t from, uint64_t target, void *arg), void *arg)
{
	insn_each_branch(code, size, addr, fn, arg);
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
