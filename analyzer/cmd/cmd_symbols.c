// SPDX-License-Identifier: MIT
/*
 * cmd_symbols: extprof symbols OBJECT [GLOB]: the functions of an ELF file
 * that EXTPROF_HOOKS can name, their size, and whether the shim can patch
 * their entry, with its reason when it cannot (the same words it prints
 * when it refuses one: the decision is made by the same code).
 *
 *         SIZE  STATUS    NAME  REASON
 *           42  OK        can_commit
 *            4  REFUSED   tiny4  is 4 bytes, too short for the 5-byte jump to its stub
 *          40  OK        memcpy@GLIBC_2.2.5
 *        1952  OK        memcpy@@GLIBC_2.14  IFUNC -> __memcpy_avx512_unaligned_erms on this CPU
 *          96  OK        0x2a1c0  after strlen+0x1a0
 *
 * A stripped object keeps only .dynsym, which names few of its functions
 * (or none, in an executable), unless its debug file is installed; the
 * others are listed by their .eh_frame start.  That is said on stderr, and
 * the exit status is 0.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "extprof/dump.h"
#include "extprof/names.h"

#include "cmd/cmd.h"
#include "util/json_out.h"
#include "symbols/symbols_elf.h"
#include "util/text_table.h"

void cmd_symbols_usage(FILE *out)
{
	fputs("usage: extprof symbols [--format text|json] [--counter C] OBJECT [GLOB]\n"
	      "\n"
	      "List the functions of the ELF file OBJECT (an executable, a shared object\n"
	      "or a .o) that EXTPROF_HOOKS can name, sorted by name: the FUNC and IFUNC\n"
	      "symbols of .dynsym (with their versions, name@@VERSION for the default one,\n"
	      "name@VERSION for the others) and of .symtab, or of the separate debug file\n"
	      "of a stripped object (/usr/lib/debug/.build-id/...), and the functions no\n"
	      "symbol names, from .eh_frame, as 0xOFFSET.  Each line gives the size in\n"
	      "bytes, OK if the shim can patch the function's entry or REFUSED and the\n"
	      "reason it gives (the shim's own verdict, run dry), or IFUNC when the\n"
	      "implementation is chosen only as the program loads it.  An IFUNC of a file\n"
	      "this command has loaded too (libc, libm) is judged by what its resolver\n"
	      "picks on this CPU, named after its arrow.\n"
	      "\n"
	      "With GLOB (PATTERN[@VERSION], or a glob on 0xOFFSET names), only what the\n"
	      "entry function:GLOB@OBJECT matches, judged as the shim judges it in that\n"
	      "run: an alias whose best name matches too is ALIAS (the shim hooks the best\n"
	      "name), and stderr says what the shim would say (\"hooked H/T; refused...\").\n"
	      "\n"
	      "  --format text|json  output format (default text)\n"
	      "  --counter C         judge as the shim counting with C, any counter of\n"
	      "                      extprof run --counter (ns refuses clock_gettime,\n"
	      "                      which it reads; steps the x86 decoder's functions,\n"
	      "                      which its trap handler calls; default auto)\n"
	      "  -h, --help          this text\n",
	      out);
}

static const char *symbols_status(const struct xp_func *fn)
{
	if (fn->ok)
		return "OK";
	if (fn->alias_of)
		return "ALIAS";
	return fn->ifunc && !fn->resolved ? "IFUNC" : "REFUSED";
}

static void symbols_text(const struct xp_funcs *f)
{
	printf("%8s  %-8s  %s  %s\n", "SIZE", "STATUS", "NAME", "REASON");
	for (size_t i = 0; i < f->n; i++) {
		const struct xp_func *fn = &f->v[i];

		printf("%8" PRIu64 "  %-8s  ", fn->resolved ? fn->impl_size : fn->size,
		       symbols_status(fn));
		xp_text_put(stdout, fn->display);
		if (fn->resolved) {
			fputs("  IFUNC -> ", stdout);
			xp_text_put(stdout, fn->impl_name);
			fputs(" on this CPU", stdout);
			if (!fn->ok)
				fputs(":", stdout);
		}
		if (fn->near) {
			printf("  %s ", fn->near_inside ? "inside" : "after");
			xp_text_put(stdout, fn->near);
			if (!fn->ok)
				fputs(":", stdout);
		}
		if (!fn->ok) {
			putchar(' ');
			if (!fn->resolved && !fn->near)
				putchar(' ');
			xp_text_put(stdout, fn->why);
		}
		putchar('\n');
	}
}

static const char *symbols_table(const struct xp_func *fn)
{
	if (fn->fde_only)
		return "eh_frame";
	if (fn->in_dynsym && (fn->in_symtab || fn->in_debug))
		return "both";
	if (fn->in_dynsym)
		return "dynsym";
	return fn->in_debug ? "debug" : "symtab";
}

static void symbols_json(const char *path, const struct xp_funcs *f)
{
	struct xp_json j;

	xp_json_start(&j, stdout);
	xp_json_key_str(&j, "object", path);
	xp_json_key_bool(&j, "symtab", f->has_symtab);
	xp_json_key_str(&j, "debug_file", f->has_debug ? f->debug_path : NULL);
	xp_json_key_u64(&j, "dynsym_functions", f->dynsym_funcs);
	xp_json_key_u64(&j, "eh_frame_functions", f->fde_funcs);
	xp_json_key_begin(&j, "functions", '[');
	for (size_t i = 0; i < f->n; i++) {
		const struct xp_func *fn = &f->v[i];

		xp_json_begin(&j, '{');
		xp_json_key_str(&j, "name", fn->name);
		xp_json_key_str(&j, "symbol", fn->display);
		xp_json_key_str(&j, "version", fn->version);
		xp_json_key_bool(&j, "default_version", fn->version && !fn->hidden);
		xp_json_key_u64(&j, "size", fn->size);
		xp_json_key_u64(&j, "offset", fn->address);
		xp_json_key_str(&j, "table", symbols_table(fn));
		xp_json_key_bool(&j, "ifunc", fn->ifunc);
		if (fn->resolved) {
			xp_json_key_begin(&j, "implementation", '{');
			xp_json_key_str(&j, "name", fn->impl_name);
			/* a choice with no size is none of the object's functions: no offset */
			if (fn->impl_size) {
				xp_json_key_u64(&j, "offset", fn->impl);
				xp_json_key_u64(&j, "size", fn->impl_size);
			}
			xp_json_end(&j, '}');
		}
		if (fn->near)
			xp_json_key_str(&j, fn->near_inside ? "inside" : "after", fn->near);
		if (fn->alias_of)
			xp_json_key_str(&j, "alias_of", fn->alias_of);
		xp_json_key_bool(&j, "hookable", fn->ok);
		xp_json_key_str(&j, "reason", fn->ok ? NULL : fn->why);
		xp_json_end(&j, '}');
	}
	xp_json_end(&j, ']');
	xp_json_finish(&j);
	putchar('\n');
}

