// SPDX-License-Identifier: MIT
/*
 * The library's entry: preloaded, the shim starts from the environment
 * (init.c) and says so in the block extprof attach reads; dlopen'ed into a
 * running process, it does nothing until the tracer drives it (attach.c).
 * The one file that calls both, so that neither calls the other.
 */
#include <stdbool.h>

#include "host/attach.h"
#include "host/init.h"

__attribute__((constructor)) static void entry_load(void)
{
	/* dlopen'ed into a running process: "extprof attach" says what to do */
	if (!attach_preloaded())
		return;
	if (init_preloaded())
		attach_mark_preloaded();
}
