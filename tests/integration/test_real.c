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

/*
 * @argv without the shim and under it with EXTPROF_HOOKS=@hooks: the same
 * status and output, and the shim's line begins with @said.
 */
static void expect_unchanged(const char *const argv[], const char *hooks, const char *said)
{
	char *dir = harness_tmpdir("same");
	struct run_result plain, r;

	harness_run(argv, NULL, &plain);
	shim_run(argv, hooks, dir, NULL, NULL, &r);
	expect_same(argv[0], &plain, &r);
	cr_expect(!strncmp(harness_hook_line(r.err), said, strlen(said)), "%s under %s: %s",
		  argv[0], hooks, r.err);
	harness_free(&plain);
	harness_free(&r);
	harness_rmdir(dir);
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

	expect_unchanged(argv, "function:*@*", "extprof: hooked ");
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
 * glibc's __memcpy_chk_X (what a program built with -D_FORTIFY_SOURCE=2
 * calls) checks, then falls through the padding into __memcpy_X, which
 * __mempcpy_X jumps into past its first instruction: memcpy's short patch
 * puts its jmp in that padding, at an instruction's start, so that the
 * fall-through is a counted call of memcpy, whose code it runs.  Before,
 * the jmp cut a nop in two and the fall-through ran garbage.  In every
 * choice of the IFUNCs this CPU allows (GLIBC_TUNABLES masks features):
 * the program unchanged, memcpy and mempcpy counted once for each call and
 * each check that passed.
 */
Test(real, fortified_memcpy_every_choice)
{
	static const char *const tunables[] = {
		NULL,
		"GLIBC_TUNABLES=glibc.cpu.hwcaps=Prefer_No_AVX512",
		"GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL",
		"GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-ERMS",
		"GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX_Fast_Unaligned_Load,-AVX512F,-AVX512VL",
		"GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX_Fast_Unaligned_Load,-AVX512F,-AVX512VL,-SSSE3",
		"GLIBC_TUNABLES=glibc.cpu.hwcaps=Prefer_ERMS",
	};
	static const struct {
		const char *decl;
		long long per_round;
	} want[] = {{"memcpy", 2}, {"__memcpy_chk", 1}, {"mempcpy", 2}, {"__mempcpy_chk", 1}};
	const char *argv[] = {harness_path("LIBCALLS_TARGET"), "chk", "500", NULL};

	for (size_t i = 0; i < sizeof(tunables) / sizeof(tunables[0]); i++) {
		const char *env[] = {tunables[i], NULL};
		char *dir = harness_tmpdir("chk");
		struct run_result plain, r;
		const char *choice;
		json_t *report;

		harness_run(argv, tunables[i] ? env : NULL, &plain);
		shim_run(argv,
			 "function:memcpy@" LIBC ",function:__memcpy_chk@" LIBC
			 ",function:mempcpy@" LIBC ",function:__mempcpy_chk@" LIBC,
			 dir, "EXTPROF_WINDOW=measure_chk", tunables[i], &r);
		choice = strstr(r.err, "memcpy -> ");
		expect_same(tunables[i] ? tunables[i] : "by default", &plain, &r);
		cr_expect_str_eq(harness_hook_line(r.err), "extprof: hooked 5/5", "%s: %s",
				 tunables[i] ? tunables[i] : "by default", r.err);
		report = harness_report(dir, NULL);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			cr_expect_eq(harness_decl_int(report, want[k].decl, "evaluations"),
				     500 * want[k].per_round, "%s (%.40s): %s: %lld evaluations",
				     tunables[i] ? tunables[i] : "by default", choice, want[k].decl,
				     harness_decl_int(report, want[k].decl, "evaluations"));
		json_decref(report);
		harness_free(&plain);
		harness_free(&r);
		harness_rmdir(dir);
	}
}

/* Debian's perl and gzip, fortified, with memcpy hooked: unchanged (both crashed). */
Test(real, fortified_programs)
{
	const char *perl[] = {"perl", "-e", "my %h; $h{$_} = $_ x 3 for 1 .. 2000; "
					    "print join(',', map { length } @h{1 .. 20}), \"\\n\"",
			      NULL};
	const char *gzip[] = {"gzip", "-c", "-9", harness_path("LIBCALLS_TARGET"), NULL};
	const char *const *progs[] = {perl, gzip};

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		expect_unchanged(progs[i], "function:memcpy@" LIBC, "extprof: hooked 1/1");
}

