// SPDX-License-Identifier: MIT
/*
 * What the host sees of the shim: libextprof.so and nothing of the
 * libraries linked into it.  Its dynamic section needs no libelf,
 * libunwind, zlib or liblzma (read from the file, and as ldd says); it
 * exports exactly preload/exports.map; a program with its own crc32,
 * lzma_code, elf_begin and unw_step finds and calls the same functions
 * under the shim as without it, and only its own are hooked; a hook on
 * lzma_code@liblzma.so.5 hooks nothing in cat (which does not load
 * liblzma) and says why, and counts what uftrace counts in xz (which
 * does); the libraries the shim alone brings (libZydis) are its own.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

/*
 * Run @argv without the shim, then under it with EXTPROF_HOOKS=@hooks and
 * EXTPROF_DIR=@dir: the same status and stdout expected.
 */
static void run_both(const char *const argv[], const char *hooks, const char *dir,
		     struct run_result *plain, struct run_result *hooked)
{
	matrix_run(argv, NULL, NULL, NULL, plain);
	matrix_run(argv, hooks, dir, NULL, hooked);
	cr_expect_eq(hooked->status, plain->status, "%s: status %d, %d without the shim: %s",
		     argv[0], hooked->status, plain->status, hooked->err);
	cr_expect_str_eq(hooked->out, plain->out, "%s: the program's output changed", argv[0]);
}

/* The shim's ELF file, opened for reading; elf_end() and close() after. */
static Elf *shim_elf(int *fd)
{
	Elf *elf;

	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	*fd = open(harness_path("EXTPROF_SHIM"), O_RDONLY);
	cr_assert_geq(*fd, 0, "%s", harness_path("EXTPROF_SHIM"));
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	cr_assert(elf, "libelf: %s", elf_errmsg(-1));
	return elf;
}

/* The section of type @type, with its header in @sh. */
static Elf_Scn *section_of_type(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	}
	cr_assert_fail("the shim has no section of type %u", type);
	return NULL;
}

/* The libraries the shim may need: the C library, and Zydis (whose names are its own). */
static bool needed_allowed(const char *soname)
{
	return !strcmp(soname, "libc.so.6") || !strncmp(soname, "libZydis.so.", 12) ||
	       !strncmp(soname, "ld-linux", 8);
}

Test(scope, needs_no_library_linked_into_it)
{
	GElf_Shdr sh;
	GElf_Dyn dyn;
	int fd, needed = 0;
	Elf *elf = shim_elf(&fd);
	Elf_Scn *scn = section_of_type(elf, SHT_DYNAMIC, &sh);
	Elf_Data *data = elf_getdata(scn, NULL);
	struct run_result r;

	for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
		const char *soname;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
			continue;
		soname = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
		cr_assert(soname);
		needed++;
		cr_expect(needed_allowed(soname), "libextprof.so needs %s", soname);
	}
	cr_expect_gt(needed, 0, "no DT_NEEDED read");
	elf_end(elf);
	close(fd);

	/* and as ldd says, with what those need in turn */
	const char *argv[] = {"ldd", harness_path("EXTPROF_SHIM"), NULL};
	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "ldd: %s", r.err);
	for (const char *lib = "libelf\0libunwind\0libz.\0liblzma\0libzstd\0"; *lib;
	     lib += strlen(lib) + 1)
		cr_expect(!strstr(r.out, lib), "ldd lists %s:\n%s", lib, r.out);
	harness_free(&r);
}

