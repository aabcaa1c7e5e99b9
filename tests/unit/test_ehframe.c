// SPDX-License-Identifier: MIT
/*
 * elf/ehframe.c, the .eh_frame reader the shim and `extprof symbols`
 * share: on real objects (this test program, libc) every FDE matches what
 * the symbols say of the functions both know; on every truncation and on
 * thousands of mutations of real bytes it never reads outside them (the
 * unit tests run under ASan and UBSan too) and never loops.  And
 * elf/gocode.c's pclntab reader, on every format and on bad bytes.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "ehframe.h"
#include "elfsyms.h"
#include "functab.h"
#include "gocode.h"

struct section {
	uint8_t *bytes;
	size_t size;
	uint64_t addr;
};

/* A copy of @path's .eh_frame. */
static void read_eh_frame(const char *path, struct section *s)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;
	int fd;

	cr_assert_eq(elfsym_open(path, &fd, &elf), 0, "%s", path);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	memset(s, 0, sizeof(*s));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".eh_frame") || !(d = elf_getdata(scn, NULL)))
			continue;
		s->bytes = malloc(d->d_size);
		cr_assert(s->bytes);
		memcpy(s->bytes, d->d_buf, d->d_size);
		s->size = d->d_size;
		s->addr = sh.sh_addr;
	}
	elfsym_close(fd, elf);
	cr_assert(s->size, "%s has no .eh_frame", path);
}

struct count {
	long n;
	uint64_t lo, hi; /* the span of the section's addresses FDEs may point into */
	long outside;
};

static void count_fde(uint64_t start, uint64_t size, void *arg)
{
	struct count *c = arg;

	c->n++;
	if (size == 0 || start + size < start)
		c->outside++;
}

Test(ehframe, real_objects_match_their_symbols)
{
	const char *paths[] = {"/proc/self/exe", "/lib/x86_64-linux-gnu/libc.so.6"};

	for (size_t k = 0; k < 2; k++) {
		struct functab t;
		size_t both = 0, agree = 0;

		cr_assert_eq(functab_read(&t, paths[k]), 0, "%s", paths[k]);
		cr_expect_gt(t.nfdes, 5, "%s: %zu FDEs", paths[k], t.nfdes);
		cr_expect(!t.fdes_bad, "%s: .eh_frame read as malformed", paths[k]);
		/* a function with both a symbol and an FDE: the same start and size */
		for (size_t i = 0; i < t.nsyms; i++) {
			const struct functab_sym *s = &t.syms[i];
			const struct functab_fde *f = functab_fde_at(&t, s->value);

			if (s->type != STT_FUNC || !f)
				continue;
			both++;
			agree += f->size == s->size;
		}
		cr_expect_gt(both, 5, "%s", paths[k]);
		cr_expect_geq(agree * 10, both * 9, "%s: %zu of %zu sizes agree", paths[k], agree,
			      both);
		functab_free(&t);
	}
}

/* Every prefix of real bytes, and random mutations of them: no fault, no hang. */
Test(ehframe, truncated_and_mutated, .timeout = 60)
{
	struct section s;
	struct count c = {0, 0, 0, 0};
	long whole;

	read_eh_frame("/proc/self/exe", &s);
	whole = ehframe_walk(s.bytes, s.size, s.addr, count_fde, &c);
	cr_assert_gt(whole, 0);
	for (size_t n = 0; n <= s.size; n++) {
		uint8_t *copy = malloc(n + 1);
		struct count k = {0, 0, 0, 0};
		long got;

		memcpy(copy, s.bytes, n);
		got = ehframe_walk(copy, n, s.addr, count_fde, &k);
		cr_expect(got >= -1 && got <= whole, "prefix %zu: %ld", n, got);
		free(copy);
	}
	srand(12345);
	for (int round = 0; round < 4000; round++) {
		uint8_t *copy = malloc(s.size);
		struct count k = {0, 0, 0, 0};
		int flips = 1 + rand() % 8;

		memcpy(copy, s.bytes, s.size);
		for (int f = 0; f < flips; f++)
			copy[(size_t)rand() % s.size] ^= (uint8_t)(1u << (rand() % 8));
		cr_expect_geq(ehframe_walk(copy, s.size, s.addr, count_fde, &k), -1);
		free(copy);
	}
	free(s.bytes);
}

