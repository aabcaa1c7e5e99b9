// SPDX-License-Identifier: MIT
/*
 * Real programs as users run them (issue 13), and what may be hooked in
 * them (issue 12, cases 7 and 8): Debian's lua5.4, jq and libjq, libc's
 * own functions (IFUNCs, versions, the ones that return twice), sh
 * pipelines, clang with libLLVM, perl's hash calls and their callers.  Each crash case is a program that ran
 * into a SIGSEGV or a hang before the shim refused what it refuses now:
 * here it runs unchanged, and the shim says why it left the function alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "dump_space.h"
#include "extprof/dump.h"
#include "harness.h"

#define LIBC "libc.so.6"

/* Run @argv under the shim with EXTPROF_HOOKS=@hooks, EXTPROF_DIR=@dir, and @more. */
static void shim_run(const char *const argv[], const char *hooks, const char *dir, const char *more,
		     const char *more2, struct run_result *r)
{
	char h[4096], d[4096], pre[4096];
	const char *env[] = {pre, h, d, "EXTPROF_COUNTER=tsc", more, more2, NULL};

	snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM"));
	snprintf(h, sizeof(h), "EXTPROF_HOOKS=%s", hooks);
	snprintf(d, sizeof(d), "EXTPROF_DIR=%s", dir);
	harness_run(argv, env, r);
}

static void expect_same(const char *what, const struct run_result *plain,
			const struct run_result *hooked)
{
	cr_expect_eq(hooked->status, plain->status, "%s: status %d, %d without the shim: %s", what,
		     hooked->status, plain->status, hooked->err);
	cr_expect_str_eq(hooked->out, plain->out, "%s: the program's output changed", what);
}

struct refusal {
	const char *entry;
	const char *counter; /* EXTPROF_COUNTER=..., or NULL */
	const char *line;    /* the shim's line, word for word */
};

#define TWICE                                                                                      \
	"returns twice (as setjmp, vfork, getcontext): its second return would come back through " \
	"a stub whose activation is gone"
#define CALLER                                                                                     \
	"looks at its caller's address (as dlsym, dlopen): through a stub it would see the shim's"

static const struct refusal refusals[] = {
	{"function:_setjmp@" LIBC, NULL, "extprof: hooked 0/1; refused 1: _setjmp " TWICE},
	{"function:setjmp@" LIBC, NULL, "extprof: hooked 0/1; refused 1: setjmp " TWICE},
	{"function:__sigsetjmp@" LIBC, NULL, "extprof: hooked 0/1; refused 1: __sigsetjmp " TWICE},
	{"function:getcontext@" LIBC, NULL, "extprof: hooked 0/1; refused 1: getcontext " TWICE},
	{"function:vfork@" LIBC, NULL, "extprof: hooked 0/1; refused 1: vfork " TWICE},
	{"function:dlsym@" LIBC, NULL, "extprof: hooked 0/1; refused 1: dlsym " CALLER},
	{"function:clock_gettime@" LIBC, "EXTPROF_COUNTER=ns",
	 "extprof: hooked 0/1; refused 1: clock_gettime is what the shim calls to read the "
	 "counter (ns) while it counts"},
	{"function:xp_eval_enter@libextprof.so", NULL,
	 "extprof: hooked 0/1; refused 1: xp_eval_enter is the shim's own"},
};

/* Each function that crashed or hung the program when hooked: refused, said, unchanged. */
Test(real, refused_in_libc)
{
	const char *argv[] = {harness_path("LIBCALLS_TARGET"), "all", NULL};
	struct run_result plain;

	harness_run(argv, NULL, &plain);
	cr_assert_eq(plain.status, 0, "the target fails by itself: %s", plain.err);
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *f = &refusals[i];
		char *dir = harness_tmpdir("refuse");
		struct run_result r;

		shim_run(argv, f->entry, dir, f->counter, NULL, &r);
		expect_same(f->entry, &plain, &r);
		cr_expect_str_eq(harness_hook_line(r.err), f->line, "%s: %s", f->entry, r.err);
		harness_free(&r);
		harness_rmdir(dir);
	}
	harness_free(&plain);
}

