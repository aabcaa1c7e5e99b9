/* SPDX-License-Identifier: MIT */
/* hooks: find the functions the entries name and patch them. */
#ifndef EXTPROF_PRELOAD_HOOKS_H
#define EXTPROF_PRELOAD_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "resolve/spec.h"

struct arch_hook;

/* What hooks_any() found. */
enum hooks_found {
	HOOKS_NONE,  /* nothing for this process */
	HOOKS_LATER, /* only objects not loaded yet: a dlopen may bring them */
	HOOKS_NOW,   /* a function of a loaded object */
};

/*
 * Whether the entries or the window name a function of a loaded object, or
 * an object not loaded yet.  Says nothing, patches nothing.
 */
enum hooks_found hooks_any(const struct spec_list *list, const char *window);

/* After hooks_any() found nothing: the line for each entry, and the window. */
void hooks_say_unmatched(void);

/*
 * Takes patch @hook (declaration @idx) to write it elsewhere than here (the
 * tracer of extprof attach writes it): 0, or -errno with the reason in @why.
 */
typedef int (*hooks_keep_fn)(const struct arch_hook *hook, uint32_t idx, char *why, size_t whylen);

/*
 * Hook every function the entries and the window name, each patch written
 * here or, unless NULL, handed to @keep; how many were.
 */
int hooks_install(const struct spec_list *list, const char *window, hooks_keep_fn keep);
/* After a dlopen: hook what the entries name in the objects that appeared. */
void hooks_rescan(void);

#endif
