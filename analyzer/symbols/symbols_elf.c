// SPDX-License-Identifier: MIT
/*
 * symbols_elf: list an ELF file's functions with the shim's own reader
 * (preload/functab.c) and ask the shim's own planner (insn_plan_hook,
 * linked from preload/) and refusal list (preload/hookable.c) about each
 * entry, so that `extprof symbols` and the shim never disagree.
 *
 * The planner takes the function's address for the branch targets it
 * computes; the file's st_value serves, since only differences matter.  In
 * a relocatable object (.o) the branches to other sections are not
 * relocated yet, so the verdict there is about the function's own code.
 *
 * An IFUNC is judged by the implementation its resolver picks on this CPU
 * when the file is one this process has loaded too (libc, libm: the
 * resolver is called, as the loader calls it); otherwise that choice waits
 * for the program's own start.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "functab.h"
#include "hookable.h"
#include "insn.h"
#include "symbols/symbols_elf.h"
#include "util/vec.h"

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

/* The file's code sections, to find a function's bytes by its address. */
struct sym_code {
	struct {
		uint64_t addr;
		uint64_t size;
		const uint8_t *data;
	} sec[64];
	int n;
	Elf *elf;
	int elf_type;
};

static const uint8_t *code_at(uint64_t value, uint64_t size, void *arg)
{
	const struct sym_code *c = arg;

	for (int i = 0; i < c->n; i++) {
		if (value >= c->sec[i].addr && value - c->sec[i].addr <= c->sec[i].size &&
		    size <= c->sec[i].size - (value - c->sec[i].addr))
			return c->sec[i].data + (value - c->sec[i].addr);
	}
	return NULL;
}

static void code_sections(Elf *elf, struct sym_code *c)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) && c->n < 64) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    sh.sh_type == SHT_NOBITS || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		c->sec[c->n].addr = sh.sh_addr;
		c->sec[c->n].size = data->d_size < sh.sh_size ? data->d_size : sh.sh_size;
		c->sec[c->n].data = data->d_buf;
		c->n++;
	}
}

/* Where this process has the file at @path loaded: its base in @base, or false. */
struct loaded_find {
	dev_t dev;
	ino_t ino;
	bool found;
	uint64_t base;
};

static int loaded_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct loaded_find *l = arg;
	const char *name =
		info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
	struct stat st;

	(void)size;
	if (stat(name, &st) == 0 && st.st_dev == l->dev && st.st_ino == l->ino) {
		l->found = true;
		l->base = info->dlpi_addr;
		return 1;
	}
	return 0;
}

static bool loaded_here(const char *path, uint64_t *base)
{
	struct loaded_find l = {0, 0, false, 0};
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	l.dev = st.st_dev;
	l.ino = st.st_ino;
	dl_iterate_phdr(loaded_visit, &l);
	*base = l.base;
	return l.found;
}

struct sym_ctx {
	const struct functab *t;
	struct sym_code code;
	const char *base_name; /* the file's basename */
	uint32_t counter;
	bool loaded;
	uint64_t load_base;
	uint64_t denied[64];
	const struct hookable_rule *denied_rule[64];
	size_t ndenied;
};

static uint64_t ifunc_choice(const struct sym_ctx *c, uint64_t value)
{
	uint64_t (*resolver)(void) = (uint64_t(*)(void))(c->load_base + value);

	return resolver() - c->load_base;
}

static void find_denied(struct sym_ctx *c)
{
	for (size_t i = 0; i < c->t->nsyms && c->ndenied < 64; i++) {
		const struct functab_sym *s = &c->t->syms[i];
		const struct hookable_rule *r = hookable_rule_for(s->name, c->counter);

		if (!r || (s->type == STT_GNU_IFUNC && !c->loaded))
			continue;
		c->denied[c->ndenied] =
			s->type == STT_GNU_IFUNC ? ifunc_choice(c, s->value) : s->value;
		c->denied_rule[c->ndenied++] = r;
	}
}