/* `extprof symbols` says the same of them. */
Test(real, symbols_refuses_the_same)
{
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *f = &refusals[i];
		char name[64], lib[64], want[512], counter[32] = "auto";
		const char *colon = strchr(f->entry, ':'), *at = strchr(f->entry, '@'), *line;
		struct run_result r;

		if (strstr(f->entry, "libextprof"))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(at - colon - 1), colon + 1);
		snprintf(lib, sizeof(lib), "/lib/x86_64-linux-gnu/%s", at + 1);
		if (f->counter)
			snprintf(counter, sizeof(counter), "%s", strchr(f->counter, '=') + 1);
		{
			const char *args[] = {harness_path("EXTPROF_BIN"), "symbols", "--counter",
					      counter, lib, name, NULL};

			harness_run(args, NULL, &r);
		}
		cr_expect_eq(r.status, 0, "%s", r.err);
		line = strstr(f->line, "refused 1: ") + strlen("refused 1: ");
		snprintf(want, sizeof(want), "REFUSED   %s@@", name);
		cr_expect(strstr(r.out, want), "%s: %s", f->entry, r.out);
		cr_expect(strstr(r.out, line + strlen(name) + 1), "%s: want \"%s\": %s", f->entry,
			  line + strlen(name) + 1, r.out);
		harness_free(&r);
	}
}

/* Every function of every object the program has, the shim's aside: it runs unchanged. */
Test(real, everything_hooked)
{
	const char *argv[] = {harness_path("LIBCALLS_TARGET"), "all", NULL};
	char *dir = harness_tmpdir("every");
	struct run_result plain, r;

	harness_run(argv, NULL, &plain);
	shim_run(argv, "function:*@*", dir, NULL, NULL, &r);
	expect_same("function:*@*", &plain, &r);
	cr_expect(!strncmp(harness_hook_line(r.err), "extprof: hooked ", 16), "%s", r.err);
	harness_free(&plain);
	harness_free(&r);
	harness_rmdir(dir);
}

/*
 * memcpy and strlen are IFUNCs: the shim hooks what their resolvers pick on
 * this CPU, says which, and counts the program's calls exactly.  memcpy's
 * choice is jumped into by __mempcpy_*'s: it takes the short patch.
 */
Test(real, ifuncs_counted_exactly)
{
	const char *argv[] = {harness_path("LIBCALLS_TARGET"), "measure", "1000", NULL};
	char *dir = harness_tmpdir("ifunc");
	struct run_result plain, r;
	json_t *report;

	harness_run(argv, NULL, &plain);
	shim_run(argv, "function:memcpy@" LIBC ",function:strlen@" LIBC, dir,
		 "EXTPROF_WINDOW=measure", NULL, &r);
	expect_same("memcpy, strlen", &plain, &r);
	/* the window function is hooked too */
	cr_expect_str_eq(harness_hook_line(r.err), "extprof: hooked 3/3", "%s", r.err);
	cr_expect(strstr(r.err, "extprof: IFUNCs resolved as on this CPU: memcpy -> __"), "%s",
		  r.err);
	cr_expect(strstr(r.err, ", strlen -> __strlen_"), "%s", r.err);
	report = harness_report(dir, NULL);
	cr_expect_eq(harness_decl_int(report, "memcpy", "evaluations"), 1000);
	cr_expect_eq(harness_decl_int(report, "strlen", "evaluations"), 1000);
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
	harness_rmdir(dir);
}

/*
 * A plain name is the default version (memcpy@@GLIBC_2.14), which a
 * program linked today calls; name@VERSION@OBJECT another: memcpy@GLIBC_2.2.5,
 * which a program linked before glibc 2.14 calls.  Before, a plain memcpy
 * hooked the old one and counted 0.
 */
