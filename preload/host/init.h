/* SPDX-License-Identifier: MIT */
/* init.c: start-up, and the process's end. */
#ifndef EXTPROF_PRELOAD_HOST_INIT_H
#define EXTPROF_PRELOAD_HOST_INIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"
#include "resolve/hooks.h"

#pragma GCC visibility push(hidden)

/* Reads a setting by its EXTPROF_* name: the environment, or an attachment's block. */
typedef const char *(*init_var_fn)(const char *name);
/*
 * Every start-up step, the settings read through @var, each patch handed to
 * @keep (NULL: written here): 0 when something was hooked.
 */
int init_start(init_var_fn var, hooks_keep_fn keep);
/*
 * Every start-up step in a process the shim was preloaded into, the settings
 * read from the environment: whether something is counted.
 */
bool init_preloaded(void);
/* The hook's calibration, once: 0, or its error again. */
int init_calibrate(void);
/*
 * The process's counts end here, as at exit: every dump rewritten compactly
 * and marked complete, on the shim's stack, the caller's stepping stopped and
 * a pending cancellation held.
 */
void init_finish_here(void);

#pragma GCC visibility pop

#endif
