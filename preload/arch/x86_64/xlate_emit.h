/* SPDX-License-Identifier: MIT */
/*
 * xlate_emit: the x86-64 instructions the code cache writes, byte by byte
 * (xlate_block.c, xlate_routines.c).  Code is written in place, at the
 * address it runs from: a cursor is that address.  Thread-local slots are
 * reached as %fs:disp32, the slot's offset from the thread pointer (the
 * shim's TLS is initial-exec: the same offset in every thread).  None of
 * these writes the arithmetic flags but xe_add_fs_imm.
 */
#ifndef EXTPROF_ARCH_X86_64_XLATE_EMIT_H
#define EXTPROF_ARCH_X86_64_XLATE_EMIT_H

#include <stdint.h>
#include <string.h>

enum {
	XR_RAX,
	XR_RCX,
	XR_RDX,
	XR_RBX,
	XR_RSP,
	XR_RBP,
	XR_RSI,
	XR_RDI,
};

static inline uint8_t *xe_u8(uint8_t *p, uint8_t v)
{
	*p = v;
	return p + 1;
}

/* @n bytes of an instruction written out whole ("\x48\x8d\x0c\x09": lea (%rcx,%rcx),%rcx) */
static inline uint8_t *xe_bytes(uint8_t *p, const char *bytes, size_t n)
{
	memcpy(p, bytes, n);
	return p + n;
}

static inline uint8_t *xe_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static inline uint8_t *xe_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

/* The disp32 of a rel32 branch at @p (its last 4 bytes end at @end) aimed at @to. */
static inline int xe_rel32_ok(const uint8_t *end, uint64_t to)
{
	int64_t d = (int64_t)(to - (uint64_t)end);

	return d == (int32_t)d;
}

static inline void xe_set_rel32(uint8_t *field, uint64_t to)
{
	int32_t d = (int32_t)(int64_t)(to - ((uint64_t)field + 4));

	memcpy(field, &d, 4);
}

/* The ModRM and SIB of %fs:disp32 (no base, no index), with @reg in ModRM.reg. */
static inline uint8_t *xe_fs_abs(uint8_t *p, int reg, int32_t off)
{
	p = xe_u8(p, (uint8_t)(0x04 | ((reg & 7) << 3)));
	p = xe_u8(p, 0x25);
	return xe_u32(p, (uint32_t)off);
}

/* mov %reg, %fs:off */
static inline uint8_t *xe_store_fs(uint8_t *p, int reg, int32_t off)
{
	p = xe_u8(p, 0x64);
	p = xe_u8(p, (uint8_t)(0x48 | (reg >= 8 ? 4 : 0)));
	p = xe_u8(p, 0x89);
	return xe_fs_abs(p, reg, off);
}

/* mov %fs:off, %reg */
static inline uint8_t *xe_load_fs(uint8_t *p, int reg, int32_t off)
{
	p = xe_u8(p, 0x64);
	p = xe_u8(p, (uint8_t)(0x48 | (reg >= 8 ? 4 : 0)));
	p = xe_u8(p, 0x8b);
	return xe_fs_abs(p, reg, off);
}

/* movq $imm32 (sign-extended), %fs:off */
static inline uint8_t *xe_store_fs_imm(uint8_t *p, int32_t off, int32_t imm)
{
	p = xe_u8(p, 0x64);
	p = xe_u8(p, 0x48);
	p = xe_u8(p, 0xc7);
	p = xe_fs_abs(p, 0, off);
	return xe_u32(p, (uint32_t)imm);
}

/* addq $n, %fs:off: the one instruction here that writes the flags */
static inline uint8_t *xe_add_fs_imm(uint8_t *p, int32_t off, uint32_t n)
{
	p = xe_u8(p, 0x64);
	p = xe_u8(p, 0x48);
	p = xe_u8(p, n < 128 ? 0x83 : 0x81);
	p = xe_fs_abs(p, 0, off);
	return n < 128 ? xe_u8(p, (uint8_t)n) : xe_u32(p, n);
}

/* popq %fs:off */
static inline uint8_t *xe_pop_fs(uint8_t *p, int32_t off)
{
	p = xe_u8(p, 0x64);
	p = xe_u8(p, 0x8f);
	return xe_fs_abs(p, 0, off);
}

/* jmp *%fs:off */
static inline uint8_t *xe_jmp_fs(uint8_t *p, int32_t off)
{
	p = xe_u8(p, 0x64);
	p = xe_u8(p, 0xff);
	return xe_fs_abs(p, 4, off);
}

