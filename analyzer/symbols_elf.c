// SPDX-License-Identifier: MIT
/*
 * symbols_elf: list an ELF file's functions with libelf and ask the shim's
 * patch planner (insn_plan_patch, linked from preload/) about each entry,
 * so that `extprof symbols` and the shim never disagree.
 *
 * The planner takes the function's address for the branch targets it
 * computes; the file's st_value serves, since only differences matter.  In
 * a relocatable object (.o) the branches to other sections are not
 * relocated yet, so the verdict there is about the function's own code.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "insn.h"
#include "symbols_elf.h"

static int funcs_push(struct xp_funcs *f, const char *name, const GElf_Sym *sym, bool dyn)
{
	struct xp_func *fn;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 256;
		struct xp_func *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->v = v;
		f->cap = cap;
	}
	fn = &f->v[f->n];
	memset(fn, 0, sizeof(*fn));
	fn->name = strdup(name);
	if (!fn->name)
		return -ENOMEM;
	fn->address = sym->st_value;
	fn->size = sym->st_size;
	fn->shndx = sym->st_shndx;
	fn->in_dynsym = dyn;
	fn->in_symtab = !dyn;
	f->n++;
	return 0;
}

/* The shim's verdict on @fn, whose symbol points into section @shndx. */
static void judge(Elf *elf, struct xp_funcs *f, struct xp_func *fn)
{
	Elf_Scn *scn = elf_getscn(elf, fn->shndx);
	struct insn_plan plan;
	GElf_Shdr sh;
	Elf_Data *data;
	uint64_t off;

	if (!scn || !gelf_getshdr(scn, &sh)) {
		snprintf(fn->why, sizeof(fn->why), "is in no section of the file");
		return;
	}
	if (!(sh.sh_flags & SHF_EXECINSTR)) {
		/* the shim's words (preload/hooks.c) */
		snprintf(fn->why, sizeof(fn->why), "is not in an executable segment");
		return;
	}
	if (sh.sh_type == SHT_NOBITS) {
		snprintf(fn->why, sizeof(fn->why), "has no code in this file (a debug file?)");
		return;
	}
	off = f->elf_type == ET_REL ? fn->address : fn->address - sh.sh_addr;
	if (f->elf_type != ET_REL && fn->address < sh.sh_addr)
		off = UINT64_MAX;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || off > data->d_size || fn->size > data->d_size - off) {
		snprintf(fn->why, sizeof(fn->why), "runs past the end of its section");
		return;
	}
	fn->ok = insn_plan_patch((const uint8_t *)data->d_buf + off, fn->size, fn->address, &plan,
				 fn->why, sizeof(fn->why)) == 0;
	if (fn->ok)
		fn->why[0] = '\0';
}

static int read_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct xp_funcs *f,
		      const char *path, struct xp_err *e)
{
	bool dyn = sh->sh_type == SHT_DYNSYM;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count;

	if (!sh->sh_entsize)
		return 0;
	if (!data)
		return xp_err_set(e, -EINVAL, "%s: unreadable symbol table: %s", path,
				  elf_errmsg(-1));
	count = data->d_size / sh->sh_entsize;
	for (size_t i = 1; i < count; i++) {
		const char *name;
		GElf_Sym sym;
		int err;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (dyn)
			f->dynsym_funcs++;
		err = funcs_push(f, name, &sym, dyn);
		if (err)
			return xp_err_set(e, err, "%s: %s", path, strerror(-err));
	}
	return 0;
}

