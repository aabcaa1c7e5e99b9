/* SPDX-License-Identifier: MIT */
/* arch: what the rest of the shim asks of the architecture code (arch/x86_64/). */
#ifndef EXTPROF_PRELOAD_ARCH_H
#define EXTPROF_PRELOAD_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A function's patch, planned and with its stub built, not yet written. */
struct arch_hook {
	uint64_t at;	 /* the patch start (after endbr64) */
	uint32_t length; /* bytes overwritten */
	void *entry;	 /* where the patched entry jumps: the stub's fast path, or its head */
	void *stub;	 /* the stub's head (stub_layout.h) */
};

/*
 * Plan the patch of the function at @addr (@size bytes, from its symbol) so
 * that every call goes through a stub with @idx baked in.  Returns 0, or
 * -errno with the reason, one short phrase, in @why.
 */
int arch_prepare_hook(uint64_t addr, uint64_t size, uint32_t idx, struct arch_hook *h, char *why,
		      size_t whylen);
int arch_commit_hook(const struct arch_hook *h, char *why, size_t whylen);

/*
 * A stub for one of the shim's own functions, not patched: for calibration.
 * Call @entry; @stub is its head.
 */
int arch_make_stub(uint64_t fn, uint32_t idx, void **entry, void **stub);

/* Stubs made from now on attribute callers (EXTPROF_CALLERS). */
void arch_use_callers_thunk(void);

/*
 * Stubs made from now on carry the fast path for counter @c, if it has one
 * and there are neither callers nor a window (stub_fast.c).
 */
struct xp_counter;
void arch_choose_fast_path(const struct xp_counter *c, bool callers, bool window);

/* Make every stub page read+execute only. */
void arch_seal_code(void);

/* Size of the extended state xp_call_preserving() saves (CPUID 0xd). */
void arch_probe_xsave(void);

#endif
