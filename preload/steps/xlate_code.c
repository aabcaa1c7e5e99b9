// SPDX-License-Identifier: MIT
/*
 * xlate_code: which code the code cache may translate, and how it counts.
 *
 *   the stubs' pages (arch_code_owns)       a stub: what its steps list says
 *   the shim's own text                     nothing
 *   a file's executable mapping, read-only  the program's: each instruction
 *     (or the vDSO), never made writable
 *   anything else: anonymous (a JIT),       not translated: it runs natively
 *     writable, changed since, memfd
 *
 * The process's executable mappings are read from /proc/self/maps (maps.c,
 * no malloc, no lock): at start-up, then again when a dispatcher meets an
 * address in none of them (an object loaded since) and after a dlclose.
 * Two copies, each with a sequence count: a reader never waits, and reads
 * again if the copy changed under it; one writer at a time, and a thread
 * that finds the writing taken does not wait either (the code it asked for
 * runs natively).  Code the program makes writable (mprotect, xlate_guard.c)
 * is tainted: never translated again.  Under a seccomp filter (sandbox.c)
 * the mappings are not read again: what they did not hold runs natively.
 */
#include <string.h>

#include "arch/arch.h"
#include "core/maps.h"
#include "core/state.h"
#include "steps/step.h"
#include "steps/state.h"
#include "steps/xlate.h"

#define XM_MAX	 4096 /* executable mappings kept */
#define XM_TAINT 64

struct xm_range {
	uint64_t lo, hi;
	uint32_t kind; /* enum xl_code: PROGRAM or NONE */
};

struct xm_snap {
	uint32_t seq; /* odd while written */
	uint32_t n;
	struct xm_range r[XM_MAX];
};

static struct xm_snap xm_snap[2];
static int xm_cur;
static int xm_writing;
static uint64_t xm_gen; /* times the mappings were read */

static struct {
	uint64_t lo, hi;
	uint32_t valid; /* written whole */
} xm_taint[XM_TAINT];
static uint32_t xm_ntaint; /* slots claimed */
static bool xm_taint_all;

static int xm_visit(const struct maps_entry *e, void *arg)
{
	struct xm_snap *s = arg;
	struct xm_range *r;
	bool file;

	if (e->perms[2] != 'x' || s->n == XM_MAX)
		return 0;
	r = &s->r[s->n++];
	r->lo = e->start;
	r->hi = e->end;
	file = e->path[0] == '/' && strncmp(e->path, "/memfd:", 7) != 0;
	r->kind = (e->perms[0] == 'r' && e->perms[1] != 'w' && (file || !strcmp(e->path, "[vdso]")))
			  ? XL_CODE_PROGRAM
			  : XL_CODE_NONE;
	return 0;
}

void xlate_code_refresh(void)
{
	struct xm_snap *s;
	char line[512];
	int idle = 0;

	/* under a seccomp filter, no system call: objects loaded since run natively */
	if (__atomic_load_n(&xp.sandboxed, __ATOMIC_ACQUIRE))
		return;
	if (!__atomic_compare_exchange_n(&xm_writing, &idle, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	s = &xm_snap[1 - __atomic_load_n(&xm_cur, __ATOMIC_ACQUIRE)];
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s->n = 0;
	if (maps_each("/proc/self/maps", line, sizeof(line), xm_visit, s) < 0)
		s->n = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&xm_cur, (int)(s - xm_snap), __ATOMIC_RELEASE);
	__atomic_add_fetch(&xm_gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&xm_writing, 0, __ATOMIC_RELEASE);
}

void xlate_code_each(void (*fn)(uint64_t lo, uint64_t hi, void *arg), void *arg)
{
	const struct xm_snap *s = &xm_snap[__atomic_load_n(&xm_cur, __ATOMIC_ACQUIRE)];
	uint32_t n = s->n < XM_MAX ? s->n : XM_MAX;

	for (uint32_t i = 0; i < n; i++)
		if (s->r[i].kind == XL_CODE_PROGRAM)
			fn(s->r[i].lo, s->r[i].hi, arg);
	fn(step_text_lo, step_text_hi, arg);
}

/* The mapping that holds @pc in the current copy: its kind and end; 0: none (or torn). */
static bool xm_find(uint64_t pc, struct xm_range *out)
{
	for (int tries = 0; tries < 4; tries++) {
		const struct xm_snap *s = &xm_snap[__atomic_load_n(&xm_cur, __ATOMIC_ACQUIRE)];
		uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE), lo = 0, hi, n;
		bool found = false;

		if (seq & 1)
			continue;
		n = s->n < XM_MAX ? s->n : XM_MAX;
		hi = n;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (s->r[mid].hi <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && s->r[lo].lo <= pc && pc < s->r[lo].hi) {
			*out = s->r[lo];
			found = true;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == seq)
			return found;
	}
	return false;
}

