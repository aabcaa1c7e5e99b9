/* SPDX-License-Identifier: MIT */
/* exec.c: the exec family behind the shim's wrappers. */
#ifndef EXTPROF_PRELOAD_HOST_EXEC_H
#define EXTPROF_PRELOAD_HOST_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* Look up the real exec family now, before a signal handler may need it. */
void exec_resolve(void);

#pragma GCC visibility pop

#endif
