// SPDX-License-Identifier: MIT
/*
 * interpose: a wrapper's real function, found once.  The pointer is
 * published with release and read with acquire: threads may race to find
 * it first (each finds the same), and a trampoline set in its place
 * (extprof attach) is seen whole.
 */
#include <dlfcn.h>

#include "core/interpose.h"

void *interpose_real(const struct interpose_table *t, int i)
{
	void *fn = __atomic_load_n(&t->reals[i], __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, t->names[i]);
		__atomic_store_n(&t->reals[i], fn, __ATOMIC_RELEASE);
	}
	return fn;
}

void interpose_resolve(const struct interpose_table *t)
{
	for (int i = 0; i < t->n; i++)
		interpose_real(t, i);
}