/* Whether @pc was made writable once; else where the next such range starts, in *@end. */
static bool xm_tainted(uint64_t pc, uint64_t *end)
{
	uint32_t n = __atomic_load_n(&xm_ntaint, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&xm_taint_all, __ATOMIC_ACQUIRE))
		return true;
	for (uint32_t i = 0; i < n && i < XM_TAINT; i++) {
		if (!__atomic_load_n(&xm_taint[i].valid, __ATOMIC_ACQUIRE))
			continue;
		if (pc >= xm_taint[i].lo && pc < xm_taint[i].hi)
			return true;
		if (xm_taint[i].lo > pc && xm_taint[i].lo < *end)
			*end = xm_taint[i].lo;
	}
	return false;
}

enum xl_code xlate_code_kind(uint64_t pc, uint64_t *end)
{
	struct xm_range r;
	uint64_t gen;

	if (arch_code_owns(pc)) {
		*end = pc + 4096;
		return XL_CODE_STUB;
	}
	if (step_in_shim(pc)) {
		*end = step_text_hi;
		return XL_CODE_SHIM;
	}
	gen = __atomic_load_n(&xm_gen, __ATOMIC_ACQUIRE);
	if (!xm_find(pc, &r)) {
		/* an object loaded since the mappings were read: once more, unless
		 * another thread is reading them now, or already did */
		if (gen == __atomic_load_n(&xm_gen, __ATOMIC_ACQUIRE))
			xlate_code_refresh();
		if (!xm_find(pc, &r))
			return XL_CODE_NONE;
	}
	if (r.kind == XL_CODE_NONE)
		return XL_CODE_NONE;
	*end = r.hi;
	if (xlate_cache_owns(xl_self.cache, pc) || xm_tainted(pc, end))
		return XL_CODE_NONE;
	return XL_CODE_PROGRAM;
}

void xlate_code_taint(uint64_t lo, uint64_t hi)
{
	/* a slot claimed, written, then marked: no lock, a signal handler may call this */
	uint32_t i = __atomic_fetch_add(&xm_ntaint, 1, __ATOMIC_ACQ_REL);

	if (i >= XM_TAINT) {
		__atomic_store_n(&xm_taint_all, true, __ATOMIC_RELEASE);
		return;
	}
	xm_taint[i].lo = lo;
	xm_taint[i].hi = hi;
	__atomic_store_n(&xm_taint[i].valid, 1, __ATOMIC_RELEASE);
}

bool xlate_code_overlaps(uint64_t lo, uint64_t hi)
{
	const struct xm_snap *s = &xm_snap[__atomic_load_n(&xm_cur, __ATOMIC_ACQUIRE)];
	uint32_t n = s->n < XM_MAX ? s->n : XM_MAX;

	if (step_in_shim(lo) || arch_code_owns(lo))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (s->r[i].kind == XL_CODE_PROGRAM && s->r[i].lo < hi && lo < s->r[i].hi)
			return true;
	return false;
}
