/* SPDX-License-Identifier: MIT */
/*
 * symbols_elf: the functions of an ELF file (FUNC symbols of .symtab and
 * .dynsym with a size), each with the shim's own verdict on its entry
 * (preload/arch/x86_64/insn.c): can it be patched, and if not, why.
 */
#ifndef XP_SYMBOLS_ELF_H
#define XP_SYMBOLS_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct xp_func {
	char *name;
	uint64_t address; /* st_value: the offset from the load base in a PIE or .so */
	uint64_t size;
	size_t shndx;   /* the section its symbol points into */
	bool in_symtab;
	bool in_dynsym;
	bool ok;        /* the shim would patch it */
	char why[160];  /* and if not, the shim's reason */
};

struct xp_funcs {
	struct xp_func *v;
	size_t n, cap;
	bool has_symtab;    /* a .symtab section (not stripped) */
	bool has_dynsym;
	size_t dynsym_funcs; /* functions .dynsym names */
	int elf_type;       /* ET_EXEC, ET_DYN, ET_REL */
};

/*
 * Read @path's functions into @f, sorted by name, then address.  Returns 0,
 * or -errno with "PATH: what" in @e (a missing file, not ELF, not x86-64,
 * corrupt).
 */
int xp_elf_functions(const char *path, struct xp_funcs *f, struct xp_err *e);
void xp_funcs_free(struct xp_funcs *f);

#endif
