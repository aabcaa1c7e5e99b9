// SPDX-License-Identifier: MIT
/* The library "safety daemon" dlopens (tests/targets/safety.c): one hooked function. */
#include "matrix.h"

HOOKED long xs_lib_work(long x)
{
	return x * 2 + 1;
}
