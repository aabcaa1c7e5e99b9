// SPDX-License-Identifier: MIT
/*
 * elfsyms: which ELF objects are loaded where (dl_iterate_phdr), and what
 * their symbol tables say (libelf): .dynsym with its versions, .symtab for
 * the functions an object does not export (or its debug file's, when it is
 * stripped), and .eh_frame for the functions no symbol names.  Runs at
 * start-up and after a dlopen; `extprof symbols` reads files with it too.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ehframe.h"
#include "elfsyms.h"

struct elfobj_walk {
	struct elf_object *objs;
	int max;
	int n;
};

ssize_t elfsym_exe_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		n = readlink("/proc/thread-self/exe", buf, size - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Whether a PT_LOAD segment of @info other than @k maps part of the page at @page. */
static bool elfobj_page_shared(const struct dl_phdr_info *info, int k, uint64_t page)
{
	uint64_t size = (uint64_t)getpagesize();

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (i != k && ph->p_type == PT_LOAD && lo < page + size && hi > page)
			return true;
	}
	return false;
}

/*
 * The pages of executable segment @k, in o->segs: whole pages, without one
 * at either end that another segment maps too (its protection is that
 * segment's as well).
 */
static void elfobj_add_pages(struct elf_object *o, const struct dl_phdr_info *info, int k)
{
	const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
	uint64_t size = (uint64_t)getpagesize(), lo = info->dlpi_addr + ph->p_vaddr;
	uint64_t hi = (lo + ph->p_memsz + size - 1) & ~(size - 1);

	lo &= ~(size - 1);
	if (lo < hi && elfobj_page_shared(info, k, lo))
		lo += size;
	if (lo < hi && elfobj_page_shared(info, k, hi - size))
		hi -= size;
	if (lo >= hi)
		return;
	o->segs[o->nsegs][0] = lo;
	o->segs[o->nsegs++][1] = hi;
}

static int elfobj_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct elfobj_walk *w = arg;
	struct elf_object *o;
	const char *slash;
	ssize_t n;

	(void)size;
	if (!w->objs || w->n >= w->max)
		return 1;
	o = &w->objs[w->n];
	memset(o, 0, sizeof(*o));
	if (w->n == 0) {
		/* The main program has no name here: ask the kernel */
		char exe[sizeof(o->path)];

		n = elfsym_exe_path(exe, sizeof(exe));
		if (n <= 0)
			return 0;
		memcpy(o->path, exe, (size_t)n + 1);
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
	o->is_shim = elfobj_is_shim(o->name);
	o->text_lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_DYNAMIC)
			o->dynamic = lo;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (lo < o->text_lo)
			o->text_lo = lo;
		if (lo + ph->p_memsz > o->text_hi)
			o->text_hi = lo + ph->p_memsz;
		if (o->nsegs < ELFOBJ_SEGS)
			elfobj_add_pages(o, info, i);
	}
	w->n++;
	return 0;
}

/* Whether [addr, addr+size) is code of @object: we read and patch nothing else. */
bool elfobj_in_text(const struct elf_object *object, uint64_t addr, uint64_t size)
{
	return addr >= object->text_lo && addr + size <= object->text_hi && addr + size >= addr;
}

/*
 * Whether @o's DT_NEEDED names @soname.  The dynamic linker has relocated
 * the DT_STRTAB address in place (glibc does, where the section is
 * writable); one below the load bias is still the file's.
 */
static bool elfobj_needs(const struct elf_object *o, const char *soname)
{
	const ElfW(Dyn) *d = (const ElfW(Dyn) *)o->dynamic;
	uint64_t strtab = 0;

	if (!d)
		return false;
	for (const ElfW(Dyn) *e = d; e->d_tag != DT_NULL; e++) {
		if (e->d_tag == DT_STRTAB)
			strtab = e->d_un.d_ptr < o->base ? o->base + e->d_un.d_ptr : e->d_un.d_ptr;
	}
	for (; strtab && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_NEEDED && !strcmp((const char *)strtab + d->d_un.d_val, soname))
			return true;
	}
	return false;
}