/* What a stripped file means for the user, and what the shim would say of GLOB, on stderr. */
static void symbols_note(const char *path, const struct xp_funcs *f, const char *glob)
{
	const char *slash = strrchr(path, '/');

	if (!f->has_symtab && f->has_debug)
		fprintf(stderr,
			"extprof: %s is stripped (no .symtab): the names of its functions come "
			"from its debug file %s\n",
			path, f->debug_path);
	else if (!f->has_symtab)
		fprintf(stderr,
			"extprof: %s is stripped (no .symtab): only the %zu function%s its "
			".dynsym exports %s named; the %zu more its .eh_frame describes are "
			"listed as 0xOFFSET, for KIND:0xOFFSET entries\n",
			path, f->dynsym_funcs, f->dynsym_funcs == 1 ? "" : "s",
			f->dynsym_funcs == 1 ? "is" : "are", f->fde_funcs);
	else if (!f->total)
		fprintf(stderr, "extprof: %s has no function symbols with a size\n", path);
	if (f->fdes_bad)
		fprintf(stderr,
			"extprof: %s: its .eh_frame ends at a malformed entry; the functions "
			"after it are not listed\n",
			path);
	if (glob && f->total && !f->n)
		fprintf(stderr, "extprof: %s: no function matches %s\n", path, glob);
	if (f->ifunc_line[0])
		fprintf(stderr, "extprof: function:%s@%s, dry: %s\n", glob,
			slash ? slash + 1 : path, f->ifunc_line);
	if (f->hook_line[0])
		fprintf(stderr, "extprof: function:%s@%s, dry: %s\n", glob,
			slash ? slash + 1 : path, f->hook_line);
}

/* The counter the shim would count with for --counter @v (auto: as with a PMU). */
static int symbols_counter(const char *v, uint32_t *counter)
{
	static const uint32_t kinds[] = {
		[EXTPROF_CHOICE_AUTO] = EXTPROF_COUNTER_INSTRUCTIONS,
		[EXTPROF_CHOICE_INSTRUCTIONS] = EXTPROF_COUNTER_INSTRUCTIONS,
		[EXTPROF_CHOICE_CYCLES] = EXTPROF_COUNTER_CYCLES,
		[EXTPROF_CHOICE_STEPS] = EXTPROF_COUNTER_STEPS,
		[EXTPROF_CHOICE_TSC] = EXTPROF_COUNTER_TSC,
		[EXTPROF_CHOICE_TSC_UNORDERED] = EXTPROF_COUNTER_TSC,
		[EXTPROF_CHOICE_NS] = EXTPROF_COUNTER_NS,
		[EXTPROF_CHOICE_VAR] = EXTPROF_COUNTER_VAR,
	};
	enum extprof_counter_choice c = extprof_counter_choice(v);

	if (c == EXTPROF_CHOICE_BAD)
		return -EINVAL;
	*counter = kinds[c];
	return 0;
}

int cmd_symbols(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"counter", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *path, *glob = NULL;
	uint32_t counter = EXTPROF_COUNTER_INSTRUCTIONS;
	struct xp_funcs f;
	struct xp_err e = {""};
	bool json = false;
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
		case 'c':
			if (symbols_counter(optarg, &counter)) {
				fprintf(stderr,
					"extprof: symbols --counter %s: "
					"expected " EXTPROF_COUNTER_CHOICES "\n",
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
	if (xp_elf_functions(path, glob, counter, &f, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	if (json)
		symbols_json(path, &f);
	else
		symbols_text(&f);
	fflush(stdout);
	symbols_note(path, &f, glob);
	xp_funcs_free(&f);
	return 0;
}