/* preload/exports.map's global names, into @names (at most @max); how many. */
static int map_names(char names[][64], int max)
{
	char path[4096], text[8192], *p, *end;
	size_t len;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/preload/exports.map", harness_path("EXTPROF_SOURCE_ROOT"));
	f = fopen(path, "r");
	cr_assert(f, "%s", path);
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	cr_assert_lt(len, sizeof(text) - 1, "%s is longer than the test reads", path);
	text[len] = '\0';
	/* comments blanked */
	for (p = text; (p = strstr(p, "/*")); p = end + 2) {
		end = strstr(p + 2, "*/");
		cr_assert(end, "%s: a comment without its end", path);
		memset(p, ' ', (size_t)(end + 2 - p));
	}
	/* each "NAME;" between "global:" and "local:" */
	p = strstr(text, "global:");
	end = strstr(text, "local:");
	cr_assert(p && end && p < end, "%s: no global: then local:", path);
	for (p += strlen("global:"); p < end;) {
		size_t k;

		p += strspn(p, " \t\n");
		k = strcspn(p, "; \t\n");
		if (p >= end || !k)
			break;
		cr_assert_eq(p[k], ';', "%s: \"%.*s\" is not followed by ';'", path, (int)k, p);
		cr_assert(k < 64 && n < max);
		memcpy(names[n], p, k);
		names[n++][k] = '\0';
		p += k + 1;
	}
	return n;
}

Test(scope, exports_exactly_its_interface)
{
	char names[64][64];
	bool seen[64] = {false};
	int n = map_names(names, 64), fd, exported = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf *elf = shim_elf(&fd);
	Elf_Scn *scn = section_of_type(elf, SHT_DYNSYM, &sh);
	Elf_Data *data = elf_getdata(scn, NULL);

	cr_assert_geq(n, 20, "exports.map read wrong: %d names", n);
	for (size_t i = 1; data && i < sh.sh_size / sh.sh_entsize; i++) {
		const char *name;
		int k;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		cr_assert(name);
		exported++;
		for (k = 0; k < n && strcmp(names[k], name); k++)
			;
		cr_expect_lt(k, n, "libextprof.so exports %s, which exports.map does not list",
			     name);
		if (k < n)
			seen[k] = true;
	}
	for (int k = 0; k < n; k++)
		cr_expect(seen[k], "exports.map lists %s, which libextprof.so does not export",
			  names[k]);
	cr_expect_eq(exported, n);
	elf_end(elf);
	close(fd);
}

#define OWN_HOOKS "function:crc32,function:lzma_code,function:elf_begin,function:unw_step"

Test(scope, the_programs_own_functions_stay_its_own)
{
	const char *argv[] = {harness_path("SCOPE_TARGET"), NULL};
	static const char *const own[] = {"crc32", "lzma_code", "elf_begin", "unw_step"};
	struct run_result plain, hooked;
	char *dir = harness_tmpdir("scope");
	json_t *report, *d;
	size_t i;

	run_both(argv, OWN_HOOKS, dir, &plain, &hooked);
	cr_assert_eq(plain.status, 0, "scope fails by itself: %s", plain.err);
	/* without the shim, nothing of those libraries is in its scope */
	cr_assert(!strstr(plain.out, "'s\n"), "%s", plain.out);
	cr_expect_str_eq(harness_hook_line(hooked.err), "extprof: hooked 4/4", "%s", hooked.err);
	report = harness_report(dir, NULL);
	cr_assert(report);
	/* the program's own, each as often as it called it */
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		long long truth = harness_truth(plain.err, own[i]);

		cr_expect_gt(truth, 0, "scope did not call its own %s: %s", own[i], plain.err);
		cr_expect_eq(harness_decl_int(report, own[i], "evaluations"), truth,
			     "%s: %lld evaluations, %lld calls", own[i],
			     harness_decl_int(report, own[i], "evaluations"), truth);
	}
	json_array_foreach(json_object_get(report, "declarations"), i, d)
	{
		cr_expect_str_eq(json_string_value(json_object_get(d, "object")), "scope",
				 "%s hooked in %s", json_string_value(json_object_get(d, "name")),
				 json_string_value(json_object_get(d, "object")));
	}
	json_decref(report);
	harness_free(&plain);
	harness_free(&hooked);
	harness_rmdir(dir);
}

