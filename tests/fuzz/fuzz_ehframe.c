// SPDX-License-Identifier: MIT
/*
 * The .eh_frame reader (elf/ehframe.c) under libFuzzer: any bytes, as
 * a section loaded anywhere.  Built with -Dfuzz=true (scripts/fuzz.sh);
 * tests/unit/test_ehframe.c replays truncations and mutations of real
 * sections in the ordinary suite.
 */
#include <stddef.h>
#include <stdint.h>

#include "ehframe.h"

static void fuzz_fde(uint64_t start, uint64_t size, void *arg)
{
	(void)start;
	(void)size;
	(*(long *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long n = 0;
	uint64_t addr = size >= 8 ? (uint64_t)data[0] << 40 | (uint64_t)data[1] << 12 : 0x1000;

	ehframe_walk(data, size, addr, fuzz_fde, &n);
	return 0;
}