/*
 * The libraries the shim brought in (libZydis): the ones the shim needs
 * and no other loaded object needs.  Hooked, their functions would be the
 * shim's calls counted as the program's.
 */
static void elfobj_mark_shim_libs(struct elf_object *objs, int n)
{
	const struct elf_object *shim = NULL;

	for (int k = 0; k < n && !shim; k++)
		shim = objs[k].is_shim ? &objs[k] : NULL;
	for (int i = 0; shim && i < n; i++) {
		bool other = false;

		if (objs[i].is_main || objs[i].is_shim || !elfobj_needs(shim, objs[i].name))
			continue;
		for (int k = 0; k < n && !other; k++)
			other = k != i && !objs[k].is_shim && elfobj_needs(&objs[k], objs[i].name);
		objs[i].is_shim = !other;
	}
}

/* The loaded objects, the main program first.  Returns how many. */
int elfobj_list(struct elf_object *objs, int max)
{
	struct elfobj_walk w = {objs, max, 0};

	dl_iterate_phdr(elfobj_visit, &w);
	elfobj_mark_shim_libs(objs, w.n);
	return w.n;
}

/* Version names by index, from .gnu.version_d; NULL where there is none. */
struct elfsym_versions {
	Elf_Data *versym; /* .gnu.version: one Elf64_Versym per .dynsym entry */
	const char **names;
	size_t n;
};

static void elfsym_read_versions(Elf *elf, struct elfsym_versions *v)
{
	Elf_Scn *scn = NULL;

	memset(v, 0, sizeof(*v));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Verdef vd;
		size_t off = 0;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_GNU_versym) {
			v->versym = elf_getdata(scn, NULL);
			continue;
		}
		if (sh.sh_type != SHT_GNU_verdef || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_info && gelf_getverdef(data, (int)off, &vd); k++) {
			GElf_Verdaux va;
			const char **names;

			if (vd.vd_ndx >= v->n) {
				size_t n = (size_t)vd.vd_ndx + 16;

				names = realloc(v->names, n * sizeof(*names));
				if (!names)
					return;
				memset(names + v->n, 0, (n - v->n) * sizeof(*names));
				v->names = names;
				v->n = n;
			}
			if (vd.vd_cnt && gelf_getverdaux(data, (int)(off + vd.vd_aux), &va))
				v->names[vd.vd_ndx] = elf_strptr(elf, sh.sh_link, va.vda_name);
			if (!vd.vd_next)
				break;
			off += vd.vd_next;
		}
	}
}

/*
 * A .symtab name carries its version as the assembler wrote it
 * ("memcpy@GLIBC_2.2.5", "memcpy@@GLIBC_2.14"): split it off into @buf.
 */
static void elfsym_split_version(struct elf_sym *s, char *buf, size_t len)
{
	const char *at = strchr(s->name, '@');

	if (!at || (size_t)(at - s->name) >= len)
		return;
	memcpy(buf, s->name, (size_t)(at - s->name));
	buf[at - s->name] = '\0';
	s->hidden = at[1] != '@';
	s->version = at + (s->hidden ? 1 : 2);
	s->name = buf;
}

static int elfsym_section(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, uint8_t table,
			  const struct elfsym_versions *v, elfsym_fn fn, void *arg)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count;
	int ret;

	if (!data || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < count; i++) {
		struct elf_sym s;
		char base[512];
		GElf_Versym vs;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		memset(&s, 0, sizeof(s));
		s.name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!s.name || !s.name[0])
			continue;
		s.value = sym.st_value;
		s.size = sym.st_size;
		s.type = GELF_ST_TYPE(sym.st_info);
		s.bind = GELF_ST_BIND(sym.st_info);
		s.table = table;
		s.defined = sym.st_shndx != SHN_UNDEF;
		s.shndx = sym.st_shndx;
		if (v && v->versym && gelf_getversym(v->versym, (int)i, &vs)) {
			uint16_t ndx = vs & 0x7fff;

			s.hidden = (vs & 0x8000) != 0;
			if (ndx < v->n)
				s.version = v->names[ndx];
		} else if (!v) {
			elfsym_split_version(&s, base, sizeof(base));
		}
		ret = fn(&s, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int elfsym_table_walk(Elf *elf, uint32_t type, uint8_t table, elfsym_fn fn, void *arg,
			     bool *found)
{
	struct elfsym_versions v = {NULL, NULL, 0};
	Elf_Scn *scn = NULL;
	int ret = 0;

	if (type == SHT_DYNSYM)
		elfsym_read_versions(elf, &v);
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == type) {
			*found = true;
			ret = elfsym_section(elf, scn, &sh, table, type == SHT_DYNSYM ? &v : NULL,
					     fn, arg);
		}
	}
	free(v.names);
	return ret;
}

