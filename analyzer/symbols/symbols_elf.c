// SPDX-License-Identifier: MIT
/*
 * symbols_elf: list an ELF file's functions with the shim's own reader
 * (elf/functab.c) and ask the shim's own verdict (hookable_target and
 * hookable_plan of elf/hookable.c, with the port's planner, linked
 * from preload/) about each entry, dry, so that `extprof symbols` and the
 * shim never disagree.  With a glob, the run of one entry is played as
 * preload/resolve/hooks.c plays it, and summed up with its words (hooks_tally.c).
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
#include <fnmatch.h>
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
#include "hooks_entry.h"
#include "hooks_tally.h"
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

/*
 * The dry run of one entry, function:GLOB@OBJECT: what the shim's
 * hooks.c adds to the verdict, which depends on the run: of aliases that
 * all answer to the glob only the best name is hooked, and a function
 * reached under a second name (two IFUNCs picking one implementation) is
 * "already hooked".
 */
struct sym_dry {
	struct hooks_want want;
	struct spec_entry entry;
	struct hooks_tally tally;
	uint64_t *hooked;  /* the offsets hooked so far, open addressing (+1: 0 is empty) */
	size_t *hooked_fn; /* and the row that hooked each */
	size_t cap;
};

struct sym_ctx {
	struct functab *t;
	struct sym_code code;
	struct hookable_obj judge;
	bool loaded;
	uint64_t load_base;
	uint32_t shndx;	     /* a .o: the section of the function judged */
	struct sym_dry *dry; /* NULL: every function, each as if named alone */
};

/* The code at @value of the file (a .o: in the section of the function being judged). */
static const uint8_t *sym_code_at(uint64_t value, uint64_t size, void *arg)
{
	const struct sym_ctx *c = arg;

	if (c->code.elf_type == ET_REL) {
		Elf_Scn *scn = elf_getscn(c->code.elf, c->shndx);
		Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !data ||
		    !data->d_buf || value > data->d_size || size > data->d_size - value)
			return NULL;
		return (const uint8_t *)data->d_buf + value;
	}
	return code_at(value, size, (void *)&c->code);
}

/* An IFUNC's choice: its resolver called, as the loader calls it, if this process has the file. */
static bool sym_resolve(uint64_t value, uint64_t *impl, void *arg)
{
	const struct sym_ctx *c = arg;
	uint64_t (*resolver)(void) = (uint64_t(*)(void))(c->load_base + value);

	if (!c->loaded)
		return false;
	*impl = resolver() - c->load_base;
	return true;
}

/* The row that hooked offset @value in the dry run, or -1; with @add, it is @row now. */
static long dry_hooked(struct sym_dry *d, uint64_t value, size_t row, bool add)
{
	size_t i;

	for (i = (value * 0x9e3779b97f4a7c15ull >> 20) % d->cap; d->hooked[i]; i = (i + 1) % d->cap)
		if (d->hooked[i] == value + 1)
			return (long)d->hooked_fn[i];
	if (add) {
		d->hooked[i] = value + 1;
		d->hooked_fn[i] = row;
	}
	return -1;
}

/* The verdict on row @row (@s its symbol; NULL for an FDE), as the shim gives it. */
static void judge(struct sym_ctx *c, struct xp_funcs *f, size_t row, const struct functab_sym *s)
{
	struct xp_func *fn = &f->v[row];
	struct sym_dry *d = s ? c->dry : NULL;
	struct hookable_verdict v;
	bool found;
	long first = -1;

	c->shndx = (uint32_t)fn->shndx;
	found = hookable_target(&c->judge, s ? s->name : NULL, fn->address, fn->size,
				s && s->type == STT_GNU_IFUNC, &v);
	if (found && d)
		first = dry_hooked(d, v.value, row, false);
	if (v.ifunc && v.outcome != HOOKABLE_PENDING) {
		fn->resolved = true;
		fn->impl = v.value;
		fn->impl_size = v.size;
		fn->impl_name = strdup(v.impl);
		if (d && found)
			hooks_tally_ifunc(&d->tally, fn->name, v.impl);
	}
	if (found && first >= 0) {
		/* as the shim's hooks_add: the same function under another name */
		snprintf(v.why, sizeof(v.why), "is already hooked as %s:%s", d->want.kind,
			 f->v[first].name);
	} else if (found && hookable_plan(&c->judge, &v)) {
		fn->ok = true;
		if (d)
			dry_hooked(d, v.value, row, true);
	}
	snprintf(fn->why, sizeof(fn->why), "%s", fn->ok ? "" : v.why);
	if (!d || v.outcome == HOOKABLE_PENDING)
		return;
	d->tally.tried++;
	if (fn->ok)
		d->tally.hooked++;
	else
		hooks_tally_refuse(&d->tally, fn->name, fn->why);
}

