/* SPDX-License-Identifier: MIT */
#ifndef EXTPROF_PRELOAD_DEMANGLE_H
#define EXTPROF_PRELOAD_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* "ns::cls::fn" for "_ZN2ns3cls2fnEi"; false when @sym is not that simple. */
bool demangle_qualified(const char *sym, char *out, size_t size);

#endif
