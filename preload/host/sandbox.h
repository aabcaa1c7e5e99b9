/* SPDX-License-Identifier: MIT */
/* sandbox.c: a program that sandboxes itself with seccomp. */
#ifndef EXTPROF_PRELOAD_HOST_SANDBOX_H
#define EXTPROF_PRELOAD_HOST_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* Look up the real prctl and syscall now. */
void sandbox_resolve(void);

#pragma GCC visibility pop

#endif
