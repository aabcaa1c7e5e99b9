/* SPDX-License-Identifier: MIT */
/* calibrate.c: the hook's own cost, measured at start-up. */
#ifndef EXTPROF_PRELOAD_COUNT_CALIBRATE_H
#define EXTPROF_PRELOAD_COUNT_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* Measure the hook's own cost around empty functions into xp.meta: 0 or -errno. */
int calibrate_hook(void);

#pragma GCC visibility pop

#endif
