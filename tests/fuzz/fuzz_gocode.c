// SPDX-License-Identifier: MIT
/*
 * The pclntab header reader (elf/gocode.c) under libFuzzer: any bytes,
 * as the start of a Go object's .gopclntab.  Built with -Dfuzz=true
 * (scripts/fuzz.sh); tests/unit/test_ehframe.c replays every format, its
 * truncations and mutations in the ordinary suite.
 */
#include <stddef.h>
#include <stdint.h>

#include "gocode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t lo, hi;

	if (!gocode_pclntab_range(data, size, &lo, &hi) && lo >= hi)
		__builtin_trap();
	return 0;
}
