/* SPDX-License-Identifier: MIT */
/* hooks: find the functions the entries name and patch them. */
#ifndef EXTPROF_PRELOAD_HOOKS_H
#define EXTPROF_PRELOAD_HOOKS_H

#include "spec.h"

int hooks_install(const struct spec_list *list, const char *window);
void hooks_rescan(void);

#endif