/*
 * elf/gocode.c's pclntab header reader, in each format the Go linker
 * has written (1.2, 1.16, 1.18, 1.20): the text its function table spans;
 * on every truncation and on mutations, -1 or a range, never a read past
 * the bytes (ASan).
 */
struct pcln {
	uint8_t b[512];
	size_t n;
};

static void pcln_u64(struct pcln *p, size_t at, uint64_t v)
{
	memcpy(p->b + at, &v, sizeof(v));
}

static void pcln_u32(struct pcln *p, size_t at, uint32_t v)
{
	memcpy(p->b + at, &v, sizeof(v));
}

/* A pclntab of @magic with 3 functions from 0x401000 to 0x401300 (text ending 0x401400). */
static void pcln_make(struct pcln *p, uint32_t magic)
{
	static const uint64_t pcs[4] = {0x401000, 0x401100, 0x401300, 0x401400};

	memset(p, 0, sizeof(*p));
	pcln_u32(p, 0, magic);
	p->b[6] = 1;
	p->b[7] = 8;
	pcln_u64(p, 8, 3);
	if (magic == 0xfffffffb) {
		for (int i = 0; i < 4; i++)
			pcln_u64(p, 16 + 16 * (size_t)i, pcs[i]);
		p->n = 16 + 4 * 16;
	} else if (magic == 0xfffffffa) {
		pcln_u64(p, 56, 128);
		for (int i = 0; i < 4; i++)
			pcln_u64(p, 128 + 16 * (size_t)i, pcs[i]);
		p->n = 128 + 4 * 16;
	} else {
		pcln_u64(p, 24, 0x401000);
		pcln_u64(p, 64, 128);
		for (int i = 0; i < 4; i++)
			pcln_u32(p, 128 + 8 * (size_t)i, (uint32_t)(pcs[i] - 0x401000));
		p->n = 128 + 4 * 8;
	}
}

Test(gocode, every_pclntab_format)
{
	static const uint32_t magics[] = {0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1};

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		struct pcln p;
		uint64_t lo = 0, hi = 0;

		pcln_make(&p, magics[i]);
		cr_expect_eq(gocode_pclntab_range(p.b, p.n, &lo, &hi), 0, "magic %x", magics[i]);
		cr_expect(lo == 0x401000 && hi == 0x401400, "magic %x: [%lx, %lx)", magics[i],
			  (unsigned long)lo, (unsigned long)hi);
		/* truncated: refused, never read past its end */
		for (size_t n = 0; n < p.n; n++) {
			uint8_t *copy = malloc(n ? n : 1);

			cr_assert(copy);
			memcpy(copy, p.b, n);
			cr_expect_eq(gocode_pclntab_range(copy, n, &lo, &hi), -1,
				     "magic %x, %zu bytes", magics[i], n);
			free(copy);
		}
		/* mutated: -1 or a range, within the bytes */
		srand(7 + (unsigned)i);
		for (int k = 0; k < 4000; k++) {
			uint8_t *copy = malloc(p.n);

			cr_assert(copy);
			memcpy(copy, p.b, p.n);
			for (int m = 0; m < 1 + k % 4; m++)
				copy[(size_t)rand() % (k % 3 ? 80 : p.n)] = (uint8_t)rand();
			if (!gocode_pclntab_range(copy, p.n, &lo, &hi))
				cr_expect(lo < hi);
			free(copy);
		}
	}
}

/* Not Go: no pclntab, whatever follows its first bytes. */
Test(gocode, not_a_pclntab)
{
	struct pcln p;
	uint64_t lo, hi;

	pcln_make(&p, 0xfffffff1);
	p.b[7] = 4; /* 4-byte pointers: not x86-64's */
	cr_expect_eq(gocode_pclntab_range(p.b, p.n, &lo, &hi), -1);
	pcln_make(&p, 0xfffffff1);
	pcln_u32(&p, 0, 0x464c457f); /* "\x7fELF" */
	cr_expect_eq(gocode_pclntab_range(p.b, p.n, &lo, &hi), -1);
	pcln_make(&p, 0xfffffff0);
	pcln_u64(&p, 64, 1u << 30); /* the function table past the end */
	cr_expect_eq(gocode_pclntab_range(p.b, p.n, &lo, &hi), -1);
}
