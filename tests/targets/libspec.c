// SPDX-License-Identifier: MIT
/*
 * libspec.so: hooked functions in a shared object.  lib_add, lib_mul and
 * lib_chain are exported (.dynsym); lib_internal is static, so only the
 * object's .symtab names it.  lib_truth is the ground truth, not hooked.
 */
#include <string.h>

#include "libspec.h"
#include "matrix.h"

static long n_add, n_mul, n_chain, n_internal;

HOOKED static long lib_internal(long x)
{
	n_internal++;
	return x * 5 + 1;
}

HOOKED long lib_add(long a, long b)
{
	n_add++;
	return a + b;
}

HOOKED long lib_mul(long a, long b)
{
	n_mul++;
	return a * b;
}

HOOKED long lib_chain(long x)
{
	n_chain++;
	/* through the PLT: an exported function calling another */
	return lib_add(lib_internal(x), 3);
}

long lib_truth(const char *name)
{
	if (!strcmp(name, "lib_add"))
		return n_add;
	if (!strcmp(name, "lib_mul"))
		return n_mul;
	if (!strcmp(name, "lib_chain"))
		return n_chain;
	if (!strcmp(name, "lib_internal"))
		return n_internal;
	return -1;
}
