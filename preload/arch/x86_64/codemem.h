/* SPDX-License-Identifier: MIT */
/*
 * codemem: the stubs' memory (codemem.c); arch_code_owns, arch_seal_code and
 * arch_code_ranges, which read it, are the port's interface (arch.h).
 */
#ifndef EXTPROF_ARCH_X86_64_CODEMEM_H
#define EXTPROF_ARCH_X86_64_CODEMEM_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/*
 * @size bytes (rounded up to 16) of stub memory within 2 GiB of @target,
 * from a chunk not sealed yet or a new one: NULL with errno EEXIST when
 * every place near it was taken, ENOSPC when the chunks ran out, else the
 * error of the place refused.
 */
uint8_t *codemem_alloc_near(uint64_t target, size_t size);

#pragma GCC visibility pop

#endif
