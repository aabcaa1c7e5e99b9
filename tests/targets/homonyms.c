// SPDX-License-Identifier: MIT
/*
 * Two static functions of the same name, twin, one in this file and one in
 * homonyms_twin.c, as static helpers of different files share names in
 * real libraries (glibc has eight round_and_return).  Each ends in a tail
 * call of leaf.  The shim declares each on its own, as twin@0xOFFSET (its
 * offset from the load base); the program counts their calls and prints
 * them under those names.
 */
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "matrix.h"

long leaf(long a);
long twin_call_b(long a);
void *twin_addr_b(void);

unsigned long leaf_calls, twin_calls[2];

HOOKED long leaf(long a)
{
	leaf_calls++;
	return a * 3 + 1;
}

HOOKED static long twin(long a)
{
	twin_calls[0]++;
	return leaf(a + 7);
}

static int homonyms_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1; /* the program comes first */
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, sum = 0;
	uintptr_t base = 0;
	char name[64];

	for (long i = 0; i < n; i++) {
		sum += twin(i);
		if (i % 3 == 0)
			sum += twin_call_b(i);
	}
	printf("sum %ld\n", sum);
	dl_iterate_phdr(homonyms_base, &base);
	snprintf(name, sizeof(name), "twin@0x%lx", (unsigned long)((uintptr_t)twin - base));
	TRUTH("truth", name, twin_calls[0]);
	snprintf(name, sizeof(name), "twin@0x%lx",
		 (unsigned long)((uintptr_t)twin_addr_b() - base));
	TRUTH("truth", name, twin_calls[1]);
	TRUTH("truth", "leaf", leaf_calls);
	return 0;
}
