// SPDX-License-Identifier: MIT
/*
 * elfsyms: which ELF objects are loaded where (dl_iterate_phdr), and what
 * their symbol tables say (libelf).  .symtab first, for the functions a
 * program does not export; .dynsym too, for stripped shared objects.  Runs
 * at start-up only.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "elfsyms.h"

struct elfobj_walk {
	struct elf_object *objs;
	int max;
	int n;
};

static int elfobj_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct elfobj_walk *w = arg;
	struct elf_object *o;
	const char *slash;
	ssize_t n;

	(void)size;
	if (w->n >= w->max)
		return 1;
	o = &w->objs[w->n];
	memset(o, 0, sizeof(*o));
	if (w->n == 0) {
		/* The main program has no name here: ask the kernel. */
		n = readlink("/proc/self/exe", o->path, sizeof(o->path) - 1);
		if (n <= 0)
			return 0;
		o->path[n] = '\0';
		o->is_main = true;
	} else {
		if (!info->dlpi_name || !info->dlpi_name[0])
			return 0; /* the vDSO */
		strncpy(o->path, info->dlpi_name, sizeof(o->path) - 1);
	}
	slash = strrchr(o->path, '/');
	o->name = slash ? slash + 1 : o->path;
	o->base = info->dlpi_addr;
	o->tls_data = info->dlpi_tls_data;
	o->is_shim = !strncmp(o->name, "libextprof.so", 13);
	o->text_lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (lo < o->text_lo)
			o->text_lo = lo;
		if (lo + ph->p_memsz > o->text_hi)
			o->text_hi = lo + ph->p_memsz;
	}
	w->n++;
	return 0;
}

/* Whether [addr, addr+size) is code of @o: we read and patch nothing else. */
bool elfobj_in_text(const struct elf_object *o, uint64_t addr, uint64_t size)
{
	return addr >= o->text_lo && addr + size <= o->text_hi && addr + size >= addr;
}

/* The loaded objects, the main program first.  Returns how many. */
int elfobj_list(struct elf_object *objs, int max)
{
	struct elfobj_walk w = {objs, max, 0};

	dl_iterate_phdr(elfobj_visit, &w);
	return w.n;
}

static int elfsym_section(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, elfsym_fn fn, void *arg)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count;
	int ret;

	if (!data || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < count; i++) {
		struct elf_sym s;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		s.name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!s.name || !s.name[0])
			continue;
		s.value = sym.st_value;
		s.size = sym.st_size;
		s.type = GELF_ST_TYPE(sym.st_info);
		s.defined = sym.st_shndx != SHN_UNDEF;
		ret = fn(&s, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Call @fn for every symbol of the file at @path: .symtab, or .dynsym when
 * the file is stripped.
 * A non-zero return from @fn stops the walk and is returned.
 */
int elfsym_each(const char *path, elfsym_fn fn, void *arg)
{
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd, ret = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		ret = -ENOEXEC;
		goto out_close;
	}
	/* .symtab holds every symbol .dynsym has: read .dynsym only without it */
	for (int pass = 0; pass < 2 && !ret; pass++) {
		uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;
		bool found = false;

		scn = NULL;
		while ((scn = elf_nextscn(elf, scn)) && !ret) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == want) {
				found = true;
				ret = elfsym_section(elf, scn, &sh, fn, arg);
			}
		}
		if (found)
			break;
	}
	elf_end(elf);
out_close:
	close(fd);
	return ret;
}
