/* SPDX-License-Identifier: MIT */
/* dlopen.c: the objects loaded after start-up, hooked as they come. */
#ifndef EXTPROF_PRELOAD_RESOLVE_DLOPEN_H
#define EXTPROF_PRELOAD_RESOLVE_DLOPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* libc's dlopen itself, not the shim's wrapper: an object the shim loads hooks nothing. */
void *dlopen_real(const char *file, int mode);

#pragma GCC visibility pop

#endif
