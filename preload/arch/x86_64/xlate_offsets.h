/* SPDX-License-Identifier: MIT */
/*
 * The field offsets of struct xl_thread (preload/steps/xlate.h) that thunk.S
 * reads, by hand: an assembler file cannot include the C header.
 * xlate_ctx.c checks them against the structure at compile time.
 */
#ifndef EXTPROF_XLATE_OFFSETS_H
#define EXTPROF_XLATE_OFFSETS_H

#define XL_RESUME 112 /* where a thunk returns to go on in the cache */

#endif
