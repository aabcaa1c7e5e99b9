/* SPDX-License-Identifier: MIT */
/* longjmp.c: the longjmp family behind the shim's wrappers. */
#ifndef EXTPROF_PRELOAD_HOST_LONGJMP_H
#define EXTPROF_PRELOAD_HOST_LONGJMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* Look up the real longjmp family now, before a signal handler may need it. */
void longjmp_resolve(void);

#pragma GCC visibility pop

#endif
