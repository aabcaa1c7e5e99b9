// SPDX-License-Identifier: MIT
/* The other twin (homonyms.c says why there are two). */
#include "matrix.h"

long leaf(long a);
long twin_call_b(long a);
void *twin_addr_b(void);

extern unsigned long twin_calls[2];

HOOKED static long twin(long a)
{
	twin_calls[1]++;
	return leaf(a * 2);
}

long twin_call_b(long a)
{
	return twin(a) + 1;
}

void *twin_addr_b(void)
{
	return (void *)twin;
}
