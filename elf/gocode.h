/* SPDX-License-Identifier: MIT */
/*
 * gocode: where an ELF object's Go code lies.  Go's runtime walks a
 * goroutine's stack by its return addresses, with the table the Go linker
 * wrote (.gopclntab), to grow the stack (it copies it), to collect garbage,
 * to unwind a panic, to preempt: a return address in a stub is in no Go
 * function, and the program dies ("fatal error: unknown caller pc").  So
 * the Go functions of an object (a cgo program, a c-shared library) are
 * never hooked; the C functions linked beside them are.
 */
#ifndef EXTPROF_PRELOAD_GOCODE_H
#define EXTPROF_PRELOAD_GOCODE_H

#include <stddef.h>
#include <stdint.h>

enum gocode_kind {
	GOCODE_NONE,	/* no Go in the object */
	GOCODE_RANGE,	/* Go's text is [lo, hi), from its pclntab or runtime.text */
	GOCODE_UNKNOWN, /* a Go object (.go.buildinfo) whose Go text cannot be found */
};

struct gocode {
	uint8_t kind; /* enum gocode_kind */
	uint64_t lo, hi;
};

/* What the object's symbols say: the values of runtime.pclntab, .text, .etext (0: none). */
struct gocode_syms {
	uint64_t pclntab, text, etext;
};

/*
 * The text the Go functions of the pclntab @pclntab (@size bytes, any format
 * from Go 1.2 to 1.22) span, [*@low, *@high): 0, or -1 when @pclntab is none
 * of them.
 */
int gocode_pclntab_range(const uint8_t *pclntab, size_t size, uint64_t *low, uint64_t *high);

struct Elf;
typedef struct Elf Elf;

/* Where @elf's Go code lies, from its sections and the symbols @syms, into @code. */
void gocode_find(Elf *elf, const struct gocode_syms *syms, struct gocode *code);

/* Whether the function at @value is Go code by @gocode. */
static inline int gocode_holds(const struct gocode *gocode, uint64_t value)
{
	return gocode->kind == GOCODE_UNKNOWN ||
	       (gocode->kind == GOCODE_RANGE && value >= gocode->lo && value < gocode->hi);
}

#endif