static int func_cmp(const void *a, const void *b)
{
	const struct xp_func *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* Sorted: a function in both tables is next to itself; keep one. */
static void funcs_merge(struct xp_funcs *f)
{
	size_t out = 0;

	for (size_t i = 0; i < f->n; i++) {
		struct xp_func *last = out ? &f->v[out - 1] : NULL;

		if (last && !func_cmp(last, &f->v[i])) {
			last->in_symtab |= f->v[i].in_symtab;
			last->in_dynsym |= f->v[i].in_dynsym;
			free(f->v[i].name);
			continue;
		}
		f->v[out++] = f->v[i];
	}
	f->n = out;
}

/*
 * libelf reads a truncated file's header happily and then finds no
 * sections: which would read as "stripped".  Every section header and every
 * section's bytes must lie inside the file.
 */
static int check_extent(Elf *elf, const GElf_Ehdr *eh, size_t size, const char *path,
			struct xp_err *e)
{
	size_t shnum = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(elf, &shnum))
		return xp_err_set(e, -EINVAL, "%s: unreadable: %s", path, elf_errmsg(-1));
	/* libelf counts 0 sections when their headers are not all in the file */
	if (eh->e_shnum > shnum)
		shnum = eh->e_shnum;
	if (!shnum && eh->e_shoff)
		shnum = 1; /* extended numbering: section 0 must be there */
	if (shnum && !eh->e_shentsize)
		return xp_err_set(e, -EINVAL, "%s: a corrupt ELF header (e_shentsize 0)", path);
	if (shnum && (eh->e_shoff > size || (size - eh->e_shoff) / eh->e_shentsize < shnum))
		return xp_err_set(e, -EINVAL,
				  "%s: truncated: its %zu section headers end past its %zu bytes",
				  path, shnum, size);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return xp_err_set(e, -EINVAL, "%s: a corrupt section header: %s", path,
					  elf_errmsg(-1));
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))
			return xp_err_set(e, -EINVAL,
					  "%s: truncated: section %zu ends at byte %" PRIu64
					  ", past its %zu bytes",
					  path, elf_ndxscn(scn), (uint64_t)(sh.sh_offset + sh.sh_size),
					  size);
	}
	return 0;
}

static int read_elf(Elf *elf, size_t size, const char *path, struct xp_funcs *f,
		    struct xp_err *e)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int err;

	if (elf_kind(elf) != ELF_K_ELF)
		return xp_err_set(e, -ENOEXEC, "%s: not an ELF file", path);
	if (!gelf_getehdr(elf, &eh))
		return xp_err_set(e, -ENOEXEC, "%s: a corrupt ELF header: %s", path,
				  elf_errmsg(-1));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return xp_err_set(e, -ENOEXEC,
				  "%s: not an x86-64 object (class %u, machine %u); the shim "
				  "patches x86-64 only",
				  path, eh.e_ident[EI_CLASS], eh.e_machine);
	f->elf_type = eh.e_type;
	err = check_extent(elf, &eh, size, path, e);
	if (err)
		return err;
	/* .symtab first, as the shim looks: a function in both is listed once */
	for (int pass = 0; pass < 2; pass++) {
		Elf64_Word want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh))
				return xp_err_set(e, -EINVAL, "%s: a corrupt section header: %s",
						  path, elf_errmsg(-1));
			if (sh.sh_type != want)
				continue;
			if (pass)
				f->has_dynsym = true;
			else
				f->has_symtab = true;
			err = read_table(elf, scn, &sh, f, path, e);
			if (err)
				return err;
		}
	}
	if (elf_errno())
		return xp_err_set(e, -EINVAL, "%s: %s", path, elf_errmsg(-1));
	qsort(f->v, f->n, sizeof(*f->v), func_cmp);
	funcs_merge(f);
	for (size_t i = 0; i < f->n; i++)
		judge(elf, f, &f->v[i]);
	return 0;
}

int xp_elf_functions(const char *path, struct xp_funcs *f, struct xp_err *e)
{
	struct stat st;
	Elf *elf;
	int fd, err;

	memset(f, 0, sizeof(*f));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return xp_err_set(e, -ENOSYS, "libelf is too old: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return xp_err_set(e, -EINVAL, "%s: not a regular file", path);
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		err = xp_err_set(e, -ENOEXEC, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
	} else {
		err = read_elf(elf, (size_t)st.st_size, path, f, e);
		elf_end(elf);
	}
	close(fd);
	if (err)
		xp_funcs_free(f);
	return err;
}

void xp_funcs_free(struct xp_funcs *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].name);
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}
