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

static inline uint8_t *xe_u8(uint8_t *cursor, uint8_t value)
{
	*cursor = value;
	return cursor + 1;
}

/* @len bytes of an instruction written out whole ("\x48\x8d\x0c\x09": lea (%rcx,%rcx),%rcx) */
static inline uint8_t *xe_bytes(uint8_t *cursor, const char *bytes, size_t len)
{
	memcpy(cursor, bytes, len);
	return cursor + len;
}

static inline uint8_t *xe_u32(uint8_t *cursor, uint32_t value)
{
	memcpy(cursor, &value, 4);
	return cursor + 4;
}

static inline uint8_t *xe_u64(uint8_t *cursor, uint64_t value)
{
	memcpy(cursor, &value, 8);
	return cursor + 8;
}

/* Whether a rel32 branch whose disp32 ends at @end reaches @to. */
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
static inline uint8_t *xe_fs_abs(uint8_t *cursor, int reg, int32_t off)
{
	cursor = xe_u8(cursor, (uint8_t)(0x04 | ((reg & 7) << 3)));
	cursor = xe_u8(cursor, 0x25);
	return xe_u32(cursor, (uint32_t)off);
}

/* mov %reg, %fs:off */
static inline uint8_t *xe_store_fs(uint8_t *cursor, int reg, int32_t off)
{
	cursor = xe_u8(cursor, 0x64);
	cursor = xe_u8(cursor, (uint8_t)(0x48 | (reg >= 8 ? 4 : 0)));
	cursor = xe_u8(cursor, 0x89);
	return xe_fs_abs(cursor, reg, off);
}

/* mov %fs:off, %reg */
static inline uint8_t *xe_load_fs(uint8_t *cursor, int reg, int32_t off)
{
	cursor = xe_u8(cursor, 0x64);
	cursor = xe_u8(cursor, (uint8_t)(0x48 | (reg >= 8 ? 4 : 0)));
	cursor = xe_u8(cursor, 0x8b);
	return xe_fs_abs(cursor, reg, off);
}

/* movq $imm32 (sign-extended), %fs:off */
static inline uint8_t *xe_store_fs_imm(uint8_t *cursor, int32_t off, int32_t imm)
{
	cursor = xe_u8(cursor, 0x64);
	cursor = xe_u8(cursor, 0x48);
	cursor = xe_u8(cursor, 0xc7);
	cursor = xe_fs_abs(cursor, 0, off);
	return xe_u32(cursor, (uint32_t)imm);
}

/* addq $addend, %fs:off: the one instruction here that writes the flags */
static inline uint8_t *xe_add_fs_imm(uint8_t *cursor, int32_t off, uint32_t addend)
{
	cursor = xe_u8(cursor, 0x64);
	cursor = xe_u8(cursor, 0x48);
	cursor = xe_u8(cursor, addend < 128 ? 0x83 : 0x81);
	cursor = xe_fs_abs(cursor, 0, off);
	return addend < 128 ? xe_u8(cursor, (uint8_t)addend) : xe_u32(cursor, addend);
}

/* popq %fs:off */
static inline uint8_t *xe_pop_fs(uint8_t *cursor, int32_t off)
{
	cursor = xe_u8(cursor, 0x64);
	cursor = xe_u8(cursor, 0x8f);
	return xe_fs_abs(cursor, 0, off);
}

/* jmp *%fs:off */
static inline uint8_t *xe_jmp_fs(uint8_t *cursor, int32_t off)
{
	cursor = xe_u8(cursor, 0x64);
	cursor = xe_u8(cursor, 0xff);
	return xe_fs_abs(cursor, 4, off);
}

/* pushq lit(%rip): @lit is where the 8 bytes will be; the field is returned in @field */
static inline uint8_t *xe_push_rip(uint8_t *cursor, uint8_t **field)
{
	cursor = xe_u8(cursor, 0xff);
	cursor = xe_u8(cursor, 0x35);
	*field = cursor;
	return xe_u32(cursor, 0);
}

/* call *lit(%rip) */
static inline uint8_t *xe_call_rip(uint8_t *cursor, uint8_t **field)
{
	cursor = xe_u8(cursor, 0xff);
	cursor = xe_u8(cursor, 0x15);
	*field = cursor;
	return xe_u32(cursor, 0);
}