Test(real, versions)
{
	static const struct {
		const char *mode, *entry, *decl;
		long long want;
	} cases[] = {
		{"measure", "function:memcpy@" LIBC, "memcpy", 100},
		{"measure", "function:memcpy@@GLIBC_2.14", "memcpy", 100},
		{"old", "function:memcpy@" LIBC, "memcpy", 0},
		{"old", "function:memcpy@GLIBC_2.2.5@" LIBC, "memcpy@GLIBC_2.2.5", 100},
		{"old", "function:memcpy@GLIBC_2.2.5@*", "memcpy@GLIBC_2.2.5", 100},
		{"measure", "function:memcpy@GLIBC_2.2.5@" LIBC, "memcpy@GLIBC_2.2.5", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = {harness_path("LIBCALLS_TARGET"), cases[i].mode, "100", NULL};
		const char *window = strcmp(cases[i].mode, "old") ? "EXTPROF_WINDOW=measure"
								   : "EXTPROF_WINDOW=measure_old";
		char *dir = harness_tmpdir("vers");
		struct run_result plain, r;
		json_t *report;

		harness_run(argv, NULL, &plain);
		shim_run(argv, cases[i].entry, dir, window, NULL, &r);
		expect_same(cases[i].entry, &plain, &r);
		cr_expect_str_eq(harness_hook_line(r.err), "extprof: hooked 2/2", "%s: %s",
				 cases[i].entry, r.err);
		report = harness_report(dir, NULL);
		cr_expect_eq(harness_decl_int(report, cases[i].decl, "evaluations"), cases[i].want,
			     "%s in mode %s: %lld evaluations of %s", cases[i].entry, cases[i].mode,
			     harness_decl_int(report, cases[i].decl, "evaluations"), cases[i].decl);
		json_decref(report);
		harness_free(&plain);
		harness_free(&r);
		harness_rmdir(dir);
	}
}

/* A name that matches nothing: the objects searched, the nearest names, the versions. */
Test(real, no_match_hints)
{
	const char *argv[] = {harness_path("LIBCALLS_TARGET"), "measure", "1", NULL};
	static const struct {
		const char *entry, *says;
	} cases[] = {
		{"function:strln@" LIBC, "extprof: hook function:strln@libc.so.6: no function "
					 "matches in libc.so.6; nearest: strlen"},
		{"function:memcpy@GLIBC_9@" LIBC,
		 "no function matches in libc.so.6; memcpy has versions "},
		{"function:strlen@libcalls", "no function matches in libcalls; it is in libc.so.6: "
					     "function:strlen@libc.so.6"},
		{"function:no_such_function_at_all",
		 "no function matches in the program and its objects: libcalls, "},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = harness_tmpdir("hint");
		struct run_result r;

		shim_run(argv, cases[i].entry, dir, NULL, NULL, &r);
		cr_expect_eq(r.status, 0);
		cr_expect(strstr(r.err, cases[i].says), "%s: want \"%s\": %s", cases[i].entry,
			  cases[i].says, r.err);
		harness_free(&r);
		harness_rmdir(dir);
	}
}

/* lua5.4 raises its errors with _longjmp back into _setjmp: refused, and lua runs as ever. */
Test(real, lua_setjmp)
{
	const char *argv[] = {"lua5.4", "-e",
			      "local n = 0 for i = 1, 2000 do if not pcall(error, i) then n = n + 1 "
			      "end end print('caught', n)",
			      NULL};
	char *dir = harness_tmpdir("lua"), *dir2 = harness_tmpdir("lua");
	struct run_result plain, r;
	json_t *report;

	harness_run(argv, NULL, &plain);
	cr_assert_eq(plain.status, 0, "lua5.4 (scripts/deps.sh installs it): %s", plain.err);
	cr_assert_str_eq(plain.out, "caught\t2000\n");
	shim_run(argv, "function:_setjmp@" LIBC, dir, NULL, NULL, &r);
	expect_same("lua5.4 _setjmp", &plain, &r);
	cr_expect_str_eq(harness_hook_line(r.err), "extprof: hooked 0/1; refused 1: _setjmp " TWICE,
			 "%s", r.err);
	harness_free(&r);
	/* lua's own functions beside it: lua_pcallk is called once per pcall */
	shim_run(argv, "function:_setjmp@" LIBC ",function:lua_pcallk", dir2, NULL, NULL, &r);
	expect_same("lua5.4 lua_pcallk", &plain, &r);
	report = harness_report(dir2, NULL);
	cr_expect_geq(harness_decl_int(report, "lua_pcallk", "evaluations"), 1);
	json_decref(report);
	harness_free(&r);
	harness_free(&plain);
	harness_rmdir(dir);
	harness_rmdir(dir2);
}

/* jv_invalid, 5 bytes ending in ret, in Debian's libjq: hooked, counted exactly. */
Test(real, libjq_jv_invalid)
{
	const char *argv[] = {harness_path("JQCALLS_TARGET"), "1500", NULL};
	char *dir = harness_tmpdir("jq"), *dir2 = harness_tmpdir("jq"), *in;
	struct run_result plain, r;
	json_t *report;
	FILE *f;

	harness_run(argv, NULL, &plain);
	cr_assert_eq(plain.status, 0, "%s", plain.err);
	shim_run(argv, "function:jv_invalid@libjq.so.1", dir, "EXTPROF_WINDOW=invalids", NULL, &r);
	expect_same("jv_invalid", &plain, &r);
	cr_expect_str_eq(harness_hook_line(r.err), "extprof: hooked 2/2", "%s", r.err);
	report = harness_report(dir, NULL);
	cr_expect_eq(harness_decl_int(report, "jv_invalid", "evaluations"), 1500);
	json_decref(report);
	harness_free(&r);
	harness_free(&plain);
	/* and in jq itself, on a real document: its output unchanged */
	cr_assert(asprintf(&in, "%s/in.json", dir2) > 0);
	f = fopen(in, "w");
	cr_assert(f);
	for (int i = 0; i < 200; i++)
		fprintf(f, "{\"id\": %d, \"tags\": [\"a\", \"b\"], \"x\": null}\n", i);
	fclose(f);
	{
		const char *jq[] = {"jq", "-c", "select(.id % 7 == 0) | {id, n: (.tags | length)}", in,
				    NULL};
		char *sub = harness_tmpdir("jq");

		harness_run(jq, NULL, &plain);
		cr_assert_eq(plain.status, 0, "jq (scripts/deps.sh installs it): %s", plain.err);
		shim_run(jq, "function:jv_invalid@libjq.so.1", sub, NULL, NULL, &r);
		expect_same("jq jv_invalid", &plain, &r);
		report = harness_report(sub, NULL);
		cr_expect_gt(harness_decl_int(report, "jv_invalid", "evaluations"), 200);
		json_decref(report);
		harness_free(&r);
		harness_free(&plain);
		harness_rmdir(sub);
	}
	free(in);
	harness_rmdir(dir);
	harness_rmdir(dir2);
}

/* `extprof run ARGS` with the analyzer and shim of the build; stdin /dev/null. */
static void extprof_run(const char *const *args, struct run_result *r)
{
	const char *argv[64] = {harness_path("EXTPROF_BIN"), "run"};
	size_t n = 2;

	for (size_t i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	harness_run(argv, (const char *const[]){"EXTPROF_COUNTER=tsc", NULL}, r);
}

/*
 * A shell pipeline: four executables in one run.  `run` exits with the
 * pipeline's status; the report keeps each executable's rows apart, lists
 * each pid once, and dash's _exit (after its children) is a clean end.
 */
Test(real, shell_pipeline)
{
	const char *sh[] = {"sh", "-c", "ls /usr/bin | sort | wc -l", NULL};
	char *dir = harness_tmpdir("pipe"), *data, *rep;
	struct run_result plain, r;
	json_t *report, *exes, *pids, *decls;
	json_error_t jerr;
	size_t i;

	cr_assert(asprintf(&data, "%s/data", dir) > 0 && asprintf(&rep, "%s/r.json", dir) > 0);
	harness_run(sh, NULL, &plain);
	extprof_run((const char *const[]){"-o", data, "--format", "json", "--output", rep, "-H",
					  "function:malloc@libc.so.6", "--", "sh", "-c",
					  "ls /usr/bin | sort | wc -l", NULL},
		    &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, plain.out);
	report = json_load_file(rep, 0, &jerr);
	cr_assert(report, "%s: %s", rep, jerr.text);
	cr_expect(json_is_true(json_object_get(report, "complete")), "dash's _exit: incomplete");
	exes = json_object_get(report, "executables");
	cr_expect_eq(json_array_size(exes), 4, "sh, ls, sort, wc");
	pids = json_object_get(report, "pids");
	for (i = 0; i < json_array_size(pids); i++)
		for (size_t k = i + 1; k < json_array_size(pids); k++)
			cr_expect_neq(json_integer_value(json_array_get(pids, i)),
				      json_integer_value(json_array_get(pids, k)), "a pid twice");
	decls = json_object_get(report, "declarations");
	cr_expect_eq(json_array_size(decls), 4, "malloc in each executable");
	for (i = 0; i < json_array_size(decls); i++) {
		json_t *d = json_array_get(decls, i);

		cr_expect_str_eq(json_string_value(json_object_get(d, "name")), "malloc");
		cr_expect(json_string_value(json_object_get(d, "executable")));
		cr_expect_gt(json_integer_value(json_object_get(d, "evaluations")), 0);
	}
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
	free(data);
	free(rep);
	harness_rmdir(dir);
}

/*
 * perl (Debian's: libperl linked in) stores and fetches 200,000 hash keys
 * each, every one a call of Perl_hv_common from Perl_pp_multideref, after
 * some hundreds of start-up calls from a few dozen places.  With callers 2,
 * that chain is kept with all its evaluations: the slots hold the heaviest
 * chains, not the first ones seen (which left 99 % of the calls in "other").
 * perl's static functions have no symbol: a call site in one is named by
 * the function's start from .eh_frame ("0x109360+0x3a4@perl").
 */
Test(real, perl_hot_chain_kept)
{
	static const char script[] = "my %h; $h{$_} = $_ for 1..200000; my $s = 0; "
				     "$s += $h{$_} for 1..200000; print \"$s\\n\"";
	char *dir = harness_tmpdir("perl"), *data;
	struct run_result r;
	json_t *report, *d, *c, *hot = NULL, *other = NULL;
	size_t i;

	cr_assert(asprintf(&data, "%s/data", dir) > 0);
	extprof_run((const char *const[]){"-o", data, "--callers", "2", "-H",
					  "function:Perl_hv_common", "--", "perl", "-e", script,
					  NULL},
		    &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "20000100000\n");
	report = harness_report(data, NULL);
	d = harness_decl(report, "Perl_hv_common");
	cr_expect_geq(harness_int(d, "evaluations"), 400000);
	json_array_foreach(json_object_get(d, "callers"), i, c)
	{
		const char *f0 = json_string_value(json_array_get(json_object_get(c, "chain"), 0));
		json_t *f;
		size_t k;

		/* a call site in a function without a symbol is named by its start */
		json_array_foreach(json_object_get(c, "chain"), k, f)
			cr_expect(strstr(json_string_value(f), "+0x"), "a raw address: %s",
				  json_string_value(f));
		if (!f0)
			other = c;
		else if (!strncmp(f0, "Perl_pp_multideref+0x", 21))
			hot = c;
	}
	cr_assert_not_null(hot, "no chain from Perl_pp_multideref: %s", r.err);
	cr_expect_eq(harness_int(hot, "evaluations"), 400000, "the hot chain lost some");
	cr_expect_lt(other ? harness_int(other, "evaluations") : 0,
		     harness_int(d, "evaluations") / 100, "\"other\" holds more than 1 %%");
	json_decref(report);
	harness_free(&r);
	free(data);
	harness_rmdir(dir);
}

/* jq's stdout under `extprof run` is byte for byte jq's stdout alone, in text and JSON. */
Test(real, stdout_is_the_programs)
{
	const char *formats[] = {"text", "json", "csv"};
	char *dir = harness_tmpdir("out"), *in;
	struct run_result plain;
	FILE *f;

	cr_assert(asprintf(&in, "%s/in.json", dir) > 0);
	f = fopen(in, "w");
	cr_assert(f);
	for (int i = 0; i < 100; i++)
		fprintf(f, "{\"n\": %d, \"s\": \"x%d\"}\n", i, i);
	fclose(f);
	{
		const char *jq[] = {"jq", "-c", "{s, twice: (.n * 2)}", in, NULL};

		harness_run(jq, NULL, &plain);
		cr_assert_eq(plain.status, 0, "%s", plain.err);
	}
	for (size_t i = 0; i < 3; i++) {
		char *data;
		struct run_result r;

		cr_assert(asprintf(&data, "%s/d%zu", dir, i) > 0);
		extprof_run((const char *const[]){"-o", data, "--format", formats[i], "-H",
						  "function:jv_*@libjq.so.1", "--", "jq", "-c",
						  "{s, twice: (.n * 2)}", in, NULL},
			    &r);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect_str_eq(r.out, plain.out, "--format %s: jq's stdout changed", formats[i]);
		cr_expect(strstr(r.err, "jv_"), "no report on stderr: %s", r.err);
		harness_free(&r);
		free(data);
	}
	harness_free(&plain);
	free(in);
	harness_rmdir(dir);
}

/* A compact dump of clang's: no room kept, no rows, its size the declarations' and buckets'. */
static void expect_compact_space(const char *path, const struct dump_space *s, void *arg)
{
	const size_t *hooked_called = arg;

	cr_assert(s, "%s is no dump", path);
	cr_expect(s->compact, "%s", path);
	cr_expect_leq(s->alloc, s->size + 4096, "%s", path);
	cr_expect_leq(s->sparse, (unsigned long long)hooked_called[1] * EXTPROF_HIST_BUCKETS, "%s",
		      path);
	cr_expect_leq(s->size, (unsigned long long)hooked_called[0] * 512 + s->sparse * 16 + 65536,
		      "%s: %llu bytes", path, s->size);
	fprintf(stderr, "real: clang: compact %s: %llu bytes on disk, %llu buckets\n", path,
		s->alloc, s->sparse);
}

/*
 * clang with every hookable llvm:: function of libLLVM hooked (about
 * 18,500): the object file it writes is the one it writes alone, the
 * report lists every function hooked, called or not, and the dumps hold
 * space for the functions called: the live one while clang runs (watched),
 * the compact one after.
 */
Test(real, clang_every_llvm_function, .timeout = 400)
{
	const char *lib = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1";
	char *dir = harness_tmpdir("clang"), *src, *obj, *plain_obj, *data, *rep, *cmd;
	const char *sym[] = {
		harness_path("EXTPROF_BIN"), "symbols", "--format", "json", lib, "_ZN4llvm*", NULL};
	struct run_result s, r;
	json_t *fns, *report, *decls;
	json_error_t jerr;
	size_t ok = 0, hooked, listed = 0, called = 0;
	struct dump_space live;
	int looks;
	FILE *f;

	cr_assert(asprintf(&src, "%s/t.c", dir) > 0 && asprintf(&obj, "%s/t.o", dir) > 0 &&
		  asprintf(&plain_obj, "%s/plain.o", dir) > 0 &&
		  asprintf(&data, "%s/data", dir) > 0 && asprintf(&rep, "%s/r.json", dir) > 0);
	f = fopen(src, "w");
	cr_assert(f);
	fputs("static int sq(int x) { return x * x; }\n"
	      "int sum(const int *v, int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(v[i]);"
	      " return s; }\n",
	      f);
	fclose(f);
	/* what symbols calls hookable: the shim's own verdicts */
	harness_run(sym, NULL, &s);
	cr_assert_eq(s.status, 0, "%s", s.err);
	fns = json_object_get(json_loads(s.out, 0, &jerr), "functions");
	cr_assert(fns, "%s", jerr.text);
	for (size_t i = 0; i < json_array_size(fns); i++)
		ok += json_is_true(json_object_get(json_array_get(fns, i), "hookable"));
	cr_assert_gt(ok, 10000, "libLLVM: %zu hookable llvm:: functions", ok);
	{
		const char *cc[] = {"clang", "-O2", "-c", src, "-o", plain_obj, NULL};
		struct run_result p;

		harness_run(cc, NULL, &p);
		cr_assert_eq(p.status, 0, "clang alone: %s", p.err);
		harness_free(&p);
	}
	{
		/* while it runs, the live dumps' space: the rows of the functions called */
		const char *argv[] = {harness_path("EXTPROF_BIN"),
				      "run",
				      "-o",
				      data,
				      "--format",
				      "json",
				      "--output",
				      rep,
				      "-H",
				      "function:_ZN4llvm*@libLLVM-14.so.1",
				      "--",
				      "clang",
				      "-O2",
				      "-c",
				      src,
				      "-o",
				      obj,
				      NULL};
		struct spawned sp;

		harness_spawn(argv, (const char *const[]){"EXTPROF_COUNTER=tsc", NULL}, &sp);
		looks = dump_space_watch(sp.pid, data, &live);
		harness_reap(&sp, &r);
	}
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_assert(asprintf(&cmd, "cmp -s '%s' '%s'", plain_obj, obj) > 0);
	cr_expect_eq(system(cmd), 0, "clang under the shim wrote another object file");
	{
		/* "extprof: hooked 18,105/18,528; ...": the number hooked, without its commas */
		const char *p = harness_hook_line(r.err) + strlen("extprof: hooked ");

		hooked = 0;
		for (; (*p >= '0' && *p <= '9') || *p == ','; p++)
			if (*p != ',')
				hooked = hooked * 10 + (size_t)(*p - '0');
	}
	report = json_load_file(rep, 0, &jerr);
	cr_assert(report, "%s: %s", rep, jerr.text);
	decls = json_object_get(report, "declarations");
	listed = json_array_size(decls);
	/* aliases are hooked once, under their best name: no more rows than hookable names */
	cr_expect_eq(listed, hooked, "the report lists %zu of the %zu hooked", listed, hooked);
	cr_expect_gt(listed, ok * 9 / 10, "%zu rows of %zu hookable: %s", listed, ok,
		     harness_hook_line(r.err));
	cr_expect_leq(listed, ok);
	cr_expect(strstr(harness_hook_line(r.err), "the limit") == NULL, "%s",
		  harness_hook_line(r.err));
	/*
	 * Each worker's live dump held the rows of the functions it called (at
	 * most those the report says were called), not a row per function hooked.
	 */
	for (size_t i = 0; i < listed; i++)
		called += harness_int(json_array_get(decls, i), "evaluations") > 0;
	fprintf(stderr,
		"real: clang: %zu hooked, %zu called; the largest live dump: %llu rows, %llu bytes "
		"on disk (%d looks), against %llu for a row each\n",
		hooked, called, live.rows, live.alloc, looks,
		(unsigned long long)hooked * EXTPROF_HIST_ROW_BYTES);
	cr_expect_gt(looks, 0, "no live dump seen while clang ran");
	cr_expect_eq(live.ndecls, hooked);
	cr_expect_leq(live.rows, called + 1, "%llu rows for %zu functions called", live.rows,
		      called);
	cr_expect_leq(live.alloc, dump_space_bound(&live), "%llu bytes on disk for %llu rows",
		      live.alloc, live.rows);
	cr_expect_lt(live.alloc * 3, (unsigned long long)hooked * EXTPROF_HIST_ROW_BYTES,
		     "%llu bytes on disk for %zu functions hooked, %zu called", live.alloc, hooked,
		     called);
	cr_expect_gt(dump_space_each(data, expect_compact_space, (size_t[]){hooked, called}), 0);
	json_decref(report);
	harness_free(&s);
	harness_free(&r);
	free(cmd);
	free(src);
	free(obj);
	free(plain_obj);
	free(data);
	free(rep);
	harness_rmdir(dir);
}
