// SPDX-License-Identifier: MIT
/*
 * extprof symbols OBJECT [GLOB]: the functions of an ELF file, their size,
 * and the shim's own verdict on their entry.  Checked against the shim on
 * the refusals target in every cell, on a shared object, on stripped
 * copies, and on bad input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

static void symbols_run(const char *const args[], struct run_result *r)
{
	const char *argv[16] = {harness_path("EXTPROF_BIN"), "symbols"};
	int n = 2;

	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	harness_run(argv, NULL, r);
}

/* The row of @name in a text listing: its status and reason, or NULL. */
static const char *symbols_row(const char *out, const char *name, char *status, char *reason,
			       size_t rlen)
{
	const char *p = strchr(out, '\n');

	while (p && *++p) {
		char st[16], nm[256];
		unsigned long long size;
		int used = 0;

		if (sscanf(p, "%llu %15s %255s%n", &size, st, nm, &used) == 3 &&
		    !strcmp(nm, name)) {
			const char *r = p + used, *end = strchr(r, '\n');
			size_t len;

			while (*r == ' ')
				r++;
			len = end ? (size_t)(end - r) : strlen(r);
			if (len >= rlen)
				len = rlen - 1;
			memcpy(reason, r, len);
			reason[len] = '\0';
			strcpy(status, st);
			return p;
		}
		p = strchr(p, '\n');
	}
	return NULL;
}

static const char *const refusal_funcs[] = {
	"tiny4",     "ret_early", "loop_back", "endbr_back", "jrcxz_first", "rip_load",
	"rip_lea",   "rip_store", "rip_cmp",   "call_first", "icall_first", "jmp_first",
	"jcc_first", "ret_last",  "mov_ret",   "plain_c",    "pf_copy",	    "pr_copy",
	"pj_copy",   "pl_copy",	  "ps_copy"};

/* In every cell, each function's verdict is the one the shim gives when asked to hook it. */
Test(symbols, same_verdict_as_the_shim)
{
	struct matrix_tally t = {.test = "symbols"};

	MATRIX_FOR_EACH_CELL(c)
	{
		char *exe = matrix_exe("refusals", c);
		const char *args[] = {exe, NULL}, *argv[] = {exe, NULL};
		struct run_result sym;

		symbols_run(args, &sym);
		MX_EXPECT(&t, c, sym.status == 0, "[symbols %s] status %d: %s", c->name, sym.status,
			  sym.err);
		MX_EXPECT(&t, c, !strncmp(sym.out, "    SIZE  STATUS    NAME  REASON\n", 33),
			  "[symbols %s] header: %.80s", c->name, sym.out);
		for (size_t i = 0; i < sizeof(refusal_funcs) / sizeof(refusal_funcs[0]); i++) {
			const char *fn = refusal_funcs[i];
			char *dir = matrix_tmpdir("sym", c), hooks[128], want[512], status[16] = "",
			     reason[256] = "";
			struct run_result hooked;

			snprintf(hooks, sizeof(hooks), "function:%s", fn);
			matrix_run(argv, hooks, dir, NULL, &hooked);
			MX_EXPECT(&t, c, symbols_row(sym.out, fn, status, reason, sizeof(reason)),
				  "[symbols %s] no row for %s:\n%s", c->name, fn, sym.out);
			if (!strcmp(status, "OK"))
				snprintf(want, sizeof(want), "extprof: hooked 1/1");
			else
				snprintf(want, sizeof(want),
					 "extprof: hooked 0/1; refused 1: %s %s", fn, reason);
			MX_EXPECT(&t, c, !strcmp(harness_hook_line(hooked.err), want),
				  "[symbols %s] %s: symbols says %s \"%s\", the shim: %s", c->name,
				  fn, status, reason, hooked.err);
			harness_free(&hooked);
			harness_rmdir(dir);
		}
		harness_free(&sym);
		free(exe);
	}
	matrix_summary(&t);
}

