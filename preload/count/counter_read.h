/* SPDX-License-Identifier: MIT */
/*
 * counter_read: one read of the chosen counter, inlined into the
 * evaluation path.  No vector registers, no locks; the PMU path follows the
 * perf_event_mmap_page sequence lock and falls back to read(2) when the
 * event is not scheduled (index 0) or user space may not read it.
 *
 * The reads around a function are ordered with the instructions around
 * them: the CPU's counters and the vDSO's clock are not, and an
 * out-of-order core would otherwise run part of the function before the
 * first read or after the second, and hide it (docs/floors.md).  A fence
 * (arch_fence) waits for every instruction before it to complete and
 * starts none after it until then; the architecture's folder says which
 * instruction that is, and why it is enough there.
 *
 *   entry:  fence; read ... the rest of the entry ... fence; F
 *   exit:   F; fence ... the start of the exit ... read
 *
 * The first read waits for everything before it; F starts only once the
 * hook's entry is done and ends before its exit starts, so that what of the
 * hook lies between the reads runs alone, the same whatever F does (that is
 * the calibration).  The fences next to F are the thunks' and the stubs'
 * fast path's; the C here has only the one before the first read.  The
 * hook's own work is not fenced from its caller's: fencing it costs 10 ns
 * more a call, and makes a caller whose work overlaps its calls read
 * higher, not truer (docs/floors.md).  var: needs no fence at all: the
 * program's own stores to its variable are seen in program order.
 * EXTPROF_COUNTER=tsc-unordered reads the TSC without fences, as before.
 */
#ifndef EXTPROF_PRELOAD_COUNTER_READ_H
#define EXTPROF_PRELOAD_COUNTER_READ_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#include "arch/arch.h"
#include "core/state.h"

/* CLOCK_MONOTONIC in nanoseconds, through the vDSO (the "ns" counter). */
static inline uint64_t counter_read_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* read(2) without libc: errno must come out as the program left it. */
static inline uint64_t counter_sys_read(int fd)
{
	uint64_t v = 0;
	long ret = arch_syscall3_inline(SYS_read, fd, (long)&v, sizeof(v));

	return ret == (long)sizeof(v) ? v : 0;
}

/* The kernel's recipe (linux/perf_event.h, struct perf_event_mmap_page). */
static inline uint64_t counter_read_pmu(const struct xp_thread *thread)
{
	const volatile struct perf_event_mmap_page *pc = thread->pmu_page;
	uint64_t count = 0;
	uint32_t seq, idx;

	if (!pc)
		return 0;
	do {
		seq = pc->lock;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		idx = pc->index;
		count = (uint64_t)pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			uint16_t width = pc->pmc_width;
			int64_t pmc = (int64_t)arch_read_pmc(idx - 1);

			pmc <<= 64 - width;
			pmc >>= 64 - width;
			count += (uint64_t)pmc;
		} else {
			return counter_sys_read(thread->pmu_fd);
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (pc->lock != seq);
	return count;
}

/* One read of the chosen counter (xp.counter) on @thread, the caller's own state. */
static inline uint64_t counter_read_of(const struct xp_thread *thread)
{
	switch (xp.counter.kind) {
	case EXTPROF_COUNTER_TSC:
		return arch_read_timestamp();
	case EXTPROF_COUNTER_VAR:
		if (xp.counter.var_tls)
			return arch_read_tls_u64(xp.counter.var_tpoff);
		return *(volatile uint64_t *)xp.counter.var_addr;
	case EXTPROF_COUNTER_NS:
		return counter_read_ns();
	case EXTPROF_COUNTER_INSTRUCTIONS:
	case EXTPROF_COUNTER_CYCLES:
		return counter_read_pmu(thread);
	case EXTPROF_COUNTER_STEPS:
		/* what this thread ran: the code cache's blocks or the SIGTRAP handler (step.c) */
		return thread->step.count;
	default:
		return 0;
	}
}

/* Whether each thread has a count of its own (a PMU's, steps'), not a clock or a variable. */
static inline bool counter_per_thread(void)
{
	return xp.counter.kind == EXTPROF_COUNTER_INSTRUCTIONS ||
	       xp.counter.kind == EXTPROF_COUNTER_CYCLES ||
	       xp.counter.kind == EXTPROF_COUNTER_STEPS;
}

/* The same on xp_self's block, the calling thread's unless it is shared (clone.c). */
static inline uint64_t counter_read_inline(void)
{
	return counter_read_of(&xp_self);
}

/*
 * A read once every instruction before it is done: an activation's first
 * (its last before F; the thunk fences F from what follows), and the two
 * around the libunwind walk.  An activation's second read is a plain
 * counter_read_inline() after the thunk's fence.
 */
static inline uint64_t counter_read_ordered(const struct xp_thread *thread)
{
	if (xp.ordered)
		arch_fence();
	return counter_read_of(thread);
}

#endif
