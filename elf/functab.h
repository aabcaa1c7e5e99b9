/* SPDX-License-Identifier: MIT */
/*
 * functab: the functions of one ELF object, read once: the named ones (FUNC
 * and IFUNC symbols of .dynsym with their versions, of .symtab or of the
 * debug file) and the ones only .eh_frame describes.  The shim matches
 * entries against it; `extprof symbols` lists it.
 */
#ifndef EXTPROF_PRELOAD_FUNCTAB_H
#define EXTPROF_PRELOAD_FUNCTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfsyms.h"
#include "gocode.h"

struct functab_sym {
	const char *name;    /* without its version */
	const char *version; /* NULL: unversioned */
	uint64_t value;	     /* st_value: the entry, or an IFUNC's resolver */
	uint64_t size;
	uint8_t type;	/* STT_FUNC or STT_GNU_IFUNC */
	uint8_t table;	/* enum elfsym_table: where the name comes from */
	uint8_t tables; /* 1 << each table that names it */
	uint32_t shndx; /* the section its symbol points into */
	bool hidden;	/* name@VERSION, not the default */
	bool global;	/* STB_GLOBAL or STB_WEAK */
	bool homonym;	/* another function of the object has the same name (statics) */
};

struct functab_fde {
	uint64_t start;
	uint64_t size;
};

/* A symbol that names no sized function: a NOTYPE symbol, a FUNC of size 0. */
struct functab_label {
	uint64_t value;
	const char *name;
};

/* A branch into a function's inside from another function (shared asm labels). */
struct functab_jump {
	uint64_t target;
	uint64_t from;
};

struct functab {
	struct functab_sym *syms; /* by name, then value */
	size_t nsyms;
	struct functab_sym **by_value; /* the same, by value */
	struct functab_fde *fdes;      /* by start */
	size_t nfdes;
	struct functab_label *labels; /* by value */
	size_t nlabels;
	uint64_t plt[4][2]; /* .plt, .plt.got, .plt.sec: [start, end) */
	int nplt;
	bool fdes_bad;	  /* .eh_frame ended at a malformed entry */
	uint64_t entry;	  /* the ELF header's e_entry, 0 when none */
	struct gocode go; /* where its Go code lies, if any */
	bool has_symtab;  /* the file's own .symtab */
	bool has_debug;	  /* names from its debug file */
	char debug_path[256];
	struct functab_jump *jumps; /* by target; after functab_scan_jumps */
	size_t njumps;
	bool jumps_scanned;
	int jumps_err; /* the scan's: -ENOMEM leaves the list short */
	char *strings; /* the names, in chunks */
	size_t strings_used, strings_cap;
};

/* Read the functions of the file at @path.  0 or -errno. */
int functab_read(struct functab *table, const char *path);
/* The same from an ELF already open (its debug file too, unless @no_debug). */
int functab_read_elf(struct functab *table, Elf *elf, bool no_debug);
/* Free what functab_read left in @table. */
void functab_free(struct functab *table);

/* The FDE starting at @start, or NULL. */
const struct functab_fde *functab_fde_at(const struct functab *table, uint64_t start);
/* The FDE whose range holds @addr, or NULL. */
const struct functab_fde *functab_fde_holding(const struct functab *table, uint64_t addr);
/* The best name for the function at @value (exported, default version first), or NULL. */
const struct functab_sym *functab_sym_at(const struct functab *table, uint64_t value);
/* The named function whose range holds @addr (the innermost), or NULL. */
const struct functab_sym *functab_sym_holding(const struct functab *table, uint64_t addr);

/*
 * The size of the function starting at @value: its FDE's when it has one
 * (the compiler's own account of it), else its symbol's; 0 when neither.
 */
uint64_t functab_size_at(const struct functab *table, uint64_t value);

/* The bytes of the function at @start (@size of them), or NULL. */
typedef const uint8_t *(*functab_code_fn)(uint64_t start, uint64_t size, void *arg);
/* The architecture's branch scan (arch_each_branch, insn_each_branch). */
typedef void (*functab_branches_fn)(const uint8_t *code, uint64_t size, uint64_t addr,
				    void (*fn)(uint64_t from, uint64_t target, void *arg),
				    void *arg);

/*
 * Decode every function (each FDE's range, and each named function no FDE
 * holds) and keep the branches that land neither at a function's start nor
 * in the PLT: inside another function (glibc's hand-written string
 * functions jump from one entry point into the next one's first bytes), or
 * in the padding between two.  0 or -ENOMEM.
 */
int functab_scan_jumps(struct functab *table, functab_code_fn code, void *arg,
		       functab_branches_fn each);
/* A branch from another function landing strictly inside (@lo, @hi), or NULL. */
const struct functab_jump *functab_jump_into(const struct functab *table, uint64_t lo, uint64_t hi);

/*
 * The code just before the function at @value: the function that ends
 * nearest before it (by its FDE, else by its symbol), [*@start, *@end).
 * False when none is known, or one reaches @value or past it.  The bytes
 * from *@end to @value belong to no function: the padding before it.
 */
bool functab_code_before(const struct functab *table, uint64_t value, uint64_t *start,
			 uint64_t *end);

/*
 * A symbol that names no sized function (a label: a NOTYPE symbol, a FUNC
 * of size 0) at an address in [@lo, @hi): its name, or NULL.
 */
const char *functab_label_in(const struct functab *table, uint64_t lo, uint64_t hi);

/* A copy of @name kept with @table's names (freed by functab_free), or NULL with *@err = -ENOMEM.
 */
const char *functab_intern(struct functab *table, const char *name, int *err);

/*
 * "name", or "name@VERSION" for a version other than the default, into
 * @buf; a homonym's offset after it, "name@0x43770": the name of one
 * function, as a declaration must be (hooks_entry.c matches it back).
 */
const char *functab_sym_name(const struct functab_sym *sym, char *buf, size_t len);

#endif