int elfsym_each_symtab(Elf *elf, uint8_t table, elfsym_fn fn, void *arg)
{
	bool found = false;

	return elfsym_table_walk(elf, SHT_SYMTAB, table, fn, arg, &found);
}

int elfsym_each_elf(Elf *elf, elfsym_fn fn, void *arg)
{
	bool found = false;
	int ret = elfsym_table_walk(elf, SHT_DYNSYM, ELFSYM_DYNSYM, fn, arg, &found);

	if (!ret)
		ret = elfsym_table_walk(elf, SHT_SYMTAB, ELFSYM_SYMTAB, fn, arg, &found);
	return ret;
}

bool elfsym_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

/* The GNU build-id note of @elf: its bytes in @id, their number returned (0: none). */
static size_t elfsym_build_id(Elf *elf, uint8_t *id, size_t max)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, name, desc;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name, &desc)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)data->d_buf + name, "GNU", 4) &&
			    nh.n_descsz <= max && nh.n_descsz >= 2) {
				memcpy(id, (const char *)data->d_buf + desc, nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

int elfsym_debug_path(Elf *elf, char *buf, size_t len)
{
	static const char dir[] = "/usr/lib/debug/.build-id/";
	uint8_t id[64];
	size_t n = elfsym_build_id(elf, id, sizeof(id)), used;

	if (!n || len < sizeof(dir) + 2 * n + 8)
		return -ENOENT;
	memcpy(buf, dir, sizeof(dir) - 1);
	used = sizeof(dir) - 1;
	for (size_t i = 0; i < n; i++) {
		static const char hex[] = "0123456789abcdef";

		buf[used++] = hex[id[i] >> 4];
		buf[used++] = hex[id[i] & 15];
		if (i == 0)
			buf[used++] = '/';
	}
	memcpy(buf + used, ".debug", 7);
	return access(buf, R_OK) ? -ENOENT : 0;
}

int elfsym_open(const char *path, int *fd, Elf **elf)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		elfsym_close(*fd, *elf);
		return -ENOEXEC;
	}
	return 0;
}

void elfsym_close(int fd, Elf *elf)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

int elfsym_each(const char *path, elfsym_fn fn, void *arg)
{
	char debug[256];
	Elf *elf, *delf;
	int fd, dfd, ret;

	ret = elfsym_open(path, &fd, &elf);
	if (ret)
		return ret;
	ret = elfsym_each_elf(elf, fn, arg);
	/* stripped: the names its debug file has */
	if (!ret && !elfsym_has_symtab(elf) && !elfsym_debug_path(elf, debug, sizeof(debug)) &&
	    !elfsym_open(debug, &dfd, &delf)) {
		ret = elfsym_each_symtab(delf, ELFSYM_DEBUG, fn, arg);
		elfsym_close(dfd, delf);
	}
	elfsym_close(fd, elf);
	return ret;
}

long elffde_each(Elf *elf, void (*fn)(uint64_t start, uint64_t size, void *arg), void *arg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".eh_frame"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return 0;
		return ehframe_walk(data->d_buf, data->d_size, sh.sh_addr, fn, arg);
	}
	return 0;
}

bool elfobj_is_shim(const char *basename)
{
	return !strncmp(basename, "libextprof.so", 13);
}
