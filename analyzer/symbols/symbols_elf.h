/* SPDX-License-Identifier: MIT */
/*
 * symbols_elf: the functions of an ELF file as the shim sees them
 * (elf/functab.c: .dynsym with versions, .symtab or the debug file's,
 * .eh_frame for the unnamed), each with the shim's own verdict on its entry
 * (elf/hookable.c, which asks the port's planner): can it be patched,
 * and if not, why.
 */
#ifndef XP_SYMBOLS_ELF_H
#define XP_SYMBOLS_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct xp_func {
	char *name;	  /* as an entry names it: "memcpy", "memcpy@GLIBC_2.2.5", "0x1a2b30" */
	char *display;	  /* as listed: "memcpy@@GLIBC_2.14" */
	char *version;	  /* NULL: unversioned */
	bool hidden;	  /* a version other than the default */
	uint64_t address; /* st_value (an IFUNC's resolver), or the FDE's start */
	uint64_t size;
	size_t shndx; /* the section its symbol points into (a .o) */
	bool in_symtab;
	bool in_dynsym;
	bool in_debug; /* named by the separate debug file */
	bool fde_only; /* no symbol: from .eh_frame */
	char *near;    /* fde_only: "memcpy+0x40", the named function holding it or before it */
	bool near_inside;
	bool ifunc;
	bool resolved; /* ifunc: its choice on this CPU is known (the file is loaded here) */
	uint64_t impl;
	uint64_t impl_size;
	char *impl_name;
	char *alias_of; /* with a glob: the best name of its aliases, which the shim hooks */
	bool ok;	/* the shim would patch it */
	char why[400];	/* and if not, the shim's reason */
};

struct xp_funcs {
	struct xp_func *v;
	size_t n, cap;
	bool has_symtab; /* a .symtab section (not stripped) */
	bool has_dynsym;
	bool has_debug; /* names from the separate debug file */
	char debug_path[256];
	size_t dynsym_funcs; /* functions .dynsym names */
	size_t fde_funcs;    /* functions only .eh_frame gives */
	size_t total;	     /* functions in the file, a glob's or not */
	bool fdes_bad;	     /* .eh_frame ended at a malformed entry */
	int elf_type;	     /* ET_EXEC, ET_DYN, ET_REL */
	/* with a glob: what the shim would say of function:GLOB@OBJECT ("" when nothing) */
	char ifunc_line[800];
	char hook_line[1000];
};

/*
 * Read @path's functions into @f, sorted by name, then address, judged as
 * the shim judges them counting with @counter (enum extprof_counter_kind;
 * the ns counter refuses clock_gettime): with the same code, dry.  With
 * @glob (NULL: every function, each as if named alone), those the entry
 * function:GLOB@OBJECT matches (GLOB may carry @VERSION), as the shim
 * judges them in that run: an alias whose best name the glob matches too
 * is hooked under that name (alias_of), a second name of a function hooked
 * already is refused, and @f's lines are what the shim would say; a glob
 * on 0xOFFSET names lists the functions only .eh_frame knows.  Returns 0,
 * or -errno with "PATH: what" in @e (a missing file, not ELF, not x86-64,
 * corrupt).
 */
int xp_elf_functions(const char *path, const char *glob, uint32_t counter, struct xp_funcs *f,
		     struct xp_err *e);
/* Free what xp_elf_functions filled in. */
void xp_funcs_free(struct xp_funcs *f);

#endif
