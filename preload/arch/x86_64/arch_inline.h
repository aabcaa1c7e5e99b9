/* SPDX-License-Identifier: MIT */
/*
 * arch_inline: the x86-64 part of the architecture boundary that the
 * evaluation path inlines (included by preload/arch/arch.h, found on the include
 * path that preload/meson.build sets for this folder).
 *
 * The reads around a function are ordered with the instructions around
 * them: rdtsc, rdpmc and the vDSO's clock are not, and an out-of-order core
 * would otherwise run part of the function before the first read or after
 * the second, and hide it (16 dependent multiplies read 0 ticks instead of
 * 23 on an AMD EPYC VM, docs/floors.md).  lfence waits for every instruction
 * before it to complete and starts none after it until then: on Intel by
 * definition, on AMD because Linux sets the MSR bit that makes it so (or
 * the CPU has it always, CPUID 0x80000021 EAX bit 2).
 *
 *   entry:  lfence; read ... the rest of the entry ... lfence; F
 *   exit:   F; lfence ... the start of the exit ... read
 *
 * The fences next to F are the thunks' (thunk.S) and the stubs' fast
 * path's (stub_fast.S); the C has only the one before the first read
 * (arch_fence).  (lfence; rdtsc; then F, is not enough on AMD: 16 dependent
 * multiplies then read 2 ticks.)
 */
#ifndef EXTPROF_PRELOAD_ARCH_INLINE_H
#define EXTPROF_PRELOAD_ARCH_INLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "stub_layout.h"

/* A function's patch, planned and with its stub built, not yet written. */
struct arch_hook {
	uint64_t at;	      /* the patch start (after endbr64) */
	uint32_t length;      /* bytes overwritten */
	uint64_t pad_at;      /* a short patch: where its jmp rel32 goes, before F; 0: none */
	uint8_t saved[32];    /* what the patch overwrote, for arch_unhook */
	uint8_t saved_pad[5]; /* and in the padding, for a short patch */
	void *entry;	      /* where the patched entry jumps: the stub's fast path, or its head */
	void *stub;	      /* the stub's head (stub_layout.h) */
	/* for the unwinder's rows of the stub (arch_stub_cfi) */
	uint32_t span;	      /* the stub's bytes from entry on */
	uint8_t nmoved;	      /* the function's instructions the stub holds, moved */
	bool moved_call;      /* the last of them a call, moved as a push and a jmp */
	uint16_t moved_at[9]; /* where each one's code starts, from the head; then the jmp back */
	int32_t moved_sp[8];  /* how each moves the stack pointer (INSN_SP_UNKNOWN: not known) */
};

/* The time stamp counter (the "tsc" counter): rdtsc. */
static inline uint64_t arch_read_timestamp(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Hardware counter @idx (perf_event_mmap_page's index - 1), read from user space: rdpmc. */
static inline uint64_t arch_read_pmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return ((uint64_t)hi << 32) | lo;
}

/* Every instruction before it has completed; none after it has started: lfence. */
static inline void arch_fence(void)
{
	__asm__ volatile("lfence" ::: "memory");
}

/* The thread pointer (%fs:0 holds its own address, as the TLS ABI says). */
static inline uint64_t arch_thread_pointer(void)
{
	uint64_t tp;

	__asm__("movq %%fs:0, %0" : "=r"(tp));
	return tp;
}

/* The 64-bit word at @tpoff from the thread pointer (a __thread variable). */
static inline uint64_t arch_read_tls_u64(int64_t tpoff)
{
	uint64_t v;

	__asm__ volatile("movq %%fs:(%1), %0" : "=r"(v) : "r"(tpoff));
	return v;
}

/* A three-argument system call without errno: the program's stays as it was. */
static inline long arch_syscall3_inline(long nr, long arg1, long arg2, long arg3)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(arg1), "S"(arg2), "d"(arg3)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The address in @stub (a stub's head) where the hooked function returns to it. */
static inline uint64_t arch_stub_return(const void *stub)
{
	return (uint64_t)stub + STUB_RET;
}

/* The address in @stub where its hooked function is called (after the entry thunk). */
static inline uint64_t arch_stub_call(const void *stub)
{
	return (uint64_t)stub + STUB_AFTER_ENTER;
}

#endif
