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

#endif