/* pushq lit(%rip): @lit is where the 8 bytes will be; the field is returned in @field */
static inline uint8_t *xe_push_rip(uint8_t *p, uint8_t **field)
{
	p = xe_u8(p, 0xff);
	p = xe_u8(p, 0x35);
	*field = p;
	return xe_u32(p, 0);
}

/* call *lit(%rip) */
static inline uint8_t *xe_call_rip(uint8_t *p, uint8_t **field)
{
	p = xe_u8(p, 0xff);
	p = xe_u8(p, 0x15);
	*field = p;
	return xe_u32(p, 0);
}

/* jmp *0(%rip); .quad @to: 14 bytes that reach anywhere */
static inline uint8_t *xe_jmp_abs(uint8_t *p, uint64_t to)
{
	p = xe_u8(p, 0xff);
	p = xe_u8(p, 0x25);
	p = xe_u32(p, 0);
	return xe_u64(p, to);
}

/* jmp rel32 to @to, or jmp *0(%rip) when it is out of reach */
static inline uint8_t *xe_jmp(uint8_t *p, uint64_t to)
{
	if (xe_rel32_ok(p + 5, to)) {
		p = xe_u8(p, 0xe9);
		xe_set_rel32(p, to);
		return p + 4;
	}
	return xe_jmp_abs(p, to);
}

/* jmp rel32, its field left to fill: returned in @field */
static inline uint8_t *xe_jmp32(uint8_t *p, uint8_t **field)
{
	p = xe_u8(p, 0xe9);
	*field = p;
	return xe_u32(p, 0);
}

/* jcc rel32 (condition @cc, the low nibble of the opcode), its field left to fill */
static inline uint8_t *xe_jcc32(uint8_t *p, unsigned cc, uint8_t **field)
{
	p = xe_u8(p, 0x0f);
	p = xe_u8(p, (uint8_t)(0x80 | (cc & 15)));
	*field = p;
	return xe_u32(p, 0);
}

/* lea d(%rsp), %rsp */
static inline uint8_t *xe_lea_rsp(uint8_t *p, int32_t d)
{
	p = xe_u8(p, 0x48);
	p = xe_u8(p, 0x8d);
	if (d == (int8_t)d) {
		p = xe_u8(p, 0x64);
		p = xe_u8(p, 0x24);
		return xe_u8(p, (uint8_t)d);
	}
	p = xe_u8(p, 0xa4);
	p = xe_u8(p, 0x24);
	return xe_u32(p, (uint32_t)d);
}

/* movabs $v, %reg (rax..rdi) */
static inline uint8_t *xe_movabs(uint8_t *p, int reg, uint64_t v)
{
	p = xe_u8(p, 0x48);
	p = xe_u8(p, (uint8_t)(0xb8 + reg));
	return xe_u64(p, v);
}

/* mov %src, %dst (rax..rdi) */
static inline uint8_t *xe_mov_rr(uint8_t *p, int dst, int src)
{
	p = xe_u8(p, 0x48);
	p = xe_u8(p, 0x89);
	return xe_u8(p, (uint8_t)(0xc0 | (src << 3) | dst));
}

/* mov $imm32, %e<reg> (zero-extended) */
static inline uint8_t *xe_mov_imm32(uint8_t *p, int reg, uint32_t v)
{
	p = xe_u8(p, (uint8_t)(0xb8 + reg));
	return xe_u32(p, v);
}

/* lea d(%reg), %reg (rax..rdi, not rsp) */
static inline uint8_t *xe_lea_self(uint8_t *p, int reg, int32_t d)
{
	p = xe_u8(p, 0x48);
	p = xe_u8(p, 0x8d);
	if (d == (int8_t)d) {
		p = xe_u8(p, (uint8_t)(0x40 | (reg << 3) | reg));
		return xe_u8(p, (uint8_t)d);
	}
	p = xe_u8(p, (uint8_t)(0x80 | (reg << 3) | reg));
	return xe_u32(p, (uint32_t)d);
}

/* jrcxz rel8 */
static inline uint8_t *xe_jrcxz(uint8_t *p, int8_t rel)
{
	p = xe_u8(p, 0xe3);
	return xe_u8(p, (uint8_t)rel);
}

/* jmp *%reg (rax..rdi) */
static inline uint8_t *xe_jmp_reg(uint8_t *p, int reg)
{
	p = xe_u8(p, 0xff);
	return xe_u8(p, (uint8_t)(0xe0 | reg));
}

#endif
