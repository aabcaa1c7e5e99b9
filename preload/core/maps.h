/* SPDX-License-Identifier: MIT */
/* maps: the lines of /proc/PID/maps, read without stdio, malloc or locks. */
#ifndef EXTPROF_PRELOAD_MAPS_H
#define EXTPROF_PRELOAD_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mapping. */
struct maps_entry {
	uint64_t start;
	uint64_t end;
	char perms[5];	  /* "rw-p" */
	const char *path; /* "" for anonymous memory; "[stack]", "/usr/lib/..." */
	bool truncated;	  /* the path was longer than the caller's buffer */
};

typedef int (*maps_fn)(const struct maps_entry *entry, void *arg);

/*
 * Call @fn for every mapping listed in @file ("/proc/self/maps"), in
 * address order, with lines assembled in @line (@cap bytes: longer paths
 * are cut).  A non-zero return from @fn stops the walk and is returned;
 * -errno when the file cannot be read.  Async-signal-safe.
 */
int maps_each(const char *file, char *line, size_t cap, maps_fn fn, void *arg);

#endif
