// SPDX-License-Identifier: MIT
/*
 * xlate_guard: what the program does to code the caches may hold
 * translations of, and to its own stack, seen through the calls it makes.
 *
 *   mprotect(PROT_WRITE) of code   the range is tainted (never translated
 *                                  again: the program may write it), every
 *                                  cache flushed at its thread's next dispatch
 *   munmap of code, dlclose        the mappings read again, the same flush
 *   swapcontext, setcontext        a stack switch: the session in progress
 *                                  ends, its evaluations not counted whole,
 *                                  and the switch runs natively
 *
 * "Flushed at the next dispatch": the code epoch moves, and every thread's
 * lookup table is emptied, so that each goes through its dispatcher at its
 * next indirect branch or return, and flushes there, where none of its
 * translated code runs.  Calls inside libc (the loader's own munmap) and raw
 * system calls are not seen: dlclose covers the loader's; docs/limits.md
 * says the rest.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/interpose.h"
#include "core/state.h"
#include "steps/state.h"
#include "steps/xlate.h"

#define XP_EXPORT __attribute__((visibility("default")))

enum { XG_MPROTECT, XG_MUNMAP, XG_DLCLOSE, XG_SWAPCONTEXT, XG_SETCONTEXT, XG_N };
static const char *const xg_names[XG_N] = {"mprotect", "munmap", "dlclose", "swapcontext",
					   "setcontext"};
static void *xg_cache[XG_N];
static const struct interpose_table xg_reals = {xg_names, xg_cache, XG_N};

__attribute__((constructor(101))) static void xg_resolve(void)
{
	interpose_resolve(&xg_reals);
}

/* Code changed: every cache is flushed by its thread, at its next dispatch. */
static void xg_changed(void)
{
	__atomic_add_fetch(&xl_code_epoch, 1, __ATOMIC_ACQ_REL);
	xlate_cache_clear_tables();
}

/* Whether the translation engine counts, and the call is the program's. */
static bool xg_program(void)
{
	return __atomic_load_n(&xl_on, __ATOMIC_ACQUIRE) && xp.enabled && !xp_self.busy;
}

/* The pages of [@addr, @addr + @len). */
static void xg_pages(const void *addr, size_t len, uint64_t *lo, uint64_t *hi)
{
	uint64_t page = (uint64_t)getpagesize();

	*lo = (uint64_t)addr & ~(page - 1);
	*hi = ((uint64_t)addr + len + page - 1) & ~(page - 1);
}

XP_EXPORT int mprotect(void *addr, size_t len, int prot)
{
	int (*real)(void *, size_t, int) = (int (*)(void *, size_t, int))xg_cache[XG_MPROTECT];
	uint64_t lo, hi;

	xg_pages(addr, len, &lo, &hi);
	/*
	 * Tainted first: no translation is made of what it is about to write.
	 * The shim's own patching (hooks installed, a dlopen's) is not the
	 * program's: its patched entries are translated as such.
	 */
	if (xg_program() && (prot & PROT_WRITE) && xlate_code_overlaps(lo, hi)) {
		xlate_code_taint(lo, hi);
		xg_changed();
	}
	return real(addr, len, prot);
}

XP_EXPORT int munmap(void *addr, size_t len)
{
	int (*real)(void *, size_t) = (int (*)(void *, size_t))xg_cache[XG_MUNMAP];
	uint64_t lo, hi;
	bool code;
	int ret;

	xg_pages(addr, len, &lo, &hi);
	code = xg_program() && xlate_code_overlaps(lo, hi);
	ret = real(addr, len);
	if (code) {
		/* under a seccomp filter the mappings are not read again: the range is left */
		if (__atomic_load_n(&xp.sandboxed, __ATOMIC_ACQUIRE))
			xlate_code_taint(lo, hi);
		xlate_code_refresh();
		xg_changed();
	}
	return ret;
}

XP_EXPORT int dlclose(void *handle)
{
	int (*real)(void *) = (int (*)(void *))interpose_real(&xg_reals, XG_DLCLOSE);
	int ret = real(handle);

	if (xl_on) {
		xlate_code_refresh();
		xg_changed();
	}
	return ret;
}

/*
 * A translated call of this function is made natively (arch_xl_translate
 * knows its address): the caller goes on natively after it returns.
 */
__attribute__((noinline)) void xlate_leave(void)
{
	__asm__ volatile("" ::: "memory");
}

/* A stack switch: the session ends, not whole, and the switch runs natively. */
static void xg_switch(void)
{
	struct xp_thread *t = &xp_self;

	if (!xl_on || !t->step.depth)
		return;
	for (uint32_t i = t->step.depth - 1; t->stack && i < t->depth; i++)
		t->stack[i].flags &= ~XP_FRAME_STEPPED;
	xlate_end(t);
	xlate_leave();
	/* a call, not a tail jump: the translator knows calls of xlate_leave only */
	__asm__ volatile("" ::: "memory");
}

XP_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	int (*real)(ucontext_t *, const ucontext_t *) =
		(int (*)(ucontext_t *, const ucontext_t *))xg_cache[XG_SWAPCONTEXT];

	xg_switch();
	return real(oucp, ucp);
}

XP_EXPORT int setcontext(const ucontext_t *ucp)
{
	int (*real)(const ucontext_t *) = (int (*)(const ucontext_t *))xg_cache[XG_SETCONTEXT];

	xg_switch();
	return real(ucp);
}