/* A refusal of hookable.c's for @name at @value; false when none. */
static bool judge_rules(const struct sym_ctx *c, struct xp_func *fn, const char *name,
			uint64_t value)
{
	if (hookable_is_shim(c->base_name)) {
		snprintf(fn->why, sizeof(fn->why), "%s", HOOKABLE_SHIM_REASON);
		return true;
	}
	if (value && value == c->t->entry) {
		snprintf(fn->why, sizeof(fn->why), "%s", HOOKABLE_ENTRY_REASON);
		return true;
	}
	if (strncmp(name, "0x", 2)) {
		char plain[320];
		const struct hookable_rule *r;

		snprintf(plain, sizeof(plain), "%.*s", (int)strcspn(name, "@"), name);
		r = hookable_rule_for(plain, c->counter);
		if (r) {
			hookable_reason(r, plain, fn->why, sizeof(fn->why));
			return true;
		}
	}
	for (size_t i = 0; i < c->ndenied; i++) {
		if (c->denied[i] == value) {
			hookable_reason(c->denied_rule[i], name, fn->why, sizeof(fn->why));
			return true;
		}
	}
	return false;
}

/* The shim's verdict on the code at @value (@size bytes), into @fn. */
static void judge_code(const struct sym_ctx *c, struct xp_func *fn, uint64_t value, uint64_t size)
{
	const uint8_t *code = NULL;
	struct insn_plan plan;

	if (c->code.elf_type == ET_REL) {
		Elf_Scn *scn = elf_getscn(c->code.elf, fn->shndx);
		Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR)) {
			snprintf(fn->why, sizeof(fn->why), "is not in an executable segment");
			return;
		}
		if (data && data->d_buf && value <= data->d_size && size <= data->d_size - value)
			code = (const uint8_t *)data->d_buf + value;
	} else {
		code = code_at(value, size, (void *)&c->code);
	}
	if (!code) {
		/* the shim's words (preload/hooks.c), or what a debug file lacks */
		snprintf(fn->why, sizeof(fn->why), "is not in an executable segment");
		return;
	}
	fn->ok = insn_plan_hook(code, size, value, 0, c->code.elf_type == ET_REL ? NULL : c->t,
				code_at, (void *)&c->code, &plan, fn->why, sizeof(fn->why)) == 0;
	if (fn->ok)
		fn->why[0] = '\0';
}

static int funcs_push(struct xp_funcs *f, struct xp_func **out)
{
	if (XP_GROW(&f->v, &f->cap, f->n, 256))
		return -ENOMEM;
	*out = &f->v[f->n++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

static int func_from_sym(const struct sym_ctx *c, struct xp_funcs *f, const struct functab_sym *s)
{
	char name[320], display[320];
	struct xp_func *fn;
	int err = funcs_push(f, &fn);

	if (err)
		return err;
	functab_sym_name(s, name, sizeof(name));
	if (s->version)
		snprintf(display, sizeof(display), "%s@%s%s", s->name, s->hidden ? "" : "@",
			 s->version);
	else
		snprintf(display, sizeof(display), "%s", s->name);
	fn->name = strdup(name);
	fn->display = strdup(display);
	fn->version = s->version ? strdup(s->version) : NULL;
	if (!fn->name || !fn->display || (s->version && !fn->version))
		return -ENOMEM;
	fn->hidden = s->hidden;
	fn->address = s->value;
	fn->size = s->size;
	fn->shndx = s->shndx;
	fn->in_dynsym = s->tables & (1u << ELFSYM_DYNSYM);
	fn->in_symtab = s->tables & (1u << ELFSYM_SYMTAB);
	fn->in_debug = s->tables & (1u << ELFSYM_DEBUG);
	if (s->type == STT_GNU_IFUNC) {
		const struct functab_sym *at;
		char impl[320];

		fn->ifunc = true;
		if (!c->loaded) {
			snprintf(
				fn->why, sizeof(fn->why),
				"an IFUNC: the shim hooks what its resolver picks when the program "
				"loads it (extprof run says which)");
			return 0;
		}
		fn->resolved = true;
		fn->impl = ifunc_choice(c, s->value);
		fn->impl_size = functab_size_at(c->t, fn->impl);
		at = functab_sym_at(c->t, fn->impl);
		if (at)
			functab_sym_name(at, impl, sizeof(impl));
		else
			snprintf(impl, sizeof(impl), "0x%" PRIx64, fn->impl);
		fn->impl_name = strdup(impl);
		if (!fn->impl_name)
			return -ENOMEM;
		if (judge_rules(c, fn, name, s->value) || judge_rules(c, fn, name, fn->impl))
			return 0;
		if (!fn->impl_size) {
			snprintf(fn->why, sizeof(fn->why),
				 "is an IFUNC whose choice on this CPU, %.200s, has no size (no "
				 "symbol, no .eh_frame entry)",
				 impl);
			return 0;
		}
		judge_code(c, fn, fn->impl, fn->impl_size);
		return 0;
	}
	if (!judge_rules(c, fn, name, s->value))
		judge_code(c, fn, s->value, s->size);
	return 0;
}

/* A function only .eh_frame knows: named 0xOFFSET, placed by its neighbours. */
static int func_from_fde(const struct sym_ctx *c, struct xp_funcs *f, const struct functab_fde *d)
{
	const struct functab_sym *in = functab_sym_holding(c->t, d->start), *before = in;
	char name[64], near[340];
	struct xp_func *fn;
	int err = funcs_push(f, &fn);

	if (err)
		return err;
	snprintf(name, sizeof(name), "0x%" PRIx64, d->start);
	fn->name = strdup(name);
	fn->display = strdup(name);
	if (!fn->name || !fn->display)
		return -ENOMEM;
	fn->address = d->start;
	fn->size = d->size;
	fn->fde_only = true;
	if (!before) {
		/* the nearest named function that starts before it */
		for (size_t i = 0; i < c->t->nsyms; i++) {
			const struct functab_sym *s = c->t->by_value[i];

			if (s->value >= d->start)
				break;
			before = s;
		}
	}
	if (before) {
		char bname[320];

		snprintf(near, sizeof(near), "%s+0x%" PRIx64,
			 functab_sym_name(before, bname, sizeof(bname)), d->start - before->value);
		fn->near = strdup(near);
		fn->near_inside = in != NULL;
		if (!fn->near)
			return -ENOMEM;
	}
	if (!judge_rules(c, fn, name, d->start))
		judge_code(c, fn, d->start, d->size);
	return 0;
}

static int func_cmp(const void *a, const void *b)
{
	const struct xp_func *x = a, *y = b;
	int c = strcmp(x->display, y->display);

	if (c)
		return c;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

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
					  path, elf_ndxscn(scn),
					  (uint64_t)(sh.sh_offset + sh.sh_size), size);
	}
	return 0;
}