/* A file of @size pseudo-random bytes in @dir, for cat and xz to read. */
static char *input_file(const char *dir, size_t size)
{
	char *path;
	FILE *f;
	unsigned x = 12345;

	cr_assert(asprintf(&path, "%s/input", dir) > 0);
	f = fopen(path, "w");
	cr_assert(f);
	for (size_t i = 0; i < size; i++) {
		x = x * 1103515245 + 12345;
		fputc((int)(x >> 16) & (i % 7 ? 0xff : 0x0f), f);
	}
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* cat under the shim with EXTPROF_HOOKS=@hooks: its "hooked" line @line, and @said in stderr. */
static void cat_hooked(const char *hooks, const char *line, const char *said)
{
	char *dir = harness_tmpdir("scope-cat"), *dumps, *input = input_file(dir, 4096);
	const char *argv[] = {"cat", input, NULL};
	struct run_result plain, hooked;

	cr_assert(asprintf(&dumps, "%s/dumps", dir) > 0);
	run_both(argv, hooks, dumps, &plain, &hooked);
	cr_expect_str_eq(harness_hook_line(hooked.err), line, "cat: %s", hooked.err);
	cr_expect(strstr(hooked.err, said), "cat: want \"%s\": %s", said, hooked.err);
	harness_free(&plain);
	harness_free(&hooked);
	free(input);
	free(dumps);
	harness_rmdir(dir);
}

Test(scope, no_liblzma_hooked_in_cat)
{
	cat_hooked("function:lzma_code@liblzma.so.5", "",
		   "extprof: hook function:lzma_code@liblzma.so.5: no loaded object is called "
		   "liblzma.so.5 yet; hooked if it is dlopen'ed\n");
}

/* Zydis is loaded for the shim alone: its functions are the shim's, never the program's. */
Test(scope, a_library_only_the_shim_loads_is_its_own)
{
	cat_hooked("function:ZydisDecoderInit@libZydis.so.*",
		   "extprof: hooked 0/1; refused 1: ZydisDecoderInit is the shim's own",
		   "ZydisDecoderInit is the shim's own");
}

Test(scope, liblzma_hooked_in_xz, .timeout = 120)
{
	char *dir = harness_tmpdir("scope-xz"), *dumps, *trace, *input = input_file(dir, 300000);
	const char *argv[] = {"xz", "-c", input, NULL};
	struct run_result plain, hooked, rec, rep;
	long long truth = -1;
	json_t *report;

	cr_assert(asprintf(&dumps, "%s/dumps", dir) > 0);
	cr_assert(asprintf(&trace, "%s/uftrace", dir) > 0);
	run_both(argv, "function:lzma_code@liblzma.so.5", dumps, &plain, &hooked);
	cr_assert_eq(plain.status, 0, "xz: %s", plain.err);
	cr_expect_str_eq(harness_hook_line(hooked.err), "extprof: hooked 1/1", "xz: %s",
			 hooked.err);

	/* the ground truth: xz's calls of lzma_code through its PLT, as uftrace records them */
	const char *record[] = {"uftrace", "record", "--force", "-d", trace,
				"xz",	   "-c",     input,	NULL};
	harness_run(record, NULL, &rec);
	cr_assert_eq(rec.status, 0, "uftrace record: %s", rec.err);
	const char *show[] = {"uftrace", "report", "-d", trace, NULL};
	harness_run(show, NULL, &rep);
	cr_assert_eq(rep.status, 0, "uftrace report: %s", rep.err);
	for (const char *line = rep.out; line && *line; line = strchr(line, '\n'), line += !!line) {
		char name[64];
		long long calls;

		/* "  1.699  s    1.230  s         684  lzma_code" */
		if (sscanf(line, "%*f %*s %*f %*s %lld %63s", &calls, name) == 2 &&
		    !strcmp(name, "lzma_code"))
			truth = calls;
	}
	cr_assert_gt(truth, 0, "uftrace counted no lzma_code:\n%s", rep.out);

	report = harness_report(dumps, NULL);
	cr_assert(report);
	cr_expect_eq(harness_decl_int(report, "lzma_code", "evaluations"), truth,
		     "lzma_code: %lld evaluations, %lld calls by uftrace",
		     harness_decl_int(report, "lzma_code", "evaluations"), truth);
	json_decref(report);
	harness_free(&plain);
	harness_free(&hooked);
	harness_free(&rec);
	harness_free(&rep);
	free(input);
	free(dumps);
	free(trace);
	harness_rmdir(dir);
}