static int funcs_push(struct xp_funcs *f, struct xp_func **out)
{
	if (XP_GROW(&f->v, &f->cap, f->n, 256))
		return -ENOMEM;
	*out = &f->v[f->n++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

static int func_from_sym(struct sym_ctx *c, struct xp_funcs *f, const struct functab_sym *s)
{
	const struct functab_sym *best = NULL;
	char name[320], display[320];
	struct xp_func *fn;
	int err;

	if (c->dry) {
		if (!hooks_want_matches(&c->dry->want, s))
			return 0;
		/* of aliases that all answer, the shim hooks the best name only */
		best = functab_sym_at(c->t, s->value);
		if (best == s || best->type != s->type || !hooks_want_matches(&c->dry->want, best))
			best = NULL;
	}
	err = funcs_push(f, &fn);
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
	fn->ifunc = s->type == STT_GNU_IFUNC;
	if (best) {
		fn->alias_of = strdup(functab_sym_name(best, name, sizeof(name)));
		if (!fn->alias_of)
			return -ENOMEM;
		snprintf(fn->why, sizeof(fn->why),
			 "is the same function as %.300s, which the shim hooks under that name",
			 fn->alias_of);
		return 0;
	}
	judge(c, f, f->n - 1, s);
	if (fn->resolved && !fn->impl_name)
		return -ENOMEM;
	return 0;
}

/* A function only .eh_frame knows: named 0xOFFSET, placed by its neighbours. */
static int func_from_fde(struct sym_ctx *c, struct xp_funcs *f, const struct functab_fde *d)
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
	judge(c, f, f->n - 1, NULL);
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

/* The dry run's entry, function:GLOB@OBJECT, GLOB's version kept (memcpy@GLIBC_2.2.5). */
static int dry_begin(struct sym_dry *d, const char *glob, const char *base_name, size_t nsyms)
{
	const char *at = strchr(glob, '@');

	memset(d, 0, sizeof(*d));
	snprintf(d->entry.kind, sizeof(d->entry.kind), "function");
	snprintf(d->entry.pattern, sizeof(d->entry.pattern), "%.*s",
		 (int)(at ? (size_t)(at - glob) : strlen(glob)), glob);
	if (at)
		snprintf(d->entry.object, sizeof(d->entry.object), "%s@%s", at + 1, base_name);
	else
		snprintf(d->entry.object, sizeof(d->entry.object), "%s", base_name);
	hooks_want_parse(&d->want, &d->entry);
	d->cap = 2 * nsyms + 1;
	d->hooked = calloc(d->cap, sizeof(*d->hooked));
	d->hooked_fn = calloc(d->cap, sizeof(*d->hooked_fn));
	return d->hooked && d->hooked_fn ? 0 : -ENOMEM;
}

static int read_elf(Elf *elf, size_t size, const char *path, const char *glob, uint32_t counter,
		    struct xp_funcs *f, struct xp_err *e)
{
	struct sym_ctx c;
	struct sym_dry dry;
	struct functab t;
	const char *slash = strrchr(path, '/');
	/* a glob on 0xOFFSET names: the functions only .eh_frame knows, by their names */
	bool offsets = glob && !strncmp(glob, "0x", 2);
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
	code_sections(elf, &c.code);
	c.loaded = f->elf_type != ET_REL && loaded_here(path, &c.load_base);
	c.judge.t = &t;
	c.judge.name = slash ? slash + 1 : path;
	c.judge.shim = elfobj_is_shim(c.judge.name);
	c.judge.counter = counter;
	c.judge.alone = f->elf_type == ET_REL;
	c.judge.code = sym_code_at;
	c.judge.resolve = sym_resolve;
	c.judge.arg = &c;
	hookable_obj_rules(&c.judge);
	if (glob && !offsets) {
		err = dry_begin(&dry, glob, c.judge.name, t.nsyms);
		c.dry = &dry;
	}
	f->has_symtab = t.has_symtab;
	f->has_debug = t.has_debug;
	f->fdes_bad = t.fdes_bad;
	snprintf(f->debug_path, sizeof(f->debug_path), "%s", t.debug_path);
	/* in the shim's order: by name, then address */
	for (size_t i = 0; i < t.nsyms && !err; i++) {
		if (!offsets)
			err = func_from_sym(&c, f, &t.syms[i]);
		f->has_dynsym |= t.syms[i].table == ELFSYM_DYNSYM;
		f->dynsym_funcs += (t.syms[i].tables & (1u << ELFSYM_DYNSYM)) != 0;
	}
	for (size_t i = 0; i < t.nfdes && !err; i++) {
		char name[32];

		if (functab_sym_at(&t, t.fdes[i].start) ||
		    (i && t.fdes[i - 1].start == t.fdes[i].start))
			continue;
		f->fde_funcs++;
		snprintf(name, sizeof(name), "0x%" PRIx64, t.fdes[i].start);
		if (!glob || (offsets && !fnmatch(glob, name, 0)))
			err = func_from_fde(&c, f, &t.fdes[i]);
	}
	f->total = t.nsyms + f->fde_funcs;
	if (c.dry) {
		if (!err)
			hooks_tally_lines(&dry.tally, "", f->ifunc_line, sizeof(f->ifunc_line),
					  f->hook_line, sizeof(f->hook_line));
		free(dry.hooked);
		free(dry.hooked_fn);
	}
	functab_free(&t);
	if (err == -ENOMEM)
		return xp_err_set(e, err, "%s: out of memory", path);
	if (err)
		return err;
	qsort(f->v, f->n, sizeof(*f->v), func_cmp);
	return 0;
}

int xp_elf_functions(const char *path, const char *glob, uint32_t counter, struct xp_funcs *f,
		     struct xp_err *e)
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
		err = read_elf(elf, (size_t)st.st_size, path, glob, counter, f, e);
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
		free(f->v[i].alias_of);
	}
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}
