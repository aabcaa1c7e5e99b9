/* SPDX-License-Identifier: MIT */
/* rank.c: the MPI rank. */
#ifndef EXTPROF_PRELOAD_STORE_RANK_H
#define EXTPROF_PRELOAD_STORE_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* The MPI rank and job size the launcher's environment says, into @meta (none: job_size 0). */
void rank_fill(struct dump_meta *meta);

#pragma GCC visibility pop

#endif
