/* SPDX-License-Identifier: MIT */
/* hooks: find the functions the entries name and patch them. */
#ifndef EXTPROF_PRELOAD_HOOKS_H
#define EXTPROF_PRELOAD_HOOKS_H

#include "resolve/spec.h"

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

/* Hook every function the entries and the window name; how many were. */
int hooks_install(const struct spec_list *list, const char *window);
/* After a dlopen: hook what the entries name in the objects that appeared. */
void hooks_rescan(void);

#endif
