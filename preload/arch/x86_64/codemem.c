// SPDX-License-Identifier: MIT
/*
 * codemem: the memory the stubs live in (patch.c writes them), in chunks of
 * 64 KiB each within 2 GiB of the code it serves, read-write-execute while
 * the hooks go in and sealed read-execute after (arch_seal_code).  The
 * steps counter asks of any address whether it is one of them
 * (arch_code_owns): the code cache translates a stub as a stub, the trap
 * engine credits its instructions; both read the chunks from a signal
 * handler, so a chunk is published whole before it is counted.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include "arch/arch.h"
#include "codemem.h"
#include "core/sys.h"
#include "extprof/attach.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define CODEMEM_CHUNK (64u * 1024u)
#define CODEMEM_MAX   1024
#define NEAR_LIMIT    ((uint64_t)0x7fff0000)
#define NEAR_STEP     (16ull << 20)		    /* the places tried, 16 MiB apart */
#define NEAR_STEPS    (int)(NEAR_LIMIT / NEAR_STEP) /* on either side */

struct codemem_chunk {
	uint8_t *base;
	size_t used;
	bool sealed;
};

static struct codemem_chunk codemem[CODEMEM_MAX];
static int codemem_n;

static bool codemem_near(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : b - a) < NEAR_LIMIT;
}

static uint8_t *codemem_map_at(uint64_t addr)
{
	void *p = mmap((void *)addr, CODEMEM_CHUNK, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if ((uint64_t)p != addr) {
		/* an old kernel took it as a hint only */
		sys_munmap(p, CODEMEM_CHUNK);
		errno = EEXIST;
		return NULL;
	}
	return p;
}

/*
 * A new chunk near @target: right below a chunk already near it (the
 * stubs of one library in a run of chunks, found in one try rather than
 * by a search that starts again each time), else below the target first
 * (a PIE program's heap grows up from its end and must not meet us), then
 * above.  NULL with errno EEXIST when every place was taken, or the error
 * of a place refused otherwise (ENOMEM: a limit on the address space).
 */
static uint8_t *codemem_map_near(uint64_t target)
{
	uint64_t page = target & ~(uint64_t)(CODEMEM_CHUNK - 1), at[3 * NEAR_STEPS];
	int n = 0, refused = 0;

	for (int i = codemem_n - 1; i >= 0 && n < NEAR_STEPS; i--) {
		uint64_t below = (uint64_t)codemem[i].base - CODEMEM_CHUNK;

		if (codemem_near(below, target) && codemem_near(below + CODEMEM_CHUNK, target))
			at[n++] = below;
	}
	for (uint64_t d = NEAR_STEP; d < NEAR_LIMIT - CODEMEM_CHUNK; d += NEAR_STEP) {
		if (page > d)
			at[n++] = page - d;
	}
	for (uint64_t d = NEAR_STEP; d < NEAR_LIMIT - CODEMEM_CHUNK; d += NEAR_STEP)
		at[n++] = page + d;
	for (int i = 0; i < n; i++) {
		uint8_t *p = codemem_map_at(at[i]);

		if (p)
			return p;
		if (errno != EEXIST)
			refused = errno;
	}
	errno = refused ? refused : EEXIST;
	return NULL;
}

uint8_t *codemem_alloc_near(uint64_t target, size_t size)
{
	struct codemem_chunk *c;

	size = (size + 15) & ~(size_t)15;
	for (int i = 0; i < codemem_n; i++) {
		c = &codemem[i];
		if (!c->sealed && c->used + size <= CODEMEM_CHUNK &&
		    codemem_near((uint64_t)c->base, target) &&
		    codemem_near((uint64_t)c->base + CODEMEM_CHUNK, target)) {
			c->used += size;
			return c->base + c->used - size;
		}
	}
	if (codemem_n == CODEMEM_MAX) {
		errno = ENOSPC;
		return NULL;
	}
	c = &codemem[codemem_n];
	c->base = codemem_map_near(target);
	if (!c->base)
		return NULL;
	c->used = size;
	/* published whole: a SIGTRAP handler on another thread reads the chunks */
	__atomic_store_n(&codemem_n, codemem_n + 1, __ATOMIC_RELEASE);
	return c->base;
}

bool arch_code_owns(uint64_t pc)
{
	int n = __atomic_load_n(&codemem_n, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++) {
		if (pc - (uint64_t)codemem[i].base < CODEMEM_CHUNK)
			return true;
	}
	return false;
}

/* Stub pages are never writable and executable once the hooks are in. */
void arch_seal_code(void)
{
	for (int i = 0; i < codemem_n; i++) {
		if (!codemem[i].sealed)
			sys_mprotect(codemem[i].base, CODEMEM_CHUNK, PROT_READ | PROT_EXEC);
		codemem[i].sealed = true;
	}
}

int arch_code_ranges(struct extprof_attach_range *r, int max)
{
	for (int i = 0; i < codemem_n && i < max; i++) {
		r[i].lo = (uint64_t)codemem[i].base;
		r[i].hi = (uint64_t)codemem[i].base + CODEMEM_CHUNK;
	}
	return codemem_n;
}
