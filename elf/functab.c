// SPDX-License-Identifier: MIT
/*
 * functab: one object's functions, named and unnamed, in two orders: by
 * name for matching entries, by address for "what is at 0x1a2b" and "what
 * holds it".  A function named in several tables (.dynsym and .symtab,
 * the debug file's) is kept once, with .dynsym's version, which is the
 * dynamic linker's; aliases (several names, one address) all stay.
 */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "functab.h"

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

struct functab_build {
	struct functab *t;
	size_t cap;
	size_t fde_cap;
	size_t label_cap;
	int err;
	struct gocode_syms go;
};

/*
 * Room for one more item of @size bytes in the array *@pv, which holds @n
 * of *@cap: doubled when full, @first at first (the shim's side of the
 * analyzer's xp_grow, which it does not link).  0 or -ENOMEM.
 */
static int functab_grow(void *pv, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap * 2 : first;
	void *v;

	if (n < *cap)
		return 0;
	if (ncap < *cap || ncap > SIZE_MAX / size)
		return -ENOMEM;
	/* *pv is a T *: read and written as bytes, whatever T is */
	memcpy(&v, pv, sizeof(v));
	v = realloc(v, ncap * size);
	if (!v)
		return -ENOMEM;
	memcpy(pv, &v, sizeof(v));
	*cap = ncap;
	return 0;
}

/* Where @elf's PLT sections lie. */
static void functab_find_plt(Elf *elf, struct functab *t)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) && t->nplt < 4) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strncmp(name, ".plt", 4)) {
			t->plt[t->nplt][0] = sh.sh_addr;
			t->plt[t->nplt][1] = sh.sh_addr + sh.sh_size;
			t->nplt++;
		}
	}
}

/* Whether @addr lies in a PLT section. */
static bool functab_in_plt(const struct functab *t, uint64_t addr)
{
	for (int i = 0; i < t->nplt; i++) {
		if (addr >= t->plt[i][0] && addr < t->plt[i][1])
			return true;
	}
	return false;
}

const char *functab_intern(struct functab *table, const char *name, int *err)
{
	size_t n = strlen(name) + 1;
	char *p;

	if (table->strings_used + n > table->strings_cap) {
		/* chunks of their own: names already handed out must not move */
		size_t cap = n > 65536 ? n + sizeof(char *) : 65536;
		char *chunk = malloc(cap + sizeof(char *));

		if (!chunk) {
			*err = -ENOMEM;
			return NULL;
		}
		memcpy(chunk, &table->strings, sizeof(char *));
		table->strings = chunk;
		table->strings_used = sizeof(char *);
		table->strings_cap = cap + sizeof(char *);
	}
	p = table->strings + table->strings_used;
	memcpy(p, name, n);
	table->strings_used += n;
	return p;
}

/*
 * A label: a symbol that names an address but no sized function (an asm
 * entry point without .size, a NOTYPE symbol).  Code may be entered there,
 * so the padding a label marks is never patched.
 */
static int functab_visit_label(const struct elf_sym *s, struct functab_build *b)
{
	struct functab *t = b->t;

	if (!s->name[0] || s->shndx == SHN_ABS || s->shndx == SHN_COMMON)
		return 0;
	if ((b->err = functab_grow(&t->labels, &b->label_cap, t->nlabels, sizeof(*t->labels), 256)))
		return 1;
	t->labels[t->nlabels].value = s->value;
	t->labels[t->nlabels].name = functab_intern(t, s->name, &b->err);
	if (b->err)
		return 1;
	t->nlabels++;
	return 0;
}

