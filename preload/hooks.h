/* SPDX-License-Identifier: MIT */
/* hooks: find the functions the entries name and patch them. */
#ifndef EXTPROF_PRELOAD_HOOKS_H
#define EXTPROF_PRELOAD_HOOKS_H

#include <stdbool.h>

#include "spec.h"

/*
 * Whether the entries or the window name a function of a loaded object, or
 * an object not loaded yet (a dlopen may bring it).  Says nothing, patches
 * nothing: without any, a process has nothing to count.
 */
bool hooks_any(const struct spec_list *list, const char *window);

/* After hooks_any() found nothing: the line for each entry, and the window. */
void hooks_say_unmatched(void);

/* Hook every function the entries and the window name; how many were. */
int hooks_install(const struct spec_list *list, const char *window);
void hooks_rescan(void);

#endif