/*
 * A fork child drops the parent's dumps (munmap) as its first act: with
 * munmap hooked, that call passed through the stub, which wrote into the
 * tables it had just unmapped, and the child died (timeout(1) under
 * function:*@*).  Each process counts its own calls, exactly.
 */
Test(real, fork_child_with_munmap_hooked)
{
	const char *argv[] = {harness_path("LIBCALLS_TARGET"), "fork", "100", NULL};
	char *dir = harness_tmpdir("fork");
	struct run_result plain, r;
	long pids[4];
	int n;

	harness_run(argv, NULL, &plain);
	shim_run(argv, "function:memcpy@" LIBC ",function:munmap@" LIBC, dir,
		 "EXTPROF_WINDOW=measure_fork", NULL, &r);
	expect_same("fork", &plain, &r);
	n = harness_dump_pids(dir, pids, 4);
	cr_expect_eq(n, 2, "the dumps of %d processes: %s", n, r.err);
	for (int i = 0; i < n; i++) {
		char why[512];
		json_t *report = harness_report_pid(dir, pids[i], why, sizeof(why));

		cr_assert(report, "process %ld: %s", pids[i], why);
		cr_expect_eq(harness_decl_int(report, "memcpy", "evaluations"), 100);
		cr_expect_eq(harness_decl_int(report, "munmap", "evaluations"), 100);
		json_decref(report);
	}
	harness_free(&plain);
	harness_free(&r);
	harness_rmdir(dir);
}

/*
 * Two static functions named twin (tests/targets/homonyms.c), each ending
 * in a tail call of leaf: each is a declaration of its own, twin@0xOFFSET,
 * counted exactly, and can be named so alone.  Before, both shared one
 * declaration, whose stub was the last one's: the other's tail call was
 * taken for a longjmp out of it, its return address dropped, and the
 * program crashed (glibc's eight round_and_return under function:*@*).
 */
Test(real, homonyms)
{
	const char *argv[] = {harness_path("HOMONYMS_TARGET"), "300", NULL};
	char *dir = harness_tmpdir("twin");
	struct run_result plain, r;
	char names[2][64], entry[128];
	const char *p;
	json_t *report;

	harness_run(argv, NULL, &plain);
	p = plain.err;
	for (int i = 0; i < 2; i++) {
		p = strstr(p, "checker-truth: twin@0x");
		cr_assert(p && sscanf(p, "checker-truth: %63s", names[i]) == 1, "%s", plain.err);
		p++;
	}
	shim_run(argv, "function:twin,function:leaf", dir, NULL, NULL, &r);
	expect_same("function:twin", &plain, &r);
	cr_expect_str_eq(harness_hook_line(r.err), "extprof: hooked 3/3", "%s", r.err);
	report = harness_report(dir, NULL);
	for (int i = 0; i < 2; i++)
		cr_expect_eq(harness_decl_int(report, names[i], "evaluations"),
			     harness_tagged(plain.err, "truth", names[i]), "%s", names[i]);
	cr_expect_eq(harness_decl_int(report, "leaf", "evaluations"),
		     harness_tagged(plain.err, "truth", "leaf"));
	json_decref(report);
	harness_free(&r);
	harness_rmdir(dir);

	/* one of them by its declaration's name (the object last, as after a version) */
	dir = harness_tmpdir("twin");
	snprintf(entry, sizeof(entry), "function:%s@*", names[1]);
	shim_run(argv, entry, dir, NULL, NULL, &r);
	expect_same(entry, &plain, &r);
	cr_expect_str_eq(harness_hook_line(r.err), "extprof: hooked 1/1", "%s", r.err);
	report = harness_report(dir, NULL);
	cr_expect_eq(harness_decl_int(report, names[1], "evaluations"),
		     harness_tagged(plain.err, "truth", names[1]), "%s", names[1]);
	cr_expect_eq(harness_decl_int(report, names[0], "evaluations"), -1);
	json_decref(report);
	harness_free(&plain);
	harness_free(&r);
	harness_rmdir(dir);
}

