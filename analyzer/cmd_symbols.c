// SPDX-License-Identifier: MIT
/*
 * cmd_symbols: extprof symbols OBJECT [GLOB]: the functions of an ELF file
 * that EXTPROF_HOOKS can name, their size, and whether the shim can patch
 * their entry, with its reason when it cannot (the same words it prints
 * when it refuses one: the decision is made by the same code).
 *
 *         SIZE  STATUS    NAME  REASON
 *           42  OK        can_commit
 *            4  REFUSED   tiny4  is 4 bytes
 *
 * A stripped executable keeps only .dynsym, which names few of its
 * functions, or none: that is said on stderr, and the exit status is 0.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_symbols.h"
#include "json_out.h"
#include "symbols_elf.h"
#include "text_table.h"

void cmd_symbols_usage(FILE *out)
{
	fputs("usage: extprof symbols [--format text|json] OBJECT [GLOB]\n"
	      "\n"
	      "List the functions of the ELF file OBJECT (an executable, a shared object\n"
	      "or a .o) that EXTPROF_HOOKS can name: the FUNC symbols of .symtab and\n"
	      ".dynsym with a size, sorted by name, those matching GLOB only if given.\n"
	      "Each line gives the size in bytes, OK if the shim can patch the function's\n"
	      "entry or REFUSED, and then the reason it gives when it refuses it.\n"
	      "\n"
	      "A stripped file has no .symtab: only the functions its .dynsym exports are\n"
	      "listed (often none, for an executable); hook the others as KIND:0xOFFSET.\n"
	      "\n"
	      "  --format text|json  output format (default text)\n"
	      "  -h, --help          this text\n",
	      out);
}

static void symbols_text(const struct xp_funcs *f, const char *glob)
{
	printf("%8s  %-8s  %s  %s\n", "SIZE", "STATUS", "NAME", "REASON");
	for (size_t i = 0; i < f->n; i++) {
		const struct xp_func *fn = &f->v[i];

		if (glob && fnmatch(glob, fn->name, 0))
			continue;
		printf("%8" PRIu64 "  %-8s  ", fn->size, fn->ok ? "OK" : "REFUSED");
		xp_text_put(stdout, fn->name);
		if (!fn->ok)
			printf("  %s", fn->why);
		putchar('\n');
	}
}

static void symbols_json(const char *path, const struct xp_funcs *f, const char *glob)
{
	struct xp_json j;

	xp_json_init(&j, stdout);
	xp_json_begin(&j, '{');
	xp_json_key(&j, "object");
	xp_json_str(&j, path);
	xp_json_key(&j, "symtab");
	xp_json_bool(&j, f->has_symtab);
	xp_json_key(&j, "dynsym_functions");
	xp_json_u64(&j, f->dynsym_funcs);
	xp_json_key(&j, "functions");
	xp_json_begin(&j, '[');
	for (size_t i = 0; i < f->n; i++) {
		const struct xp_func *fn = &f->v[i];

		if (glob && fnmatch(glob, fn->name, 0))
			continue;
		xp_json_begin(&j, '{');
		xp_json_key(&j, "name");
		xp_json_str(&j, fn->name);
		xp_json_key(&j, "size");
		xp_json_u64(&j, fn->size);
		xp_json_key(&j, "offset");
		xp_json_u64(&j, fn->address);
		xp_json_key(&j, "table");
		xp_json_str(&j, fn->in_symtab && fn->in_dynsym ? "both"
				: fn->in_symtab		       ? "symtab"
							       : "dynsym");
		xp_json_key(&j, "hookable");
		xp_json_bool(&j, fn->ok);
		xp_json_key(&j, "reason");
		if (fn->ok)
			xp_json_null(&j);
		else
			xp_json_str(&j, fn->why);
		xp_json_end(&j, '}');
	}
	xp_json_end(&j, ']');
	xp_json_end(&j, '}');
	putchar('\n');
}

/* What a stripped file means for the user, on stderr. */
static void symbols_note(const char *path, const struct xp_funcs *f, const char *glob,
			 size_t shown)
{
	if (!f->has_symtab) {
		/* all from .dynsym: f->n counts each function once, however many
		 * versioned names it has */
		fprintf(stderr,
			"extprof: %s is stripped (no .symtab): only the %zu function%s its "
			".dynsym exports %s listed; hook the others as KIND:0xOFFSET\n",
			path, f->n, f->n == 1 ? "" : "s", f->n == 1 ? "is" : "are");
	} else if (!f->n) {
		fprintf(stderr, "extprof: %s has no function symbols with a size\n", path);
	}
	if (glob && f->n && !shown)
		fprintf(stderr, "extprof: %s: no function matches %s\n", path, glob);
}

int cmd_symbols(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *path, *glob = NULL;
	struct xp_funcs f;
	struct xp_err e = {""};
	bool json = false;
	size_t shown = 0;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (!strcmp(optarg, "json")) {
				json = true;
			} else if (strcmp(optarg, "text")) {
				fprintf(stderr, "extprof: symbols --format %s: text or json\n",
					optarg);
				return XP_EXIT_BAD;
			}
			break;
		case 'h':
			cmd_symbols_usage(stdout);
			return 0;
		default:
			xp_bad_option("symbols", argv);
			return XP_EXIT_BAD;
		}
	}
	if (optind >= argc || argc - optind > 2) {
		fprintf(stderr, "extprof: symbols takes OBJECT and an optional GLOB (see extprof "
				"symbols --help)\n");
		return XP_EXIT_BAD;
	}
	path = argv[optind];
	if (argc - optind == 2)
		glob = argv[optind + 1];
	if (xp_elf_functions(path, &f, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	for (size_t i = 0; i < f.n; i++)
		shown += !glob || !fnmatch(glob, f.v[i].name, 0);
	if (json)
		symbols_json(path, &f, glob);
	else
		symbols_text(&f, glob);
	fflush(stdout);
	symbols_note(path, &f, glob, shown);
	xp_funcs_free(&f);
	return 0;
}