Test(symbols, glob_and_order)
{
	char *exe = matrix_exe("refusals", &matrix_cells[4]);
	const char *args[] = {exe, "rip_*", NULL};
	const char *order[] = {"rip_cmp", "rip_lea", "rip_load", "rip_store"};
	struct run_result r;
	const char *p;

	symbols_run(args, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	p = strchr(r.out, '\n');
	for (size_t i = 0; i < 4; i++) {
		char name[64];
		cr_assert(p && sscanf(p + 1, "%*u %*s %63s", name) == 1, "%s", r.out);
		cr_expect_str_eq(name, order[i]);
		p = strchr(p + 1, '\n');
	}
	cr_expect(!p || !p[1], "more rows than rip_*: %s", r.out);
	harness_free(&r);
	free(exe);
}

Test(symbols, json)
{
	char *exe = matrix_exe("refusals", &matrix_cells[4]);
	const char *args[] = {"--format", "json", exe, "tiny4", NULL};
	struct run_result r;
	json_t *root, *fns, *f;

	symbols_run(args, &r);
	root = harness_json(&r, 0, "extprof symbols");
	cr_expect(json_is_true(json_object_get(root, "symtab")));
	fns = json_object_get(root, "functions");
	cr_assert_eq(json_array_size(fns), 1);
	f = json_array_get(fns, 0);
	cr_expect_str_eq(json_string_value(json_object_get(f, "name")), "tiny4");
	cr_expect_eq(json_integer_value(json_object_get(f, "size")), 8); /* cell 4 has CET */
	cr_expect(json_is_false(json_object_get(f, "hookable")));
	cr_expect_str_eq(json_string_value(json_object_get(f, "reason")),
			 "is 8 bytes with its endbr64, too short for the 5-byte jump to its stub");
	json_decref(root);
	harness_free(&r);
	free(exe);
}

/* The shared object: exported and static functions alike, from .symtab. */
Test(symbols, shared_object)
{
	char *lib;
	struct run_result r;
	char status[16], reason[256];

	cr_assert(asprintf(&lib, "%s/libspec-gcc-O2-pie-cet.so", harness_path("EXTPROF_TARGETS")) >
		  0);
	const char *args[] = {lib, "lib_*", NULL};

	symbols_run(args, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	for (const char *const *fn = (const char *const[]){"lib_add", "lib_mul", "lib_chain",
							   "lib_internal", "lib_truth", NULL};
	     *fn; fn++) {
		cr_expect(symbols_row(r.out, *fn, status, reason, sizeof(reason)), "%s missing: %s",
			  *fn, r.out);
	}
	harness_free(&r);
	free(lib);
}

static char *strip_copy(const char *src, const char *dir, const char *name)
{
	char *dst, *cmd;

	cr_assert(asprintf(&dst, "%s/%s", dir, name) > 0);
	cr_assert(asprintf(&cmd, "strip -o '%s' '%s'", dst, src) > 0);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
	return dst;
}

/*
 * A stripped executable: .dynsym names none of its functions, .eh_frame
 * gives them all as 0xOFFSET; said, status 0.  Each such row's verdict is
 * the shim's on a KIND:0xOFFSET entry, and the program runs the same.
 */
Test(symbols, stripped_executable)
{
	char *exe = matrix_exe("refusals", &matrix_cells[5]), *dir = harness_tmpdir("strip");
	char *copy = strip_copy(exe, dir, "refusals-stripped");
	const char *args[] = {copy, NULL}, *argv[] = {copy, NULL};
	struct run_result r, plain;
	unsigned rows = 0, hooked = 0;
	const char *p;

	symbols_run(args, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(!strncmp(r.out, "    SIZE  STATUS    NAME  REASON\n", 33), "%s", r.out);
	cr_expect(strstr(r.err, "is stripped (no .symtab): only the 0 functions its .dynsym "
				"exports are named; the "),
		  "%s", r.err);
	cr_expect(strstr(r.err, "more its .eh_frame describes are listed as 0xOFFSET"), "%s",
		  r.err);
	matrix_run(argv, NULL, NULL, NULL, &plain);
	for (p = strchr(r.out, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		char status[16], name[64], hooks[96], want[512], *sub = harness_tmpdir("stripoff");
		unsigned long long size;
		struct run_result h;

		cr_assert(sscanf(p + 1, "%llu %15s %63s", &size, status, name) == 3, "%s", p);
		cr_expect(!strncmp(name, "0x", 2), "a name in a stripped executable: %s", name);
		rows++;
		snprintf(hooks, sizeof(hooks), "function:%s", name);
		matrix_run(argv, hooks, sub, NULL, &h);
		cr_expect_eq(h.status, plain.status, "%s: status %d", hooks, h.status);
		cr_expect_str_eq(h.out, plain.out, "%s changed the output", hooks);
		if (!strcmp(status, "OK")) {
			snprintf(want, sizeof(want), "extprof: hooked 1/1");
			cr_expect_str_eq(harness_hook_line(h.err), want, "%s: %s", hooks, h.err);
			hooked++;
		} else {
			cr_expect(!strncmp(harness_hook_line(h.err),
					   "extprof: hooked 0/1; refused 1: ", 32),
				  "%s: symbols says %s, the shim: %s", hooks, status, h.err);
		}
		harness_free(&h);
		harness_rmdir(sub);
	}
	/* _start, the entry point, is refused */
	cr_expect(rows >= 3 && hooked >= 2, "%u rows, %u hookable:\n%s", rows, hooked, r.out);
	cr_expect(strstr(r.out, "is the object's entry point"), "%s", r.out);
	harness_free(&plain);
	harness_free(&r);
	free(copy);
	free(exe);
	harness_rmdir(dir);
}

/* Offset and size of @name in `extprof symbols --format json EXE`. */
static void symbols_offset(const char *exe, const char *name, long long *off, long long *size)
{
	const char *args[] = {"--format", "json", exe, name, NULL};
	struct run_result r;
	json_t *root, *f;

	symbols_run(args, &r);
	root = harness_json(&r, -1, "extprof symbols");
	f = json_array_get(json_object_get(root, "functions"), 0);
	cr_assert(f, "no %s in %s", name, r.out);
	*off = json_integer_value(json_object_get(f, "offset"));
	*size = json_integer_value(json_object_get(f, "size"));
	json_decref(root);
	harness_free(&r);
}

/*
 * An 0xOFFSET that is not where a function starts is refused, naming the
 * function it falls in, and the program runs unchanged: before, most such
 * offsets inside a function crashed it or changed its output.  Every offset
 * inside plain_c, and main's first 48; 0xOFFSET! says it is meant.
 */
Test(symbols, offsets_inside_functions)
{
	char *exe = matrix_exe("refusals", &matrix_cells[0]);
	const char *argv[] = {exe, NULL};
	struct run_result plain;
	const char *fns[] = {"plain_c", "main"};

	matrix_run(argv, NULL, NULL, NULL, &plain);
	for (size_t k = 0; k < 2; k++) {
		long long off, size;

		symbols_offset(exe, fns[k], &off, &size);
		cr_assert(size > 8, "%s: %lld bytes", fns[k], size);
		for (long long d = 1; d < size && d <= 48; d++) {
			char hooks[64], want[160], *dir = harness_tmpdir("off");
			struct run_result h;

			snprintf(hooks, sizeof(hooks), "function:0x%llx", off + d);
			snprintf(want, sizeof(want),
				 "extprof: hooked 0/1; refused 1: 0x%llx is inside %s (+0x%llx), "
				 "not "
				 "a function's start; 0x%llx! hooks it all the same",
				 off + d, fns[k], d, off + d);
			matrix_run(argv, hooks, dir, NULL, &h);
			cr_expect_eq(h.status, plain.status, "%s: status %d", hooks, h.status);
			cr_expect_str_eq(h.out, plain.out, "%s changed the output", hooks);
			cr_expect_str_eq(harness_hook_line(h.err), want, "%s", hooks);
			harness_free(&h);
			harness_rmdir(dir);
		}
		if (k == 0) {
			/* its start is a function's start: hooked, counted */
			char hooks[64], *dir = harness_tmpdir("off");
			struct run_result h;
			json_t *report;

			snprintf(hooks, sizeof(hooks), "function:0x%llx", off);
			matrix_run(argv, hooks, dir, NULL, &h);
			cr_expect_str_eq(harness_hook_line(h.err), "extprof: hooked 1/1", "%s",
					 h.err);
			report = harness_report(dir, NULL);
			cr_expect_eq(harness_decl_int(report, "plain_c", "evaluations"), 40);
			json_decref(report);
			harness_free(&h);
			harness_rmdir(dir);
		}
	}
	harness_free(&plain);
	free(exe);
}

/* A stripped shared object keeps what it exports, not its static functions. */
Test(symbols, stripped_shared_object)
{
	char *lib, *dir = harness_tmpdir("strip"), *copy, status[16], reason[256];
	struct run_result r;

	cr_assert(asprintf(&lib, "%s/libspec-clang-O2-pie-nocet.so",
			   harness_path("EXTPROF_TARGETS")) > 0);
	copy = strip_copy(lib, dir, "libspec.so");
	const char *args[] = {copy, NULL};

	symbols_run(args, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(symbols_row(r.out, "lib_add", status, reason, sizeof(reason)), "%s", r.out);
	cr_expect_str_eq(status, "OK");
	cr_expect(!symbols_row(r.out, "lib_internal", status, reason, sizeof(reason)), "%s", r.out);
	cr_expect(strstr(r.err, "is stripped (no .symtab): only the 4 functions its .dynsym "
				"exports are named; the "),
		  "%s", r.err);
	harness_free(&r);
	free(copy);
	free(lib);
	harness_rmdir(dir);
}

static void symbols_bad(const char *path, const char *what)
{
	const char *args[] = {path, NULL};
	struct run_result r;
	char *want;

	symbols_run(args, &r);
	cr_expect_eq(r.status, 2, "%s: status %d", path, r.status);
	cr_expect_str_eq(r.out, "");
	cr_assert(asprintf(&want, "extprof: %s: %s", path, what) > 0);
	cr_expect(!strncmp(r.err, want, strlen(want)), "want \"%s...\", got \"%s\"", want, r.err);
	cr_expect(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "not one line: %s", r.err);
	free(want);
	harness_free(&r);
}

Test(symbols, bad_input)
{
	char *dir = harness_tmpdir("symbad"), *missing, *text, *trunc, *cmd;
	char *exe = matrix_exe("refusals", &matrix_cells[0]);
	FILE *f;

	cr_assert(asprintf(&missing, "%s/no-such-file", dir) > 0);
	cr_assert(asprintf(&text, "%s/text", dir) > 0);
	cr_assert(asprintf(&trunc, "%s/truncated", dir) > 0);
	f = fopen(text, "w");
	cr_assert(f);
	fputs("not an ELF file at all\n", f);
	fclose(f);
	cr_assert(asprintf(&cmd, "head -c 200 '%s' > '%s'", exe, trunc) > 0);
	cr_assert_eq(system(cmd), 0);

	symbols_bad(missing, "No such file or directory");
	symbols_bad(text, "not an ELF file");
	symbols_bad(dir, "not a regular file");
	symbols_bad(trunc, "");
	{
		const char *args[] = {NULL};
		struct run_result r;

		symbols_run(args, &r);
		cr_expect_eq(r.status, 2);
		harness_free(&r);
	}
	free(cmd);
	free(missing);
	free(text);
	free(trunc);
	free(exe);
	harness_rmdir(dir);
}
