/* SPDX-License-Identifier: MIT */
/* process.c: what a dump says of its process. */
#ifndef EXTPROF_PRELOAD_STORE_PROCESS_H
#define EXTPROF_PRELOAD_STORE_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* The machine, the program and the build ID, into @meta, at start-up. */
void process_fill_meta(struct dump_meta *meta);
/* This process's identity (random id, pid, ppid, start), at start-up and in a fork child. */
void process_fill_ids(struct dump_meta *meta);
/* @src as a part of a file name: unsafe bytes become '_', never empty. */
void process_safe_name(char *dst, size_t size, const char *src);
/* Make (or accept) the dump directory @dir: 0, or -errno with the reason in @why. */
int process_make_dir(const char *dir, bool shared_ok, const char **why);
/* CLOCK_REALTIME in nanoseconds. */
int64_t process_now_ns(void);

#pragma GCC visibility pop

#endif