static int functab_visit(const struct elf_sym *s, void *arg)
{
	struct functab_build *b = arg;
	struct functab *t = b->t;
	struct functab_sym *x;

	if (!s->defined)
		return 0;
	if (!strncmp(s->name, "runtime.", 8)) {
		/* Go's: where its function table and its text are */
		if (!strcmp(s->name + 8, "pclntab"))
			b->go.pclntab = s->value;
		else if (!strcmp(s->name + 8, "text"))
			b->go.text = s->value;
		else if (!strcmp(s->name + 8, "etext"))
			b->go.etext = s->value;
	}
	if (s->type == STT_NOTYPE || (s->type == STT_FUNC && !s->size))
		return functab_visit_label(s, b);
	/* an IFUNC's size is its resolver's, and may be 0 in hand-written ones */
	if (s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
		return 0;
	if ((b->err = functab_grow(&t->syms, &b->cap, t->nsyms, sizeof(*t->syms), 1024)))
		return 1;
	x = &t->syms[t->nsyms];
	memset(x, 0, sizeof(*x));
	x->name = functab_intern(t, s->name, &b->err);
	if (s->version)
		x->version = functab_intern(t, s->version, &b->err);
	if (b->err)
		return 1;
	x->value = s->value;
	x->size = s->size;
	x->type = s->type;
	x->table = s->table;
	x->tables = (uint8_t)(1u << s->table);
	x->shndx = s->shndx;
	x->hidden = s->hidden;
	x->global = s->bind != STB_LOCAL;
	t->nsyms++;
	return 0;
}

static void functab_visit_fde(uint64_t start, uint64_t size, void *arg)
{
	struct functab_build *b = arg;
	struct functab *t = b->t;

	if (b->err)
		return;
	/* the PLT has an FDE, but it is the dynamic linker's trampolines, not a function */
	if (functab_in_plt(t, start))
		return;
	if ((b->err = functab_grow(&t->fdes, &b->fde_cap, t->nfdes, sizeof(*t->fdes), 1024)))
		return;
	t->fdes[t->nfdes].start = start;
	t->fdes[t->nfdes].size = size;
	t->nfdes++;
}

static int functab_cmp_name(const void *a, const void *b)
{
	const struct functab_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* .dynsym first: functab_dedup keeps it */
	if (x->table != y->table)
		return (int)x->table - (int)y->table;
	return strcmp(x->version ? x->version : "", y->version ? y->version : "");
}

/* By value; at one value the best name first (see functab_sym_at). */
static int functab_cmp_value(const void *a, const void *b)
{
	const struct functab_sym *x = *(struct functab_sym *const *)a;
	const struct functab_sym *y = *(struct functab_sym *const *)b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	if (x->hidden != y->hidden)
		return x->hidden ? 1 : -1;
	if ((x->table == ELFSYM_DYNSYM) != (y->table == ELFSYM_DYNSYM))
		return x->table == ELFSYM_DYNSYM ? -1 : 1;
	/* "memcpy" before "__memcpy_chk_alias": the shorter, then the order of names */
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int functab_cmp_fde(const void *a, const void *b)
{
	const struct functab_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/*
 * The same name at the same value from a later table adds nothing: keep
 * the first (.dynsym, whose version is the dynamic linker's); a .symtab
 * name without a version beside it is that very symbol.
 */
static void functab_dedup(struct functab *t)
{
	size_t out = 0;

	for (size_t i = 0; i < t->nsyms; i++) {
		struct functab_sym *s = &t->syms[i];
		size_t j = out;
		bool dup = false;

		while (j > 0 && !strcmp(t->syms[j - 1].name, s->name) &&
		       t->syms[j - 1].value == s->value) {
			const struct functab_sym *k = &t->syms[j - 1];

			if (!s->version || (k->version && !strcmp(k->version, s->version)) ||
			    (!k->version && k->table != ELFSYM_DYNSYM)) {
				t->syms[j - 1].tables |= s->tables;
				dup = true;
				break;
			}
			j--;
		}
		if (dup)
			continue;
		t->syms[out++] = *s;
	}
	t->nsyms = out;
}

static int functab_cmp_label(const void *a, const void *b)
{
	const struct functab_label *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Static functions of several files may share a name (glibc has eight
 * round_and_return): each is a function of its own, and its declaration
 * must be too, or one's calls would be taken for another's.
 */
static void functab_mark_homonyms(struct functab *t)
{
	for (size_t i = 1; i < t->nsyms; i++) {
		struct functab_sym *a = &t->syms[i - 1], *b = &t->syms[i];

		if (a->value != b->value && !strcmp(a->name, b->name) && a->hidden == b->hidden &&
		    !strcmp(a->version ? a->version : "", b->version ? b->version : ""))
			a->homonym = b->homonym = true;
	}
}

static int functab_index(struct functab *t)
{
	qsort(t->syms, t->nsyms, sizeof(*t->syms), functab_cmp_name);
	functab_dedup(t);
	functab_mark_homonyms(t);
	t->by_value = malloc((t->nsyms + 1) * sizeof(*t->by_value));
	if (!t->by_value)
		return -ENOMEM;
	for (size_t i = 0; i < t->nsyms; i++)
		t->by_value[i] = &t->syms[i];
	qsort(t->by_value, t->nsyms, sizeof(*t->by_value), functab_cmp_value);
	qsort(t->fdes, t->nfdes, sizeof(*t->fdes), functab_cmp_fde);
	qsort(t->labels, t->nlabels, sizeof(*t->labels), functab_cmp_label);
	return 0;
}

static bool functab_relocatable(Elf *elf, uint64_t *entry)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return false;
	*entry = eh.e_type == ET_REL ? 0 : eh.e_entry;
	return eh.e_type == ET_REL;
}

int functab_read_elf(struct functab *table, Elf *elf, bool no_debug)
{
	struct functab_build b = {table, 0, 0, 0, 0, {0, 0, 0}};
	int dfd;
	Elf *delf;

	memset(table, 0, sizeof(*table));
	elfsym_each_elf(elf, functab_visit, &b);
	table->has_symtab = elfsym_has_symtab(elf);
	if (!b.err && !table->has_symtab && !no_debug &&
	    !elfsym_debug_path(elf, table->debug_path, sizeof(table->debug_path)) &&
	    !elfsym_open(table->debug_path, &dfd, &delf)) {
		table->has_debug = true;
		elfsym_each_symtab(delf, ELFSYM_DEBUG, functab_visit, &b);
		elfsym_close(dfd, delf);
	}
	functab_find_plt(elf, table);
	gocode_find(elf, &b.go, &table->go);
	/* a relocatable object's FDEs point nowhere yet */
	if (!b.err && !functab_relocatable(elf, &table->entry) &&
	    elffde_each(elf, functab_visit_fde, &b) < 0)
		table->fdes_bad = true;
	if (!b.err)
		b.err = functab_index(table);
	if (b.err)
		functab_free(table);
	return b.err;
}

int functab_read(struct functab *table, const char *path)
{
	Elf *elf;
	int fd, err = elfsym_open(path, &fd, &elf);

	if (err) {
		memset(table, 0, sizeof(*table));
		return err;
	}
	err = functab_read_elf(table, elf, false);
	elfsym_close(fd, elf);
	return err;
}

void functab_free(struct functab *table)
{
	char *chunk = table->strings;

	while (chunk) {
		char *next;

		memcpy(&next, chunk, sizeof(next));
		free(chunk);
		chunk = next;
	}
	free(table->syms);
	free(table->by_value);
	free(table->fdes);
	free(table->labels);
	free(table->jumps);
	memset(table, 0, sizeof(*table));
}

/* The index of the last FDE starting at or before @addr, or -1. */
static long functab_fde_floor(const struct functab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nfdes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->fdes[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

const struct functab_fde *functab_fde_at(const struct functab *table, uint64_t start)
{
	long i = functab_fde_floor(table, start);

	/* of equal starts (rare), the last: the longest */
	if (i < 0 || table->fdes[i].start != start)
		return NULL;
	return &table->fdes[i];
}

const struct functab_fde *functab_fde_holding(const struct functab *table, uint64_t addr)
{
	long i = functab_fde_floor(table, addr);

	if (i < 0 || addr - table->fdes[i].start >= table->fdes[i].size)
		return NULL;
	return &table->fdes[i];
}

/* The first by_value index whose value is above @value. */
static size_t functab_value_upper(const struct functab *t, uint64_t value)
{
	size_t lo = 0, hi = t->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->by_value[mid]->value <= value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct functab_sym *functab_sym_at(const struct functab *table, uint64_t value)
{
	size_t i = functab_value_upper(table, value), j = i;

	while (j > 0 && table->by_value[j - 1]->value == value)
		j--;
	return j < i ? table->by_value[j] : NULL;
}

const struct functab_sym *functab_sym_holding(const struct functab *table, uint64_t addr)
{
	size_t i = functab_value_upper(table, addr);
	const struct functab_sym *best = NULL;

	/* nested ranges are rare: a few steps back find the innermost */
	for (size_t steps = 0; i > 0 && steps < 64; i--, steps++) {
		const struct functab_sym *s = table->by_value[i - 1];

		if (addr - s->value < s->size && (!best || s->value > best->value))
			best = s;
		if (best && s->value < best->value)
			break;
	}
	return best;
}

uint64_t functab_size_at(const struct functab *table, uint64_t value)
{
	const struct functab_fde *f = functab_fde_at(table, value);
	size_t i;

	if (f)
		return f->size;
	for (i = functab_value_upper(table, value); i > 0 && table->by_value[i - 1]->value == value;
	     i--) {
		if (table->by_value[i - 1]->size && table->by_value[i - 1]->type == STT_FUNC)
			return table->by_value[i - 1]->size;
	}
	return 0;
}

const char *functab_sym_name(const struct functab_sym *sym, char *buf, size_t len)
{
	int n;

	if (sym->hidden && sym->version)
		n = snprintf(buf, len, "%s@%s", sym->name, sym->version);
	else
		n = snprintf(buf, len, "%s", sym->name);
	if (sym->homonym && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "@0x%llx", (unsigned long long)sym->value);
	return buf;
}

struct functab_scan {
	struct functab *t;
	size_t cap;
	int err;
};

/* Whether a function starts at @v: a call or tail call there is a call. */
static bool functab_is_start(const struct functab *t, uint64_t v)
{
	return functab_fde_at(t, v) || functab_sym_at(t, v);
}

static void functab_visit_branch(uint64_t from, uint64_t target, void *arg)
{
	struct functab_scan *s = arg;
	struct functab *t = s->t;

	/*
	 * A call or tail call to a function's start is a call, and a branch to
	 * the PLT one of the dynamic linker's: any other lands inside a
	 * function's bytes or in the padding between two, which the patch
	 * of the function after it may use.
	 */
	if (s->err || functab_is_start(t, target) || functab_in_plt(t, target))
		return;
	if ((s->err = functab_grow(&t->jumps, &s->cap, t->njumps, sizeof(*t->jumps), 256)))
		return;
	t->jumps[t->njumps].target = target;
	t->jumps[t->njumps].from = from;
	t->njumps++;
}

static int functab_cmp_jump(const void *a, const void *b)
{
	const struct functab_jump *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

int functab_scan_jumps(struct functab *table, functab_code_fn code, void *arg,
		       functab_branches_fn each)
{
	struct functab_scan s = {table, 0, 0};

	if (table->jumps_scanned)
		return table->jumps_err;
	table->jumps_scanned = true;
	for (size_t i = 0; i < table->nfdes && !s.err; i++) {
		const uint8_t *p = code(table->fdes[i].start, table->fdes[i].size, arg);

		if (p)
			each(p, table->fdes[i].size, table->fdes[i].start, functab_visit_branch,
			     &s);
	}
	/* and the named functions no FDE describes (hand-written ones without CFI) */
	for (size_t i = 0; i < table->nsyms && !s.err; i++) {
		const struct functab_sym *f = table->by_value[i];
		const uint8_t *p;

		if (f->type != STT_FUNC || functab_fde_holding(table, f->value) ||
		    (i && table->by_value[i - 1]->value == f->value))
			continue;
		p = code(f->value, f->size, arg);
		if (p)
			each(p, f->size, f->value, functab_visit_branch, &s);
	}
	qsort(table->jumps, table->njumps, sizeof(*table->jumps), functab_cmp_jump);
	table->jumps_err = s.err;
	return s.err;
}

const struct functab_jump *functab_jump_into(const struct functab *table, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = table->njumps;

	/* the first jump whose target is above lo */
	while (a < b) {
		size_t mid = (a + b) / 2;

		if (table->jumps[mid].target <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < table->njumps && table->jumps[a].target < hi ? &table->jumps[a] : NULL;
}

bool functab_code_before(const struct functab *table, uint64_t value, uint64_t *start,
			 uint64_t *end)
{
	long i = value ? functab_fde_floor(table, value - 1) : -1;
	size_t k = functab_value_upper(table, value ? value - 1 : 0);
	bool known = false;

	*start = *end = 0;
	/* ranges rarely nest: the last few before @value decide; an FDE first */
	for (int steps = 0; i >= 0 && steps < 8; i--, steps++) {
		uint64_t e = table->fdes[i].start + table->fdes[i].size;

		if (!known || e > *end) {
			*start = table->fdes[i].start;
			*end = e;
		}
		known = true;
	}
	for (int steps = 0; value && k > 0 && steps < 8; k--, steps++) {
		const struct functab_sym *s = table->by_value[k - 1];

		if (s->value >= value)
			continue;
		if (!known || s->value + s->size > *end) {
			*start = s->value;
			*end = s->value + s->size;
		}
		known = true;
	}
	return known && *end <= value;
}

const char *functab_label_in(const struct functab *table, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = table->nlabels;

	/* the first label at or above lo */
	while (a < b) {
		size_t mid = (a + b) / 2;

		if (table->labels[mid].value < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < table->nlabels && table->labels[a].value < hi ? table->labels[a].name : NULL;
}
