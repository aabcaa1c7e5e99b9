/* SPDX-License-Identifier: MIT */
/*
 * counter_read: one read of the chosen counter, inlined into the
 * evaluation path.  No vector registers, no locks; the PMU path follows the
 * perf_event_mmap_page sequence lock and falls back to read(2) when the
 * event is not scheduled (index 0) or rdpmc is not allowed.
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
 * The first read waits for everything before it; F starts only once the
 * hook's entry is done and ends before its exit starts, so that what of the
 * hook lies between the reads runs alone, the same whatever F does (that is
 * the calibration).  The fences next to F are the thunks' (thunk.S) and the
 * stubs' fast path's; the C here has only the one before the first read.
 * (lfence; rdtsc; then F, is not enough on AMD: 16 dependent multiplies
 * then read 2 ticks.)  The hook's own work is not fenced from its caller's:
 * fencing it costs 10 ns more a call, and makes a caller whose work
 * overlaps its calls read higher, not truer (docs/floors.md).  var: needs
 * no fence at all: the program's own stores to its variable are seen in
 * program order.
 * EXTPROF_COUNTER=tsc-unordered reads the TSC without fences, as before.
 */
#ifndef EXTPROF_PRELOAD_COUNTER_READ_H
#define EXTPROF_PRELOAD_COUNTER_READ_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#include "shim.h"

static inline uint64_t counter_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t counter_read_tls_var(int64_t tpoff)
{
	uint64_t v;

	__asm__ volatile("movq %%fs:(%1), %0" : "=r"(v) : "r"(tpoff));
	return v;
}

static inline uint64_t counter_read_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t counter_rdpmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return ((uint64_t)hi << 32) | lo;
}

/* read(2) without libc: errno must come out as the program left it. */
static inline uint64_t counter_sys_read(int fd)
{
	uint64_t v = 0;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(&v), "d"(sizeof(v))
			 : "rcx", "r11", "memory");
	return ret == (long)sizeof(v) ? v : 0;
}

/* The kernel's recipe (linux/perf_event.h, struct perf_event_mmap_page). */
static inline uint64_t counter_read_pmu(const struct xp_thread *t)
{
	const volatile struct perf_event_mmap_page *pc = t->pmu_page;
	uint64_t count = 0;
	uint32_t seq, idx;

	if (!pc)
		return 0;
	do {
		seq = pc->lock;
		__asm__ volatile("" ::: "memory");
		idx = pc->index;
		count = (uint64_t)pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			uint16_t width = pc->pmc_width;
			int64_t pmc = (int64_t)counter_rdpmc(idx - 1);

			pmc <<= 64 - width;
			pmc >>= 64 - width;
			count += (uint64_t)pmc;
		} else {
			return counter_sys_read(t->pmu_fd);
		}
		__asm__ volatile("" ::: "memory");
	} while (pc->lock != seq);
	return count;
}

/* Every instruction before it has completed; none after it has started. */
static inline void counter_fence(void)
{
	__asm__ volatile("lfence" ::: "memory");
}

static inline uint64_t counter_read_inline(void)
{
	switch (xp.counter.kind) {
	case EXTPROF_COUNTER_TSC:
		return counter_rdtsc();
	case EXTPROF_COUNTER_VAR:
		if (xp.counter.var_tls)
			return counter_read_tls_var(xp.counter.var_tpoff);
		return *(volatile uint64_t *)xp.counter.var_addr;
	case EXTPROF_COUNTER_NS:
		return counter_read_ns();
	case EXTPROF_COUNTER_INSTRUCTIONS:
	case EXTPROF_COUNTER_CYCLES:
		return counter_read_pmu(&xp_self);
	case EXTPROF_COUNTER_STEPS:
		/* the instructions the SIGTRAP handler counted on this thread (step.c) */
		return xp_self.step.count;
	default:
		return 0;
	}
}

/*
 * A read once every instruction before it is done: an activation's first
 * (its last before F; the thunk fences F from what follows), and the two
 * around the libunwind walk.  An activation's second read is a plain
 * counter_read_inline() after the thunk's fence.
 */
static inline uint64_t counter_read_ordered(void)
{
	if (xp.ordered)
		counter_fence();
	return counter_read_inline();
}

#endif
