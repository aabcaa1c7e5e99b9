/* SPDX-License-Identifier: MIT */
/* elfsyms: the loaded ELF objects and the symbols of their .symtab and .dynsym. */
#ifndef EXTPROF_PRELOAD_ELFSYMS_H
#define EXTPROF_PRELOAD_ELFSYMS_H

#include <stdbool.h>
#include <stdint.h>

#define ELFOBJ_MAX 512

struct elf_object {
	char path[4096];
	const char *name; /* basename, inside path */
	uint64_t base;	  /* load bias: runtime address = base + st_value */
	void *tls_data;	  /* the calling thread's PT_TLS block, if any */
	uint64_t text_lo; /* executable PT_LOAD segments span [text_lo, text_hi) */
	uint64_t text_hi;
	bool is_main;
	bool is_shim;
};

struct elf_sym {
	const char *name;
	uint64_t value; /* st_value */
	uint64_t size;
	uint8_t type; /* STT_FUNC, STT_OBJECT, STT_TLS, ... */
	bool defined;
};

typedef int (*elfsym_fn)(const struct elf_sym *sym, void *arg);

int elfobj_list(struct elf_object *objs, int max);
int elfsym_each(const char *path, elfsym_fn fn, void *arg);
bool elfobj_in_text(const struct elf_object *o, uint64_t addr, uint64_t size);

#endif
