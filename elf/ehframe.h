/* SPDX-License-Identifier: MIT */
/*
 * ehframe: the functions an object's .eh_frame describes.  Every function a
 * compiler emits unwind information for has an FDE giving its start and
 * its length, whether or not a symbol names it: what a stripped object
 * still says about its static functions and IFUNC implementations.  Pure:
 * it reads bytes, so the shim and `extprof symbols` read the same.
 */
#ifndef EXTPROF_PRELOAD_EHFRAME_H
#define EXTPROF_PRELOAD_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

/* One FDE: [start, start + size), in the addresses of the section's @addr. */
typedef void (*ehframe_fn)(uint64_t start, uint64_t size, void *arg);

/*
 * Call @fn for every FDE of the .eh_frame bytes @data (@size of them, the
 * section loaded at @addr).  A malformed entry ends the walk: nothing past
 * it can be trusted.  Returns the FDEs passed to @fn, or -1 when the walk
 * ended at a malformed entry (after those before it).
 */
long ehframe_walk(const uint8_t *data, size_t size, uint64_t addr, ehframe_fn fn, void *arg);

/* One FDE's call frame program, with what its CIE says it starts from. */
struct ehframe_prog {
	uint64_t start, size; /* the code it describes */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;	     /* the return address column */
	const uint8_t *init; /* the CIE's initial instructions */
	size_t init_len;
	const uint8_t *ops; /* the FDE's own */
	size_t ops_len;
};

/*
 * The program of the FDE at @fde (its length field), in loaded memory, its
 * CIE before it: what a copy of the code it describes needs to be
 * described alike (the stubs' fast path, unwind_stub.c).  0, or -1 when
 * the FDE or its CIE is not one this reads.
 */
int ehframe_fde_prog(const uint8_t *fde, struct ehframe_prog *prog);

#endif
