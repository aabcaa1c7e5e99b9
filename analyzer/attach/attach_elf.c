// SPDX-License-Identifier: MIT
/*
 * attach_elf: what the tracer reads in the ELF files a process maps: the
 * executable's class, machine and loader (the refusals), and the symbols
 * it calls or reads there (dlopen in libc, the shim's block and entries).
 * The files are opened as the process sees them, through /proc/PID/root.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach.h"

/* An object's file seen from here: /proc/PID/root/PATH. Caller frees. */
static char *elf_path_in(pid_t pid, const char *path)
{
	char *p;

	if (asprintf(&p, "/proc/%d/root%s", (int)xp_proc_view(pid), path) < 0)
		return NULL;
	return p;
}

static Elf *elf_open(const char *path, int *fd, struct xp_err *e)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		xp_err_set(e, -EINVAL, "libelf: %s", elf_errmsg(-1));
		return NULL;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		xp_err_set(e, -ENOEXEC, "%s: not an ELF file", path);
		if (elf)
			elf_end(elf);
		close(*fd);
		return NULL;
	}
	return elf;
}

int xp_elf_kind(const char *path, struct xp_elf_kind *k, struct xp_err *e)
{
	GElf_Ehdr eh;
	size_t nph;
	int fd;
	Elf *elf = elf_open(path, &fd, e);

	memset(k, 0, sizeof(*k));
	if (!elf)
		return -ENOEXEC;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph)) {
		elf_end(elf);
		close(fd);
		return xp_err_set(e, -ENOEXEC, "%s: a corrupt ELF header", path);
	}
	k->elf_class = gelf_getclass(elf);
	k->machine = eh.e_machine;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		k->dynamic = true;
		if (ph.p_filesz && ph.p_filesz < sizeof(k->interp) &&
		    pread(fd, k->interp, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz)
			k->interp[ph.p_filesz - 1] = '\0';
	}
	elf_end(elf);
	close(fd);
	return 0;
}

static bool elf_find_in(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			uint64_t *value)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (s && !strcmp(s, name)) {
			*value = sym.st_value;
			return true;
		}
	}
	return false;
}

/* @name's st_value in @path (.dynsym, else .symtab): 0, or -ENOENT with @e set. */
static int elf_symbol(const char *path, const char *name, uint64_t *value, struct xp_err *e)
{
	static const Elf64_Word kinds[] = {SHT_DYNSYM, SHT_SYMTAB};
	bool found = false;
	int fd;
	Elf *elf = elf_open(path, &fd, e);

	if (!elf)
		return -ENOEXEC;
	for (size_t k = 0; k < 2 && !found; k++) {
		Elf_Scn *scn = NULL;

		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == kinds[k])
				found = elf_find_in(elf, scn, &sh, name, value);
		}
	}
	elf_end(elf);
	close(fd);
	if (!found)
		return xp_err_set(e, -ENOENT, "%s: no symbol %s", path, name);
	return 0;
}

int xp_object_symbol(pid_t pid, const struct xp_object *o, const char *name, uint64_t *addr,
		     struct xp_err *e)
{
	char *path = elf_path_in(pid, o->path);
	uint64_t value = 0;
	int err;

	if (!path)
		return xp_err_set(e, -ENOMEM, "out of memory");
	/* a shared object's first segment is at address 0 */
	err = elf_symbol(path, name, &value, e);
	free(path);
	if (!err)
		*addr = o->base + value;
	return err;
}
