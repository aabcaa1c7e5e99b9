/* SPDX-License-Identifier: MIT */
/* elfsyms: the loaded ELF objects and the symbols of their .symtab and .dynsym. */
#ifndef EXTPROF_PRELOAD_ELFSYMS_H
#define EXTPROF_PRELOAD_ELFSYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define ELFOBJ_MAX  512
#define ELFOBJ_SEGS 4 /* executable PT_LOAD segments kept, each [lo, hi) */

struct elf_object {
	char path[4096];
	const char *name; /* basename, inside path */
	uint64_t base;	  /* load bias: runtime address = base + st_value */
	void *tls_data;	  /* the calling thread's PT_TLS block, if any */
	uint64_t text_lo; /* executable PT_LOAD segments span [text_lo, text_hi) */
	uint64_t text_hi;
	uint64_t dynamic;	       /* its PT_DYNAMIC in memory; 0 if none */
	uint64_t segs[ELFOBJ_SEGS][2]; /* the first of them, their pages no other segment maps */
	int nsegs;
	bool is_main;
	bool is_shim; /* libextprof.so, or a library only it needs (libZydis) */
};

/* Which table a symbol comes from. */
enum elfsym_table {
	ELFSYM_DYNSYM, /* exported: what the dynamic linker binds */
	ELFSYM_SYMTAB, /* the file's own .symtab */
	ELFSYM_DEBUG,  /* the .symtab of its separate debug file (by build-id) */
};

struct elf_sym {
	const char *name;    /* without its version */
	const char *version; /* "GLIBC_2.14"; NULL when unversioned */
	bool hidden;	     /* a version other than the default: name@V, not name@@V */
	uint64_t value;	     /* st_value */
	uint64_t size;
	uint8_t type;  /* STT_FUNC, STT_GNU_IFUNC, STT_OBJECT, STT_TLS, ... */
	uint8_t bind;  /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint8_t table; /* enum elfsym_table */
	bool defined;
	uint32_t shndx; /* st_shndx */
};

typedef int (*elfsym_fn)(const struct elf_sym *sym, void *arg);

/* The loaded objects, the main program first, at most @max: how many. */
int elfobj_list(struct elf_object *objs, int max);
/* Whether @basename is the shim's object (libextprof.so, and versions of it). */
bool elfobj_is_shim(const char *basename);
/* Whether [@addr, @addr + @size) is code of @object: nothing else is read or patched. */
bool elfobj_in_text(const struct elf_object *object, uint64_t addr, uint64_t size);

/*
 * Call @fn for every named symbol of the file at @path: .dynsym first, with
 * its versions, then .symtab, or without one the .symtab of the file's
 * separate debug file (/usr/lib/debug/.build-id/NN/REST.debug, as Debian's
 * -dbg packages install them).  A symbol in several tables is seen once
 * per table.  A non-zero return from @fn stops the walk and is returned.
 */
int elfsym_each(const char *path, elfsym_fn fn, void *arg);

struct Elf;
typedef struct Elf Elf;

/* The same walk over an ELF already open, without the debug file. */
int elfsym_each_elf(Elf *elf, elfsym_fn fn, void *arg);
/* Only the .symtab of @elf, as @table says it is (the debug file's). */
int elfsym_each_symtab(Elf *elf, uint8_t table, elfsym_fn fn, void *arg);

/* Whether @elf has a .symtab of its own (is not stripped). */
bool elfsym_has_symtab(Elf *elf);

/* @elf's separate debug file, if one is installed: 0, or -ENOENT. */
int elfsym_debug_path(Elf *elf, char *buf, size_t len);

/*
 * Call @fn with the start and size of every function @elf's .eh_frame
 * describes (as st_values are: offsets from the load base).  Returns the
 * number seen, or -1 when the section is malformed (after those before).
 */
long elffde_each(Elf *elf, void (*fn)(uint64_t start, uint64_t size, void *arg), void *arg);

/*
 * The running program's path into @buf: its length, or -1.  /proc/self/exe
 * first (valgrind answers it for the program it runs, not its own tool),
 * then /proc/thread-self/exe (a process whose main thread has exited shows
 * none in /proc/self).
 */
ssize_t elfsym_exe_path(char *buf, size_t size);

/* Open @path for libelf: 0, or -errno; close with elfsym_close. */
int elfsym_open(const char *path, int *fd, Elf **elf);
/* Close what elfsym_open opened. */
void elfsym_close(int fd, Elf *elf);

#endif
