/* SPDX-License-Identifier: MIT */
/* unwind.c: exceptions and stack walks through hooked frames. */
#ifndef EXTPROF_PRELOAD_HOST_UNWIND_H
#define EXTPROF_PRELOAD_HOST_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* The @index-th unwinder function the shim wraps: its name and wrapper; -1 past the last. */
int unwind_wrapper(int index, const char **name, void **wrapper);
/* Where the @index-th wrapper finds the real function (a trampoline, when attached). */
void unwind_set_real(int index, void *fn);

#pragma GCC visibility pop

#endif
