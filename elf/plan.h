/* SPDX-License-Identifier: MIT */
/*
 * plan: what the shim and `extprof symbols` ask of the port's patch
 * planner, in arch/CPU_FAMILY/ (elf/meson.build picks the folder;
 * docs/porting.md says what a port provides).  The port's insn.h, found on
 * the include path elf/meson.build sets for that folder, defines struct
 * arch_plan; the shim's preload/arch/arch.h includes this header for it.
 */
#ifndef EXTPROF_ELF_PLAN_H
#define EXTPROF_ELF_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* The port's planner: struct arch_plan, a function's patch planned. */
#include "insn.h"

struct functab;

/*
 * The plan of a function's patch (the shim's arch_prepare_hook makes it
 * too), dry: for the function whose @size bytes are @code, at
 * address @addr in an object whose offset 0 is at @base, with its
 * functions @table (NULL: judged alone) and their bytes by offset from @bytes.
 * Nothing is built: the shim builds it (arch_build_hook), `extprof symbols`
 * says what it found.  Returns 0, or -EINVAL with the reason in @why.
 */
int arch_plan_hook(const uint8_t *code, uint64_t size, uint64_t addr, uint64_t base,
		   const struct functab *table,
		   const uint8_t *(*bytes)(uint64_t start, uint64_t size, void *arg), void *arg,
		   struct arch_plan *plan, char *why, size_t whylen);

/*
 * Call @fn for every direct branch of the @size bytes at @code (runtime
 * address @addr) whose target lies outside them (the architecture's decoder).
 */
void arch_each_branch(const uint8_t *code, uint64_t size, uint64_t addr,
		      void (*fn)(uint64_t from, uint64_t target, void *arg), void *arg);

#endif
