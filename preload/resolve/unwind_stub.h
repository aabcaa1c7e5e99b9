/* SPDX-License-Identifier: MIT */
/* unwind_stub.c: the stubs' unwind rows, for libgcc's unwinder. */
#ifndef EXTPROF_PRELOAD_RESOLVE_UNWIND_STUB_H
#define EXTPROF_PRELOAD_RESOLVE_UNWIND_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

struct arch_hook;
/* Describe the stub of @hook, just committed, to the unwinder (at the next publish). */
void unwind_stub_add(const struct arch_hook *hook);
/* Register the stubs described since the last time, if libgcc's unwinder is loaded. */
void unwind_stub_publish(void);
/* Look up the real pthread_cancel and pthread_exit now. */
void unwind_stub_resolve(void);
/* Before a thread may unwind: libgcc's unwinder loaded, every stub registered with it. */
void unwind_stub_prepare(void);

#pragma GCC visibility pop

#endif