/* jmp *0(%rip); .quad @to: 14 bytes that reach anywhere */
static inline uint8_t *xe_jmp_abs(uint8_t *cursor, uint64_t to)
{
	cursor = xe_u8(cursor, 0xff);
	cursor = xe_u8(cursor, 0x25);
	cursor = xe_u32(cursor, 0);
	return xe_u64(cursor, to);
}

/* jmp rel32 to @to, or jmp *0(%rip) when it is out of reach */
static inline uint8_t *xe_jmp(uint8_t *cursor, uint64_t to)
{
	if (xe_rel32_ok(cursor + 5, to)) {
		cursor = xe_u8(cursor, 0xe9);
		xe_set_rel32(cursor, to);
		return cursor + 4;
	}
	return xe_jmp_abs(cursor, to);
}

/* jmp rel32, its field left to fill: returned in @field */
static inline uint8_t *xe_jmp32(uint8_t *cursor, uint8_t **field)
{
	cursor = xe_u8(cursor, 0xe9);
	*field = cursor;
	return xe_u32(cursor, 0);
}

/* jcc rel32 (condition @cond, the low nibble of the opcode), its field left to fill */
static inline uint8_t *xe_jcc32(uint8_t *cursor, unsigned cond, uint8_t **field)
{
	cursor = xe_u8(cursor, 0x0f);
	cursor = xe_u8(cursor, (uint8_t)(0x80 | (cond & 15)));
	*field = cursor;
	return xe_u32(cursor, 0);
}

/* lea disp(%rsp), %rsp */
static inline uint8_t *xe_lea_rsp(uint8_t *cursor, int32_t disp)
{
	cursor = xe_u8(cursor, 0x48);
	cursor = xe_u8(cursor, 0x8d);
	if (disp == (int8_t)disp) {
		cursor = xe_u8(cursor, 0x64);
		cursor = xe_u8(cursor, 0x24);
		return xe_u8(cursor, (uint8_t)disp);
	}
	cursor = xe_u8(cursor, 0xa4);
	cursor = xe_u8(cursor, 0x24);
	return xe_u32(cursor, (uint32_t)disp);
}

/* movabs $value, %reg (rax..rdi) */
static inline uint8_t *xe_movabs(uint8_t *cursor, int reg, uint64_t value)
{
	cursor = xe_u8(cursor, 0x48);
	cursor = xe_u8(cursor, (uint8_t)(0xb8 + reg));
	return xe_u64(cursor, value);
}

/* mov %src, %dst (rax..rdi) */
static inline uint8_t *xe_mov_rr(uint8_t *cursor, int dst, int src)
{
	cursor = xe_u8(cursor, 0x48);
	cursor = xe_u8(cursor, 0x89);
	return xe_u8(cursor, (uint8_t)(0xc0 | (src << 3) | dst));
}

/* mov $imm32, %e<reg> (zero-extended) */
static inline uint8_t *xe_mov_imm32(uint8_t *cursor, int reg, uint32_t value)
{
	cursor = xe_u8(cursor, (uint8_t)(0xb8 + reg));
	return xe_u32(cursor, value);
}

/* lea disp(%reg), %reg (rax..rdi, not rsp) */
static inline uint8_t *xe_lea_self(uint8_t *cursor, int reg, int32_t disp)
{
	cursor = xe_u8(cursor, 0x48);
	cursor = xe_u8(cursor, 0x8d);
	if (disp == (int8_t)disp) {
		cursor = xe_u8(cursor, (uint8_t)(0x40 | (reg << 3) | reg));
		return xe_u8(cursor, (uint8_t)disp);
	}
	cursor = xe_u8(cursor, (uint8_t)(0x80 | (reg << 3) | reg));
	return xe_u32(cursor, (uint32_t)disp);
}

/* jrcxz rel8 */
static inline uint8_t *xe_jrcxz(uint8_t *cursor, int8_t rel)
{
	cursor = xe_u8(cursor, 0xe3);
	return xe_u8(cursor, (uint8_t)rel);
}

/* jmp *%reg (rax..rdi) */
static inline uint8_t *xe_jmp_reg(uint8_t *cursor, int reg)
{
	cursor = xe_u8(cursor, 0xff);
	return xe_u8(cursor, (uint8_t)(0xe0 | reg));
}

#endif
