// SPDX-License-Identifier: MIT
/*
 * Matrix case "spec" (tests/targets/libspec.c, spec_main.c): hooked
 * functions in a shared object named with @libspec.so: exported ones
 * (.dynsym) and a static one (.symtab only), with the object linked at
 * build time, and dlopen'ed after start-up.
 *
 * Every cell has its own libspec-CELL.so (soname libspec.so): the test
 * links it as DIR/libspec.so and runs the program with LD_LIBRARY_PATH=DIR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS                                                                          \
	"function:lib_add@libspec.so,function:lib_mul@libspec.so,"                       \
	"function:lib_chain@libspec.so,function:lib_internal@libspec.so"

static void spec_cells(const char *kase, bool linked)
{
	struct matrix_tally t = {.test = kase};

	MATRIX_FOR_EACH_CELL(c) {
		char *exe = matrix_exe(kase, c), *dir = matrix_tmpdir("spec", c), *libdir, *lib,
		     *link, *ldpath, why[512];
		const char *argv[] = {exe, NULL};
		struct run_result plain, hooked;
		json_t *report;

		cr_assert(asprintf(&lib, "%s/libspec-%s.so", harness_path("EXTPROF_TARGETS"),
				   c->name) > 0);
		libdir = matrix_tmpdir("libspec", c);
		cr_assert(asprintf(&link, "%s/libspec.so", libdir) > 0);
		cr_assert(symlink(lib, link) == 0, "symlink %s: %s", link, strerror(errno));
		cr_assert(asprintf(&ldpath, "LD_LIBRARY_PATH=%s", libdir) > 0);
		const char *env[] = {ldpath, NULL};

		matrix_run(argv, NULL, NULL, env, &plain);
		matrix_run(argv, HOOKS, dir, env, &hooked);
		MX_EXPECT(&t, c, plain.status == 0, "[%s %s] the target fails by itself: %s %s",
			  kase, c->name, plain.out, plain.err);
		matrix_expect_same(&t, c, "run", &plain, &hooked);
		if (linked)
			MX_EXPECT(&t, c,
				  !strcmp(harness_hook_line(hooked.err), "extprof: hooked 4/4"),
				  "[%s %s] %s", kase, c->name, hooked.err);
		report = harness_report_try(dir, NULL, why, sizeof(why));
		MX_EXPECT(&t, c, report, "[%s %s] %s (shim: %s)", kase, c->name, why, hooked.err);
		MX_EXPECT(&t, c,
			  matrix_expect_tagged(&t, c, "run", report, hooked.err, "truth",
					       "evaluations") == 4,
			  "[%s %s] truth lines: %s", kase, c->name, hooked.err);
		for (const char *p = hooked.err; report && (p = strstr(p, "checker-truth: ")); p++) {
			char symbol[64];
			json_t *d;

			if (sscanf(p + 15, "%63s", symbol) != 1)
				continue;
			d = harness_decl(report, symbol);
			MX_EXPECT(&t, c,
				  d && !strcmp(json_string_value(json_object_get(d, "object")),
					       "libspec.so"),
				  "[%s %s] %s: the row's object is not libspec.so", kase, c->name,
				  symbol);
		}
		json_decref(report);
		harness_free(&plain);
		harness_free(&hooked);
		harness_rmdir(dir);
		harness_rmdir(libdir);
		free(lib);
		free(link);
		free(ldpath);
		free(exe);
	}
	matrix_summary(&t);
}

Test(spec, linked_shared_object)
{
	spec_cells("spec", true);
}

Test(spec, dlopened_shared_object)
{
	spec_cells("spec_dlopen", false);
}