static int read_elf(Elf *elf, size_t size, const char *path, uint32_t counter, struct xp_funcs *f,
		    struct xp_err *e)
{
	struct sym_ctx c;
	struct functab t;
	const char *slash = strrchr(path, '/');
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
	err = functab_read_elf(&t, elf, false);
	if (err)
		return xp_err_set(e, err, "%s: %s", path, strerror(-err));
	memset(&c, 0, sizeof(c));
	c.t = &t;
	c.code.elf = elf;
	c.code.elf_type = f->elf_type;
	c.base_name = slash ? slash + 1 : path;
	c.counter = counter;
	code_sections(elf, &c.code);
	c.loaded = f->elf_type != ET_REL && loaded_here(path, &c.load_base);
	f->has_symtab = t.has_symtab;
	f->has_debug = t.has_debug;
	f->fdes_bad = t.fdes_bad;
	snprintf(f->debug_path, sizeof(f->debug_path), "%s", t.debug_path);
	if (!err && f->elf_type != ET_REL)
		err = functab_scan_jumps(&t, code_at, &c.code, insn_each_branch);
	find_denied(&c);
	for (size_t i = 0; i < t.nsyms && !err; i++) {
		err = func_from_sym(&c, f, &t.syms[i]);
		f->has_dynsym |= t.syms[i].table == ELFSYM_DYNSYM;
		f->dynsym_funcs += (t.syms[i].tables & (1u << ELFSYM_DYNSYM)) != 0;
	}
	for (size_t i = 0; i < t.nfdes && !err; i++) {
		if (functab_sym_at(&t, t.fdes[i].start) ||
		    (i && t.fdes[i - 1].start == t.fdes[i].start))
			continue;
		err = func_from_fde(&c, f, &t.fdes[i]);
		f->fde_funcs++;
	}
	functab_free(&t);
	if (err == -ENOMEM)
		return xp_err_set(e, err, "%s: out of memory", path);
	if (err)
		return err;
	qsort(f->v, f->n, sizeof(*f->v), func_cmp);
	return 0;
}

int xp_elf_functions(const char *path, uint32_t counter, struct xp_funcs *f, struct xp_err *e)
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
		err = read_elf(elf, (size_t)st.st_size, path, counter, f, e);
		elf_end(elf);
	}
	close(fd);
	if (err)
		xp_funcs_free(f);
	return err;
}

void xp_funcs_free(struct xp_funcs *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].display);
		free(f->v[i].version);
		free(f->v[i].near);
		free(f->v[i].impl_name);
	}
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}