/* The shim's line, without "extprof: hooked", as `extprof symbols OBJECT GLOB` says it dry. */
static const char *dry_line(const char *err, char *buf, size_t len)
{
	const char *p = strstr(err, ", dry: hooked "), *end;

	buf[0] = '\0';
	if (p) {
		p += strlen(", dry: hooked ");
		end = strchr(p, '\n');
		snprintf(buf, len, "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
	}
	return buf;
}

/*
 * `extprof symbols OBJECT GLOB` plays the shim's run of function:GLOB@OBJECT
 * dry, with the shim's own code: the same functions matched (an alias whose
 * best name answers too is hooked under that name, and listed ALIAS), the
 * same verdicts and reasons, summed up in the shim's own line, whose groups
 * say what they are ("605 are too short for the 5-byte jump to their
 * stub", never "605 is N bytes").  Before, symbols listed 18,625 llvm::
 * functions as OK, and the shim hooked 17,318.
 */
Test(real, symbols_agree_with_the_shim)
{
	const char *clang[] = {"clang", "--version", NULL};
	const char *libcalls[] = {harness_path("LIBCALLS_TARGET"), "measure", "1", NULL};
	static const char llvm[] = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1";
	static const char libc[] = "/lib/x86_64-linux-gnu/libc.so.6";
	const struct {
		const char *lib, *glob;
		const char *const *argv;
	} cases[] = {
		{llvm, "_ZN4llvm*", clang},
		{libc, "*", libcalls},
		{libc, "mem*", libcalls},
		{libc, "memcpy@GLIBC_2.2.5", libcalls},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *base = strrchr(cases[i].lib, '/') + 1;
		const char *sym[] = {harness_path("EXTPROF_BIN"), "symbols", "--format", "json",
				     cases[i].lib, cases[i].glob, NULL};
		char *dir = harness_tmpdir("agree"), entry[256], line[1024];
		unsigned long long hooked = 0, tried = 0, ok = 0, refused = 0;
		struct run_result r, s;
		const char *said;
		json_error_t jerr;
		json_t *root, *fns;

		snprintf(entry, sizeof(entry), "function:%s@%s", cases[i].glob, base);
		shim_run(cases[i].argv, entry, dir, NULL, NULL, &r);
		cr_expect_eq(r.status, 0, "%s: %s", entry, r.err);
		said = harness_hook_line(r.err);
		harness_run(sym, NULL, &s);
		cr_expect_eq(s.status, 0, "symbols %s: %s", entry, s.err);
		cr_expect_str_eq(dry_line(s.err, line, sizeof(line)),
				 said + strlen("extprof: hooked "), "%s: symbols said %s", entry,
				 s.err);
		/* the shim's "hooked H/T": as many rows OK, and T - H refused */
		{
			char digits[64];
			size_t n = 0;

			for (const char *p = said + strlen("extprof: hooked ");
			     *p && *p != ';' && n + 1 < sizeof(digits); p++)
				if (*p != ',')
					digits[n++] = *p;
			digits[n] = '\0';
			cr_assert_eq(sscanf(digits, "%llu/%llu", &hooked, &tried), 2, "%s", said);
		}
		root = json_loads(s.out, 0, &jerr);
		fns = json_object_get(root, "functions");
		cr_assert(fns, "%s: %s", entry, jerr.text);
		for (size_t k = 0; k < json_array_size(fns); k++) {
			json_t *fn = json_array_get(fns, k);

			if (json_is_true(json_object_get(fn, "hookable")))
				ok++;
			else if (!json_object_get(fn, "alias_of"))
				refused++;
		}
		cr_expect_eq(ok, hooked, "%s: %llu rows OK: %s", entry, ok, said);
		cr_expect_eq(refused, tried - hooked, "%s: %llu rows refused: %s", entry, refused,
			     said);
		cr_expect(!strstr(said, " N ") && !strstr(said, "0xN"), "%s: %s", entry, said);
		fprintf(stderr, "real: %s: %llu OK, %llu refused: %s\n", entry, ok, refused, said);
		json_decref(root);
		harness_free(&r);
		harness_free(&s);
		harness_rmdir(dir);
	}
}

/*
 * A cgo program (tests/targets/cgo/main.go, built here by the go tool,
 * offline): Go's runtime walks goroutine stacks by their return addresses,
 * and hooked, main.deep died "fatal error: unknown caller pc" when its
 * stack grew.  Its Go functions are refused with one reason, which
 * `extprof symbols` gives too; the program runs unchanged; the C function
 * beside them is hooked and counted exactly.
 */
Test(real, go_code_refused)
{
#define GO_REASON                                                                                  \
	"is Go code: Go's runtime walks goroutine stacks by their return addresses (to grow "      \
	"them, to collect garbage) and would meet the stub's (\"unknown caller pc\")"
	char *dir = harness_tmpdir("go"), src[4096], exe[4096], cache[4200], path[4200], home[4200];
	const char *env[] = {cache, path, home, "GOFLAGS=", "GOPROXY=off", "CGO_ENABLED=1", NULL};
	const char *build[] = {"go", "build", "-o", exe, src, NULL};
	const char *argv[] = {exe, "300", NULL};
	static const struct {
		const char *entry, *line, *has;
	} cases[] = {
		{"function:main.deep", "extprof: hooked 0/1; refused 1: main.deep " GO_REASON, ""},
		/* every Go function of package main: main.main, main.goWork, the cgo stubs */
		{"function:main.*", "extprof: hooked 0/",
		 " are Go code, whose stacks Go's runtime walks by their return addresses"},
		{"function:c_twice", "extprof: hooked 1/1", ""},
	};
	struct run_result b, plain;

	snprintf(src, sizeof(src), "%s/tests/targets/cgo/main.go",
		 harness_path("EXTPROF_SOURCE_ROOT"));
	snprintf(exe, sizeof(exe), "%s/cgo", dir);
	snprintf(cache, sizeof(cache), "GOCACHE=%s/cache", dir);
	snprintf(path, sizeof(path), "GOPATH=%s/path", dir);
	snprintf(home, sizeof(home), "HOME=%s", dir);
	harness_run(build, env, &b);
	cr_assert_eq(b.status, 0, "go build: %s", b.err);
	harness_run(argv, NULL, &plain);
	cr_assert_eq(plain.status, 0, "the cgo program by itself: %s", plain.err);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = harness_tmpdir("go"), line[1024];
		const char *glob = strchr(cases[i].entry, ':') + 1, *said;
		const char *args[] = {harness_path("EXTPROF_BIN"), "symbols", exe, glob, NULL};
		struct run_result r, s;

		shim_run(argv, cases[i].entry, d, NULL, NULL, &r);
		expect_same(cases[i].entry, &plain, &r);
		said = harness_hook_line(r.err);
		cr_expect(!strncmp(said, cases[i].line, strlen(cases[i].line)), "%s: want %s: %s",
			  cases[i].entry, cases[i].line, r.err);
		cr_expect(strstr(said, cases[i].has), "%s: want \"%s\": %s", cases[i].entry,
			  cases[i].has, said);
		/* extprof symbols, dry, says the same */
		harness_run(args, NULL, &s);
		cr_expect_str_eq(dry_line(s.err, line, sizeof(line)),
				 said + strlen("extprof: hooked "), "%s: symbols said %s",
				 cases[i].entry, s.err);
		if (strstr(cases[i].line, "1/1")) {
			json_t *report = harness_report(d, NULL);

			cr_expect_eq(harness_decl_int(report, "c_twice", "evaluations"),
				     harness_tagged(plain.err, "truth", "c_twice"));
			json_decref(report);
		}
		harness_free(&r);
		harness_free(&s);
		harness_rmdir(d);
	}
	harness_free(&b);
	harness_free(&plain);
	harness_rmdir(dir);
#undef GO_REASON
}

/*
 * Everything hooked in programs that met each of the faults above: a
 * fork child (timeout), glibc's homonyms (strtod, in timeout's argument),
 * fortified calls: each runs unchanged.
 */
Test(real, everything_hooked_programs)
{
	const char *timeout[] = {"timeout", "5", "sh", "-c", "echo in the child", NULL};
	const char *chk[] = {harness_path("LIBCALLS_TARGET"), "chk", "20", NULL};
	const char *fork_[] = {harness_path("LIBCALLS_TARGET"), "fork", "20", NULL};
	const char *twins[] = {harness_path("HOMONYMS_TARGET"), "20", NULL};
	const char *const *progs[] = {timeout, chk, fork_, twins};

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		expect_unchanged(progs[i], "function:*@*", "extprof: hooked ");
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
