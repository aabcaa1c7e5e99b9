// SPDX-License-Identifier: MIT
/*
 * gocode: the Go text of an object, from its pclntab's header and the
 * last entry of its function table (which the Go linker ends with the
 * end of the text), or from the symbols runtime.text and runtime.etext.
 *
 *   Go 1.2   magic fffffffb  nfunc at 8; (pc, off) pairs of pointers at 16
 *   Go 1.16  magic fffffffa  nfunc at 8; (pc, off) pointers at pclnOffset
 *   Go 1.18  magic fffffff0  nfunc at 8, textStart at 24; (entryoff, off)
 *   Go 1.20  magic fffffff1  as 1.18     u32 pairs at pclnOffset (at 64)
 *
 * Every pc there is a link-time address: an offset from the load base in a
 * PIE or a shared object, as st_value is.  Pure over bytes: fuzzable, and
 * the shim and `extprof symbols` read the same.
 */
#include <stdbool.h>
#include <string.h>

#include <gelf.h>

#include "gocode.h"

static uint64_t gocode_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t gocode_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int gocode_pclntab_range(const uint8_t *p, size_t n, uint64_t *lo, uint64_t *hi)
{
	uint64_t nfunc, off;
	uint32_t magic;

	/* the header: magic, two zero bytes, the pc quantum (1 on x86), 8-byte pointers */
	if (n < 16 || p[4] || p[5] || p[6] != 1 || p[7] != 8)
		return -1;
	magic = gocode_u32(p);
	nfunc = gocode_u64(p + 8);
	if (!nfunc || nfunc > n)
		return -1;
	switch (magic) {
	case 0xfffffffb:
		if (16 + (nfunc + 1) * 16 > n)
			return -1;
		*lo = gocode_u64(p + 16);
		*hi = gocode_u64(p + 16 + nfunc * 16);
		break;
	case 0xfffffffa:
		if (n < 64 || (off = gocode_u64(p + 56)) > n || (nfunc + 1) * 16 > n - off)
			return -1;
		*lo = gocode_u64(p + off);
		*hi = gocode_u64(p + off + nfunc * 16);
		break;
	case 0xfffffff0:
	case 0xfffffff1:
		if (n < 72 || (off = gocode_u64(p + 64)) > n || (nfunc + 1) * 8 > n - off)
			return -1;
		*lo = gocode_u64(p + 24) + gocode_u32(p + off);
		*hi = gocode_u64(p + 24) + gocode_u32(p + off + nfunc * 8);
		break;
	default:
		return -1;
	}
	return *lo < *hi ? 0 : -1;
}

/* The bytes at link-time address @addr in a section of @elf, and how many follow. */
static const uint8_t *gocode_bytes_at(Elf *elf, uint64_t addr, size_t *n)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr ||
		    addr - sh.sh_addr >= sh.sh_size || !(data = elf_getdata(scn, NULL)) ||
		    !data->d_buf || addr - sh.sh_addr >= data->d_size)
			continue;
		*n = data->d_size - (addr - sh.sh_addr);
		return (const uint8_t *)data->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

void gocode_find(Elf *elf, const struct gocode_syms *s, struct gocode *g)
{
	uint64_t pclntab = s->pclntab;
	Elf_Scn *scn = NULL;
	bool go = s->pclntab || s->text;
	size_t shstrndx, n = 0;
	const uint8_t *p;

	memset(g, 0, sizeof(*g));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".gopclntab"))
			pclntab = sh.sh_addr;
		go |= !strcmp(name, ".gopclntab") || !strcmp(name, ".go.buildinfo") ||
		      !strcmp(name, ".note.go.buildid");
	}
	if (!go)
		return;
	g->kind = GOCODE_RANGE;
	if (pclntab && (p = gocode_bytes_at(elf, pclntab, &n)) &&
	    !gocode_pclntab_range(p, n, &g->lo, &g->hi))
		return;
	if (s->text && s->etext > s->text) {
		g->lo = s->text;
		g->hi = s->etext;
		return;
	}
	g->kind = GOCODE_UNKNOWN;
}
