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

#define HOOKS                                                                                      \
	"function:lib_add@libspec.so,function:lib_mul@libspec.so,"                                 \
	"function:lib_chain@libspec.so,function:lib_internal@libspec.so"

static void spec_cells(const char *kase, bool linked)
{
	struct matrix_tally t = {.test = kase};

	MATRIX_FOR_EACH_CELL(c)
	{
		char *libdir, *lib, *link, *ldpath;
		struct matrix_pass p;

		cr_assert(asprintf(&lib, "%s/libspec-%s.so", harness_path("EXTPROF_TARGETS"),
				   c->name) > 0);
		libdir = matrix_tmpdir("libspec", c);
		cr_assert(asprintf(&link, "%s/libspec.so", libdir) > 0);
		cr_assert(symlink(lib, link) == 0, "symlink %s: %s", link, strerror(errno));
		cr_assert(asprintf(&ldpath, "LD_LIBRARY_PATH=%s", libdir) > 0);
		const char *env[] = {ldpath, NULL};
		const struct matrix_case k = {.kase = kase,
					      .env = env,
					      .hooks = HOOKS,
					      .status = 0,
					      .hooked = linked ? 4 : 0,
					      .truths = 4};

		matrix_pass_run(&t, c, &k, "run", &p);
		for (const char *s = p.hooked.err; p.report && (s = strstr(s, "checker-truth: "));
		     s++) {
			char symbol[64];
			json_t *d;

			if (sscanf(s + 15, "%63s", symbol) != 1)
				continue;
			d = harness_decl(p.report, symbol);
			MX_EXPECT(&t, c,
				  d && !strcmp(json_string_value(json_object_get(d, "object")),
					       "libspec.so"),
				  "[%s %s] %s: the row's object is not libspec.so", kase, c->name,
				  symbol);
		}
		matrix_pass_free(&p);
		harness_rmdir(libdir);
		free(lib);
		free(link);
		free(ldpath);
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
