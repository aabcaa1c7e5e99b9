// SPDX-License-Identifier: MIT
/*
 * Never hurt the host process: the shim, preloaded into a real
 * program (tests/targets/safety.c), on a full filesystem, in a signal
 * handler that interrupted malloc, in a set-user-ID program, with hostile
 * values in its variables, in the children of a profiled program, in a
 * program that changes directory or closes its descriptors, with bad files
 * and shared directories; and the analyzer on files that are not dumps yet.
 * In every case the program's output, exit status and files are those of a
 * run without the shim, and each problem is one line.
 *
 * Some cases need root (CI has it): a tmpfs to fill, a set-user-ID program,
 * a host name of our own in a UTS namespace, a directory of another user.
 * Without root they are skipped, and say so.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define NOBODY 65534

#define str harness_str

/*
 * The environment of a run under the shim: LD_PRELOAD, EXTPROF_DIR=@dir
 * (NULL: unset, the default applies), tsc, stderr, then the "NAME=value"
 * strings that follow (NULL-terminated), which win.
 */
static char **shim_env(const char *dir, ...)
{
	char **env = calloc(32, sizeof(*env));
	int n = 0;
	va_list ap;

	cr_assert(env);
	env[n++] = str("LD_PRELOAD=%s", harness_path("EXTPROF_SHIM"));
	env[n++] = str("EXTPROF_DIR=%s", dir ? dir : "");
	env[n++] = str("EXTPROF_COUNTER=tsc");
	env[n++] = str("EXTPROF_LOG=stderr");
	env[n++] = str("EXTPROF_SPEC=");
	env[n++] = str("EXTPROF_HOOKS=");
	va_start(ap, dir);
	for (const char *s; (s = va_arg(ap, const char *)) && n < 31;)
		env[n++] = str("%s", s);
	va_end(ap);
	return env;
}

static const char *const plain_env[] = {
	"LD_PRELOAD=", "EXTPROF_HOOKS=", "EXTPROF_SPEC=", "EXTPROF_DIR=", "EXTPROF_LOG=", NULL};

static void env_free(char **env)
{
	for (int i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

/* Lines of @text that contain @needle. */
static int lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		n += memmem(line, len, needle, strlen(needle)) != NULL;
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

/* The shim's lines: those that start with "extprof: ". */
static int shim_lines(const char *err)
{
	int n = !strncmp(err, "extprof: ", 9);

	for (const char *p = err; (p = strstr(p, "\nextprof: ")); p++)
		n++;
	return n;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	cr_assert(buf);
	if (!f)
		return buf;
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert(fclose(f) == 0);
}

/* Run the target plain and under the shim; expect the same status and stdout. */
static void run_both(const char *const argv[], char **env, const struct run_opts *o,
		     struct run_result *plain, struct run_result *hooked)
{
	harness_run_with(argv, plain_env, o, plain);
	harness_run_with(argv, (const char *const *)env, o, hooked);
	cr_expect(!hooked->timed_out, "%s %s: timed out under the shim", argv[0], argv[1]);
	cr_expect_eq(hooked->status, plain->status,
		     "%s %s: status %d under the shim, %d without; stderr: %.1500s", argv[0],
		     argv[1], hooked->status, plain->status, hooked->err);
	cr_expect_str_eq(hooked->out, plain->out, "%s %s: stdout differs under the shim", argv[0],
			 argv[1]);
}

static long long report_evals(const char *dir, const char *name)
{
	json_t *r = harness_report(dir, NULL);
	long long n = harness_decl_int(r, name, "evaluations");

	json_decref(r);
	return n;
}

static bool report_complete(const char *dir)
{
	json_t *r = harness_report(dir, NULL);
	bool complete = json_is_true(json_object_get(r, "complete"));

	json_decref(r);
	return complete;
}

/* ---- 1. a full filesystem ---------------------------------------------- */

/*
 * A tmpfs of @size on @dir, in a mount namespace of this test's own (it
 * goes when the test's process ends).  False when this cannot be done here.
 */
static bool mount_tmpfs(const char *dir, const char *size)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "size=%s,mode=0700", size);
	if (unshare(CLONE_NEWNS) || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return false;
	return !mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, opts);
}

static char *full_fs(const char *tag, const char *size)
{
	char *dir = harness_tmpdir(tag);

	if (!mount_tmpfs(dir, size)) {
		fprintf(stderr, "safety: %s skipped: cannot mount a tmpfs here (%s)\n", tag,
			strerror(errno));
		harness_rmdir(dir);
		cr_skip_test("no tmpfs");
	}
	return dir;
}

static void full_fs_done(char *dir)
{
	umount2(dir, MNT_DETACH);
	harness_rmdir(dir);
}

Test(safety, full_filesystem_counts_in_memory_and_writes_at_exit)
{
	char *fs = full_fs("full", "64k"), *dumps = str("%s/d", fs);
	const char *argv[] = {harness_path("SAFETY_TARGET"), "calls", "1000", NULL};
	char **env = shim_env(dumps, "EXTPROF_HOOKS=function:xs_*", NULL);
	struct run_result plain, hooked;

	/* four declarations: a live dump of 120 KiB, a compact one of 2 */
	run_both(argv, env, NULL, &plain, &hooked);
	cr_expect_eq(hooked.signal, 0, "killed by signal %d", hooked.signal);
	cr_expect_eq(lines_with(hooked.err, "counting in memory"), 1, "%s", hooked.err);
	cr_expect_eq(shim_lines(hooked.err), 2, "one line for the full filesystem: %s", hooked.err);
	cr_expect(report_complete(dumps));
	cr_expect_eq(report_evals(dumps, "xs_work"), 1000);
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	free(dumps);
	full_fs_done(fs);
}

Test(safety, full_filesystem_with_no_room_at_all)
{
	char *fs = full_fs("fuller", "64k"), *dumps = str("%s/d", fs), *fill = str("%s/fill", fs);
	const char *argv[] = {harness_path("SAFETY_TARGET"), "calls", "1000", NULL};
	char **env = shim_env(dumps, "EXTPROF_HOOKS=function:xs_*", NULL);
	struct run_result plain, hooked;
	static char block[4096];
	int fd;

	cr_assert(mkdir(dumps, 0700) == 0);
	fd = open(fill, O_WRONLY | O_CREAT, 0600);
	cr_assert(fd >= 0);
	while (write(fd, block, sizeof(block)) > 0)
		;
	close(fd);
	run_both(argv, env, NULL, &plain, &hooked);
	cr_expect_eq(hooked.signal, 0, "killed by signal %d", hooked.signal);
	cr_expect_eq(lines_with(hooked.err, "counting in memory"), 1, "%s", hooked.err);
	cr_expect_eq(lines_with(hooked.err, "at exit either"), 1, "%s", hooked.err);
	cr_expect_eq(harness_count_files(dumps, ".xpd"), 0, "a dump left on a full filesystem");
	cr_expect_eq(harness_count_files(dumps, ".tmp"), 0, "a .tmp left on a full filesystem");
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	free(dumps);
	free(fill);
	full_fs_done(fs);
}

/*
 * The dump cannot grow mid-run: the program fills the filesystem between
 * its first calls and the first calls of other functions, which need rows
 * of their own.  Counting goes on, those rows in memory, one line says so,
 * never a signal.  With the room given back before exit (@keep false) the
 * compact dump holds every histogram; without (@keep), the live dump stays,
 * marked complete, and the report says which histograms it lacks.
 */
static void cannot_grow_mid_run(bool keep)
{
	char *fs = full_fs(keep ? "nogrow-keep" : "nogrow", "1m"), *dumps = str("%s/d", fs),
	     *fill = str("%s/fill", fs);
	const char *argv[] = {harness_path("SAFETY_TARGET"), "fill", fill, keep ? "keep" : NULL,
			      NULL};
	char **env = shim_env(dumps, "EXTPROF_HOOKS=function:xs_*", NULL);
	struct run_result plain, hooked;
	json_t *r;

	harness_run_with(argv, plain_env, NULL, &plain);
	unlink(fill);
	harness_run_with(argv, (const char *const *)env, NULL, &hooked);
	cr_expect_eq(hooked.signal, 0, "killed by signal %d", hooked.signal);
	cr_expect_eq(hooked.status, plain.status, "%s", hooked.err);
	cr_expect_str_eq(hooked.out, plain.out);
	cr_expect_eq(lines_with(hooked.err, "cannot grow"), 1, "%s", hooked.err);
	cr_expect_eq(lines_with(hooked.err, "counting in memory"), 1, "%s", hooked.err);
	cr_expect_eq(lines_with(hooked.err, "cannot finish"), keep, "%s", hooked.err);
	cr_expect_eq(shim_lines(hooked.err), 2 + keep, "%s", hooked.err);
	cr_expect_eq(harness_count_files(dumps, ".tmp"), 0, "a .tmp left behind");
	unlink(fill);
	r = harness_report(dumps, NULL);
	cr_assert(r);
	cr_expect(json_is_true(json_object_get(r, "complete")));
	cr_expect_eq(harness_decl_int(r, "xs_work", "evaluations"), 20);
	cr_expect_eq(harness_decl_int(r, "xs_other", "evaluations"), 1);
	cr_expect_eq(harness_decl_int(r, "xs_third", "evaluations"), 1);
	/* xs_work's row was in the file before it filled up */
	cr_expect_eq(harness_decl_int(r, "xs_work", "histogram_lost"), 0);
	cr_expect_eq(harness_decl_int(r, "xs_other", "histogram_lost"), keep);
	cr_expect_eq(harness_decl_int(r, "xs_third", "histogram_lost"), keep);
	json_decref(r);
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	free(dumps);
	free(fill);
	full_fs_done(fs);
}

Test(safety, a_dump_that_cannot_grow_mid_run_counts_on_in_memory)
{
	cannot_grow_mid_run(false);
}

Test(safety, a_dump_that_cannot_grow_nor_finish_says_what_it_lacks)
{
	cannot_grow_mid_run(true);
}

/*
 * safety MODE ARG plain and under the shim hooking @hooks: the same status
 * (0) and stdout, and @name's evaluations exactly the program's own count.
 */
static void expect_same_and_exact(const char *mode, const char *arg, const char *hooks,
				  const char *name, int timeout_s)
{
	char *dir = harness_tmpdir(mode);
	const char *argv[] = {harness_path("SAFETY_TARGET"), mode, arg, NULL};
	char **env = shim_env(dir, hooks, NULL);
	struct run_opts o = {.timeout_s = timeout_s};
	struct run_result plain, hooked;

	run_both(argv, env, &o, &plain, &hooked);
	cr_expect_eq(hooked.status, 0, "%s %s: %s", mode, arg, hooked.out);
	cr_expect_eq(report_evals(dir, name), harness_truth(hooked.err, name));
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	harness_rmdir(dir);
}

/* ---- 2. a thread's first hooked call in a signal handler ---------------- */

Test(safety, first_call_in_a_signal_handler_that_interrupted_malloc)
{
	expect_same_and_exact("sigmalloc", "20", "EXTPROF_HOOKS=function:xs_in_handler",
			      "xs_in_handler", 60);
}

/*
 * A fork while other threads lay out their dumps: the child inherits the
 * layout lock of a thread it does not have, and its first hooked call must
 * not wait for it (it spun for ever before worker_reset_after_fork let go).
 */
Test(safety, a_fork_while_other_threads_lay_out_their_dumps)
{
	expect_same_and_exact("forklayout", "40",
			      "EXTPROF_HOOKS=function:xs_work,function:xs_other", "xs_other", 120);
}

/*
 * The dumps in @dir say every call was counted: complete, none lost, and
 * each of @names (NULL-terminated) evaluated as often as the program's own
 * count in @err says.  @what names the run in the messages.
 */
static void expect_all_counted(const char *dir, const char *err, const char *const names[],
			       const char *what)
{
	json_t *r = harness_report(dir, NULL);

	cr_assert(r, "%s: no report", what);
	cr_expect_eq(harness_int(r, "lost"), 0, "%s: calls lost; stderr: %.1500s", what, err);
	cr_expect(json_is_true(json_object_get(r, "complete")), "%s: not complete", what);
	for (size_t i = 0; names[i]; i++)
		cr_expect_eq(harness_decl_int(r, names[i], "evaluations"),
			     harness_truth(err, names[i]), "%s: %s", what, names[i]);
	json_decref(r);
}

/*
 * New threads' first calls while another thread dlopens a library a hook
 * names, over and over (tests/targets/safety.c, dlrace): every new worker's
 * dump is laid out during a dlopen, by construction, and none of those
 * calls may be lost (a fourth of them were, when a layout gave up during
 * a dlopen's look for new functions), nor those of the 300 short-lived
 * threads after.
 */
Test(safety, first_calls_during_a_dlopen_are_all_counted)
{
	char *dir = harness_tmpdir("dlrace");
	const char *argv[] = {harness_path("SAFETY_TARGET"), "dlrace", harness_path("SAFETY_LIB"),
			      "30", NULL};
	char **env = shim_env(dir,
			      "EXTPROF_HOOKS=function:xs_work,function:xs_lib_work@"
			      "libsafety_lib.so",
			      NULL);
	static const char *const names[] = {"xs_work", "xs_lib_work", NULL};
	struct run_opts o = {.timeout_s = 120};
	struct run_result plain, hooked;

	run_both(argv, env, &o, &plain, &hooked);
	cr_expect_eq(hooked.status, 0, "%s", hooked.err);
	expect_all_counted(dir, hooked.err, names, "dlrace");
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	harness_rmdir(dir);
}

/*
 * Threads clone() makes without TLS of their own run on the main thread's
 * (tests/targets/safety.c, clone): both at once, one inside the other's
 * hooked call, one whose stack lies in the other's, with every counter.
 * Each call is counted once, in a worker of its thread's own, and none
 * lost; they shared one shadow stack before, and the program died of it.
 */
Test(safety, threads_without_tls_of_their_own_are_counted_apart)
{
	static const char *const counters[] = {"var:n_work", "tsc", "ns", "steps"};
	static const char *const names[] = {"xs_work", "xs_other", "xs_spawn", "xs_wait", NULL};

	for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
		char *dir = harness_tmpdir("clone");
		const char *argv[] = {harness_path("SAFETY_TARGET"), "clone", "100000", NULL};
		char *counter = str("EXTPROF_COUNTER=%s", counters[c]);
		char **env = shim_env(dir, "EXTPROF_HOOKS=function:xs_*", counter, NULL);
		struct run_opts o = {.timeout_s = 120};
		struct run_result plain, hooked;

		run_both(argv, env, &o, &plain, &hooked);
		cr_expect_eq(hooked.signal, 0, "%s: killed by signal %d", counters[c],
			     hooked.signal);
		expect_all_counted(dir, hooked.err, names, counters[c]);
		harness_free(&plain);
		harness_free(&hooked);
		env_free(env);
		free(counter);
		harness_rmdir(dir);
	}
}

/*
 * A child clone() makes with CLONE_VM, a process of its own on its
 * parent's memory, calls exit(): the exit handlers it runs are its
 * parent's (they never run again in the parent), the shim's included,
 * which finished the dumps then, so that the parent's calls after went
 * uncounted under a report that said "complete" (2 of 400,002).  The
 * child's exit finishes nothing now: every call is in the live dumps,
 * which say they were not finished.
 */
Test(safety, a_clone_vm_child_calling_exit_finishes_nothing_of_its_parent)
{
	char *dir = harness_tmpdir("vmexit");
	const char *argv[] = {harness_path("SAFETY_TARGET"), "vmexit", "400000", NULL};
	char **env = shim_env(dir, "EXTPROF_HOOKS=function:xs_work", NULL);
	struct run_result plain, hooked;
	json_t *r;

	run_both(argv, env, NULL, &plain, &hooked);
	r = harness_report(dir, NULL);
	cr_assert(r);
	cr_expect_eq(harness_decl_int(r, "xs_work", "evaluations"),
		     harness_truth(hooked.err, "xs_work"));
	cr_expect(json_is_false(json_object_get(r, "complete")),
		  "the parent's exit handlers ran in the child: nothing finished the dumps");
	json_decref(r);
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	harness_rmdir(dir);
}

/* ---- 3. secure-execution mode -------------------------------------------- */

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char *cmd = str("cp '%s' '%s'", from, to);

	cr_assert(system(cmd) == 0, "%s", cmd);
	cr_assert(chmod(to, mode) == 0);
	free(cmd);
}

Test(safety, setuid_program_hooks_nothing_and_opens_nothing)
{
	char *dir, *exe, *shim, *log, *dumps;
	struct run_opts o = {.uid = NOBODY, .timeout_s = 30};
	struct run_result plain, hooked;

	if (geteuid() != 0) {
		fprintf(stderr, "safety: the set-user-ID case skipped: not root\n");
		cr_skip_test("not root");
	}
	dir = harness_tmpdir("secure");
	cr_assert(chmod(dir, 0755) == 0);
	exe = str("%s/safety", dir);
	shim = str("%s/libextprof.so", dir);
	log = str("%s/log", dir);
	dumps = str("%s/dumps", dir);
	/* a set-user-ID root program, run by nobody, that loads the shim */
	copy_file(harness_path("SAFETY_TARGET"), exe, 04755);
	copy_file(harness_path("EXTPROF_SHIM"), shim, 0755);
	const char *argv_plain[] = {exe, "calls", "4", NULL};
	const char *argv[] = {exe, "dlopen", shim, NULL};
	char *envv[] = {str("EXTPROF_HOOKS=function:xs_work"),
			str("EXTPROF_DIR=%s", dumps),
			str("EXTPROF_LOG=%s", log),
			str("EXTPROF_COUNTER=tsc\nextprof: forged"),
			str("LD_PRELOAD="),
			NULL};

	harness_run_with(argv_plain, plain_env, &o, &plain);
	harness_run_with(argv, (const char *const *)envv, &o, &hooked);
	cr_expect_eq(hooked.status, plain.status, "status %d, %d without the shim: %s",
		     hooked.status, plain.status, hooked.err);
	cr_expect_str_eq(hooked.out, plain.out);
	cr_expect(access(log, F_OK) != 0, "the shim created %s as root", log);
	cr_expect(access(dumps, F_OK) != 0, "the shim created %s as root", dumps);
	cr_expect_leq(shim_lines(hooked.err), 1, "%s", hooked.err);
	cr_expect_eq(lines_with(hooked.err, "forged"), 0, "%s", hooked.err);
	harness_free(&plain);
	harness_free(&hooked);
	for (int i = 0; envv[i]; i++)
		free(envv[i]);
	free(exe);
	free(shim);
	free(log);
	free(dumps);
	harness_rmdir(dir);
}

/* ---- 4. echoed values ------------------------------------------------------ */

Test(safety, echoed_values_are_printable_ascii)
{
	char *dir = harness_tmpdir("escape");
	const char *argv[] = {harness_path("SAFETY_TARGET"), "calls", "3", NULL};
	char **env =
		shim_env(dir, "EXTPROF_HOOKS=function:xs_work,function:no\x1b[2Jsuch\x7f\xc3\xa9",
			 "EXTPROF_COUNTER=tsc\nextprof: forged line", NULL);
	struct run_result plain, hooked;

	run_both(argv, env, NULL, &plain, &hooked);
	for (const unsigned char *p = (const unsigned char *)hooked.err; *p; p++)
		cr_expect(*p == '\n' || (*p >= 0x20 && *p < 0x7f), "byte 0x%02x in: %s", *p,
			  hooked.err);
	cr_expect_eq(lines_with(hooked.err, "no\\x1b[2Jsuch\\x7f\\xc3\\xa9"), 1, "%s", hooked.err);
	cr_expect_eq(lines_with(hooked.err, "EXTPROF_COUNTER=tsc\\x0aextprof: forged line"), 1,
		     "%s", hooked.err);
	cr_expect(!strstr(hooked.err, "\nextprof: forged"), "%s", hooked.err);
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	harness_rmdir(dir);
}

/* ---- 5. children ------------------------------------------------------------ */

Test(safety, a_child_that_hooks_nothing_says_nothing)
{
	char *dir = harness_tmpdir("popen");
	const char *argv[] = {harness_path("SAFETY_TARGET"), "popen", NULL};
	char **env = shim_env(dir, "EXTPROF_HOOKS=function:xs_work", NULL);
	struct run_result plain, hooked;

	/* the child's stderr is the program's pipe (2>&1) */
	run_both(argv, env, NULL, &plain, &hooked);
	cr_expect_eq(shim_lines(hooked.err), 1, "%s", hooked.err); /* hooked 1/1 */
	cr_expect_eq(report_evals(dir, "xs_work"), 3);
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	harness_rmdir(dir);
}

static int dump_pids(const char *dir)
{
	long pids[16];

	return harness_dump_pids(dir, pids, 16);
}

Test(safety, children_are_profiled_unless_told_not_to)
{
	char *all = harness_tmpdir("children"), *first = harness_tmpdir("first");
	const char *argv[] = {harness_path("SAFETY_TARGET"), "spawn", NULL};
	char **env_all = shim_env(all, "EXTPROF_HOOKS=function:xs_work", NULL);
	char **env_first =
		shim_env(first, "EXTPROF_HOOKS=function:xs_work", "EXTPROF_CHILDREN=0", NULL);
	struct run_result plain, hooked, hooked_first;

	run_both(argv, env_all, NULL, &plain, &hooked);
	/* the process, its fork child, and the image a second child exec'd */
	cr_expect_eq(dump_pids(all), 3, "%s", hooked.err);
	cr_expect_eq(report_evals(all, "xs_work"), 3 + 5 + 7);
	harness_run(argv, (const char *const *)env_first, &hooked_first);
	cr_expect_eq(hooked_first.status, plain.status);
	cr_expect_str_eq(hooked_first.out, plain.out);
	cr_expect_eq(dump_pids(first), 1, "EXTPROF_CHILDREN=0: %s", hooked_first.err);
	cr_expect_eq(report_evals(first, "xs_work"), 3);
	harness_free(&plain);
	harness_free(&hooked);
	harness_free(&hooked_first);
	env_free(env_all);
	env_free(env_first);
	harness_rmdir(all);
	harness_rmdir(first);
}

Test(safety, run_no_children)
{
	char *dir = harness_tmpdir("run-first");
	const char *argv[] = {harness_path("EXTPROF_BIN"),
			      "run",
			      "--no-children",
			      "-H",
			      "function:xs_work",
			      "-d",
			      dir,
			      "--",
			      harness_path("SAFETY_TARGET"),
			      "spawn",
			      NULL};
	struct run_result r;

	harness_run(argv, plain_env, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(dump_pids(dir), 1, "%s", r.err);
	harness_free(&r);
	harness_rmdir(dir);
}

/* ---- 6. a program that changes directory ---------------------------------- */

Test(safety, relative_dir_is_made_absolute_at_start)
{
	char *top = harness_tmpdir("chdir"), *sub = str("%s/elsewhere", top),
	     *dumps = str("%s/extprof.data", top), *stray = str("%s/extprof.data", sub);
	const char *argv[] = {harness_path("SAFETY_TARGET"), "chdir", sub, NULL};
	char **env = shim_env(NULL, "EXTPROF_HOOKS=function:xs_work", NULL);
	struct run_opts o = {.cwd = top};
	struct run_result plain, hooked;

	cr_assert(mkdir(sub, 0700) == 0);
	run_both(argv, env, &o, &plain, &hooked);
	cr_expect(access(stray, F_OK) != 0, "dumps went to %s", stray);
	cr_expect(report_complete(dumps), "the dump in %s is not complete", dumps);
	cr_expect_eq(report_evals(dumps, "xs_work"), 20);
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	free(sub);
	free(dumps);
	free(stray);
	harness_rmdir(top);
}

/* ---- 9. the log's descriptor ------------------------------------------------- */

Test(safety, log_descriptor_stays_out_of_the_programs_way)
{
	char *dir = harness_tmpdir("daemon"), *data = str("%s/data", dir),
	     *log = str("%s/log", dir), *dumps = str("%s/d", dir), *content, *logged;
	const char *argv[] = {harness_path("SAFETY_TARGET"), "daemon", data,
			      harness_path("SAFETY_LIB"), NULL};
	char *logv = str("EXTPROF_LOG=%s", log);
	char **env =
		shim_env(dumps, "EXTPROF_HOOKS=function:xs_lib_work@libsafety_lib.so", logv, NULL);
	struct run_result plain, hooked;

	run_both(argv, env, NULL, &plain, &hooked);
	content = read_file(data);
	cr_expect_str_eq(content, "data 1\ndata 2\n", "the program's file got: %s", content);
	logged = read_file(log);
	cr_expect_eq(lines_with(logged, "hooked 1/1 in libsafety_lib.so"), 1, "the log: %s",
		     logged);
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	free(content);
	free(logged);
	free(logv);
	free(data);
	free(log);
	free(dumps);
	harness_rmdir(dir);
}

/* ---- 10. one problem, one line ------------------------------------------------ */

/* Run `safety calls 5` under the shim with @env; the shim's stderr (freed by the caller). */
static char *shim_says(char **env, unsigned timeout_s)
{
	const char *argv[] = {harness_path("SAFETY_TARGET"), "calls", "5", NULL};
	struct run_opts o = {.timeout_s = timeout_s};
	struct run_result plain, hooked;
	char *err;

	run_both(argv, env, &o, &plain, &hooked);
	err = hooked.err;
	hooked.err = NULL;
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	return err;
}

Test(safety, a_directory_problem_is_one_line)
{
	char *dir = harness_tmpdir("dirline"), *file = str("%s/not-a-dir", dir), *err;

	write_file(file, "x\n");
	err = shim_says(shim_env(file, "EXTPROF_HOOKS=function:xs_work", NULL), 0);
	cr_expect_eq(lines_with(err, file), 1, "%s", err);
	free(err);
	free(file);
	harness_rmdir(dir);
}

Test(safety, a_bad_offset_is_one_line)
{
	char *dir = harness_tmpdir("offset"), *err;

	err = shim_says(shim_env(dir, "EXTPROF_HOOKS=function:0xzz,function:xs_work", NULL), 0);
	cr_expect_eq(lines_with(err, "0xzz"), 1, "%s", err);
	free(err);
	err = shim_says(
		shim_env(dir, "EXTPROF_HOOKS=function:xs_work", "EXTPROF_WINDOW=0xqq", NULL), 0);
	cr_expect_eq(lines_with(err, "0xqq"), 1, "%s", err);
	free(err);
	harness_rmdir(dir);
}

/* DIR/spec as @write writes it, and what the shim says of it (with @extra set). */
static char *shim_says_of_spec(const char *tag, void (*write)(FILE *f), const char *extra)
{
	char *dir = harness_tmpdir(tag), *spec = str("%s/spec", dir), *specv, *err;
	FILE *f = fopen(spec, "w");

	cr_assert(f);
	write(f);
	fclose(f);
	specv = str("EXTPROF_SPEC=%s", spec);
	err = shim_says(shim_env(dir, specv, extra, NULL), 0);
	free(specv);
	free(spec);
	harness_rmdir(dir);
	return err;
}

static void spec_100000_entries(FILE *f)
{
	for (int i = 0; i < 100000; i++)
		fputs("function:xs_*\n", f);
}

static void spec_300_unmatched(FILE *f)
{
	for (int i = 0; i < 300; i++)
		fprintf(f, "function:xs_no_such_function_%d\n", i);
}

static void spec_over_16_mib(FILE *f)
{
	fputs("function:xs_work\n", f);
	for (int i = 0; i < 270000; i++)
		fputs("# a comment line to make the file larger than 16 MiB: 63 bytes\n", f);
	fputs("function:xs_other\n", f);
}

Test(safety, too_many_entries_is_one_line)
{
	char *err = shim_says_of_spec("entries", spec_100000_entries, NULL);

	cr_expect_eq(lines_with(err, "more than 65536 entries"), 1, "%.2000s", err);
	cr_expect_leq(shim_lines(err), 3, "%.2000s", err);
	free(err);
}

/* More lines than the start-up keeps while it decides whether to speak: none lost. */
Test(safety, many_problems_are_all_said)
{
	char *err =
		shim_says_of_spec("problems", spec_300_unmatched, "EXTPROF_HOOKS=function:xs_work");

	cr_expect_eq(lines_with(err, "no function matches"), 300, "%.300s", err);
	free(err);
}

Test(safety, an_oversize_spec_is_said)
{
	char *err = shim_says_of_spec("bigspec", spec_over_16_mib, NULL);

	cr_expect_eq(lines_with(err, "larger than"), 1, "%s", err);
	cr_expect_eq(lines_with(err, "hooked 1/1"), 1, "%s", err);
	free(err);
}

Test(safety, a_fifo_or_a_directory_is_refused_without_blocking)
{
	char *dir = harness_tmpdir("fifo"), *fifo = str("%s/fifo", dir), *specv, *logv, *dirv, *err;

	cr_assert(mkfifo(fifo, 0600) == 0);
	specv = str("EXTPROF_SPEC=%s", fifo);
	err = shim_says(shim_env(dir, specv, "EXTPROF_HOOKS=function:xs_work", NULL), 20);
	cr_expect_eq(lines_with(err, "a FIFO"), 1, "%s", err);
	free(err);
	logv = str("EXTPROF_LOG=%s", fifo);
	err = shim_says(shim_env(dir, logv, "EXTPROF_HOOKS=function:xs_work", NULL), 20);
	cr_expect_eq(lines_with(err, "is a FIFO"), 1, "%s", err);
	free(err);
	dirv = str("EXTPROF_SPEC=%s", dir);
	err = shim_says(shim_env(dir, dirv, "EXTPROF_HOOKS=function:xs_work", NULL), 20);
	cr_expect_eq(lines_with(err, "a directory"), 1, "%s", err);
	free(err);
	free(specv);
	free(logv);
	free(dirv);
	free(fifo);
	harness_rmdir(dir);
}

/* ---- 11. shared directories, umask, host names ------------------------------- */

Test(safety, a_directory_others_can_write_is_refused)
{
	char *dir = harness_tmpdir("shared"), *shared = str("%s/d", dir), *err;

	cr_assert(mkdir(shared, 0700) == 0 && chmod(shared, 0777) == 0);
	err = shim_says(shim_env(shared, "EXTPROF_HOOKS=function:xs_work", NULL), 0);
	cr_expect_eq(lines_with(err, "can be written by other users"), 1, "%s", err);
	cr_expect_eq(harness_count_files(shared, ".xpd"), 0);
	free(err);
	err = shim_says(
		shim_env(shared, "EXTPROF_HOOKS=function:xs_work", "EXTPROF_SHARED_DIR=1", NULL),
		0);
	cr_expect_eq(harness_count_files(shared, ".xpd"), 1, "EXTPROF_SHARED_DIR=1: %s", err);
	free(err);
	free(shared);
	harness_rmdir(dir);
}

Test(safety, another_users_directory_is_refused)
{
	char *dir, *theirs, *err;

	if (geteuid() != 0) {
		fprintf(stderr, "safety: another user's directory skipped: not root\n");
		cr_skip_test("not root");
	}
	dir = harness_tmpdir("theirs");
	theirs = str("%s/d", dir);
	cr_assert(mkdir(theirs, 0755) == 0 && chown(theirs, NOBODY, NOBODY) == 0);
	err = shim_says(shim_env(theirs, "EXTPROF_HOOKS=function:xs_work", NULL), 0);
	cr_expect_eq(lines_with(err, "another user's directory"), 1, "%s", err);
	cr_expect_eq(harness_count_files(theirs, ".xpd"), 0);
	free(err);
	free(theirs);
	harness_rmdir(dir);
}

Test(safety, directories_get_their_mode_whatever_the_umask)
{
	char *dir = harness_tmpdir("umask"), *dumps = str("%s/new/dumps", dir);
	const char *argv[] = {harness_path("SAFETY_TARGET"), "calls", "5", NULL};
	char **env = shim_env(dumps, "EXTPROF_HOOKS=function:xs_work", NULL);
	struct run_opts o = {.umask = 0277, .umask_set = true};
	struct run_result plain, hooked;
	struct stat st;

	run_both(argv, env, &o, &plain, &hooked);
	cr_assert(stat(dumps, &st) == 0, "%s: %s", dumps, strerror(errno));
	cr_expect_eq(st.st_mode & 07777, 0700, "mode %o", st.st_mode & 07777);
	cr_expect_eq(harness_count_files(dumps, ".xpd"), 1, "%s", hooked.err);
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	free(dumps);
	harness_rmdir(dir);
}

Test(safety, a_host_name_cannot_lead_out_of_the_directory)
{
	char *dir, *dumps, *trap;
	const char *argv[] = {harness_path("SAFETY_TARGET"), "calls", "5", NULL};
	struct run_opts o = {.hostname = "evil/../../.."};
	struct run_result plain, hooked;
	char **env;

	if (geteuid() != 0) {
		fprintf(stderr, "safety: the host name case skipped: not root\n");
		cr_skip_test("not root");
	}
	dir = harness_tmpdir("host");
	dumps = str("%s/d", dir);
	/* "safety.evil/../../..." would climb from EXTPROF_DIR into its parent */
	trap = str("%s/safety.evil", dumps);
	cr_assert(mkdir(dumps, 0700) == 0 && mkdir(trap, 0700) == 0);
	env = shim_env(dumps, "EXTPROF_HOOKS=function:xs_work", NULL);
	run_both(argv, env, &o, &plain, &hooked);
	cr_expect_eq(harness_count_files(dumps, ".xpd"), 1, "%s", hooked.err);
	cr_expect_eq(harness_count_files(dir, ".xpd"), 0, "a dump outside EXTPROF_DIR");
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	free(trap);
	free(dumps);
	harness_rmdir(dir);
}

/* ---- 12. the analyzer on files that are not (yet) dumps ------------------------ */

static void sparse_file(const char *path, const void *head, size_t n, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	cr_assert(fd >= 0);
	cr_assert(write(fd, head, n) == (ssize_t)n);
	cr_assert(ftruncate(fd, size) == 0);
	close(fd);
}

/* A real compact dump of `safety calls 5`, read into memory; its size in @size. */
static char *real_dump(const char *dir, size_t *size)
{
	const char *argv[] = {harness_path("SAFETY_TARGET"), "calls", "5", NULL};
	char **env = shim_env(dir, "EXTPROF_HOOKS=function:xs_work", NULL), *cmd, *path, *buf;
	struct run_result r;
	FILE *f;

	harness_run(argv, (const char *const *)env, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cmd = str("ls %s/*.xpd", dir);
	f = popen(cmd, "r");
	path = calloc(1, 4096);
	cr_assert(f && fgets(path, 4096, f));
	pclose(f);
	path[strcspn(path, "\n")] = '\0';
	f = fopen(path, "r");
	buf = malloc(1 << 20);
	cr_assert(f && buf);
	*size = fread(buf, 1, 1 << 20, f);
	fclose(f);
	harness_free(&r);
	env_free(env);
	free(cmd);
	free(path);
	return buf;
}

Test(safety, analyzer_reads_the_header_before_the_file)
{
	char *dir = harness_tmpdir("sparse"), *run = str("%s/run", dir),
	     *zero = str("%s/zero.xpd", dir), *other = str("%s/other.xpd", dir), *dump;
	const char *dump_zero[] = {harness_path("EXTPROF_BIN"), "dump", zero, NULL};
	const char *dump_other[] = {harness_path("EXTPROF_BIN"), "dump", other, NULL};
	/* a 2 GB file read whole would not fit in 512 MiB */
	struct run_opts o = {.as_mb = 512, .timeout_s = 60};
	struct run_result r;
	size_t size;

	dump = real_dump(run, &size);
	sparse_file(zero, "", 0, (off_t)2 << 30);
	harness_run_with(dump_zero, NULL, &o, &r);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "being created"), "%s", r.err);
	harness_free(&r);
	sparse_file(other, dump, size, (off_t)2 << 30);
	harness_run_with(dump_other, NULL, &o, &r);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "but the header says the dump ends at"), "%s", r.err);
	harness_free(&r);
	free(dump);
	free(run);
	free(zero);
	free(other);
	harness_rmdir(dir);
}

Test(safety, a_dump_being_created_is_not_bad_magic)
{
	char *dir = harness_tmpdir("creating"), *good = str("%s/a.xpd", dir),
	     *nomagic = str("%s/b.xpd", dir), *empty = str("%s/c.xpd", dir), *dump;
	const char *argv[] = {harness_path("EXTPROF_BIN"), "report", dir, NULL};
	struct run_result r;
	size_t size;
	char *run = str("%s/run", dir);

	dump = real_dump(run, &size);
	sparse_file(good, dump, size, (off_t)size);
	memset(dump, 0, 8); /* caught before the shim wrote its magic */
	sparse_file(nomagic, dump, size, (off_t)size);
	sparse_file(empty, "", 0, 0);
	harness_run(argv, NULL, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "b.xpd: no header yet: a dump being created"), "%s", r.err);
	cr_expect(strstr(r.err, "c.xpd: empty: a dump being created"), "%s", r.err);
	cr_expect(!strstr(r.err, "bad magic"), "%s", r.err);
	harness_free(&r);
	free(dump);
	free(run);
	free(good);
	free(nomagic);
	free(empty);
	harness_rmdir(dir);
}

/* ---- 13. a pending cancellation, small stacks, a seccomp filter ---------------- */

/* Every counter a test goes through: the clocks, and the two deterministic ones. */
static const char *const counters[] = {"EXTPROF_COUNTER=tsc", "EXTPROF_COUNTER=ns",
				       "EXTPROF_COUNTER=steps", "EXTPROF_COUNTER=var:xs_units"};
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

/*
 * `safety MODE ARG [ARG2]` plain and under the shim with @hooks, @counter
 * and the setting @extra (NULL: none): the same status and stdout
 * (asserted); the report of the run under the shim, and its stderr in @err
 * (freed by the caller).
 */
static json_t *run_mode_with(const char *tag, const char *mode, const char *arg, const char *arg2,
			     const char *hooks, const char *counter, const char *extra, char **err)
{
	char *dir = harness_tmpdir(tag);
	const char *argv[] = {harness_path("SAFETY_TARGET"), mode, arg, arg2, NULL};
	char **env = shim_env(dir, hooks, counter, extra, NULL);
	struct run_opts o = {.timeout_s = 120};
	struct run_result plain, hooked;
	json_t *r;

	run_both(argv, env, &o, &plain, &hooked);
	cr_expect_eq(hooked.signal, 0, "%s %s, %s: killed by signal %d; %s", mode, arg, counter,
		     hooked.signal, hooked.err);
	r = harness_report(dir, NULL);
	cr_assert(r, "%s %s, %s: no report; %s", mode, arg, counter, hooked.err);
	*err = hooked.err;
	hooked.err = NULL;
	harness_free(&plain);
	harness_free(&hooked);
	env_free(env);
	harness_rmdir(dir);
	return r;
}

/* run_mode_with() without an extra setting. */
static json_t *run_mode(const char *tag, const char *mode, const char *arg, const char *arg2,
			const char *hooks, const char *counter, char **err)
{
	return run_mode_with(tag, mode, arg, arg2, hooks, counter, NULL, err);
}

/* @name's evaluations in @r: exactly the program's own count of its calls in @err. */
static void expect_exact(json_t *r, const char *err, const char *name, const char *what)
{
	cr_expect_eq(harness_decl_int(r, name, "evaluations"), harness_truth(err, name),
		     "%s: %s's evaluations", what, name);
}

/*
 * A cancellation pending when a thread makes its first hooked call: the
 * shim's own work there (its dump, its shadow stack) makes no cancellation
 * point, so the call returns and the thread is cancelled where the program
 * says, at pthread_testcancel.  Before: the thread unwound from the shim's
 * open() through the thunk, SIGSEGV.
 */
Test(safety, a_pending_cancellation_waits_for_the_program)
{
	for (size_t c = 0; c < NCOUNTERS; c++) {
		char *err;
		json_t *r = run_mode("cancelfirst", "cancelfirst", "8", NULL,
				     "EXTPROF_HOOKS=function:xs_work", counters[c], &err);

		expect_exact(r, err, "xs_work", counters[c]);
		cr_expect_eq(harness_decl_int(r, "xs_work", "abandoned"), 0, "%s", counters[c]);
		cr_expect(json_is_true(json_object_get(r, "complete")), "%s", counters[c]);
		json_decref(r);
		free(err);
	}
}

/*
 * A cancellation point inside a hooked function (usleep in xs_nap): the
 * thread unwinds through the stub, whose unwind information the shim
 * registered, so the cleanup handlers of the frames above it run as they do
 * without the shim (the target is built with -fexceptions); each cancelled
 * activation counts as abandoned.  Before: the unwinder stopped at the stub
 * and no handler ran.
 */
Test(safety, a_cancellation_inside_a_hooked_function_unwinds_through_it)
{
	for (size_t c = 0; c < NCOUNTERS; c++) {
		char *err;
		json_t *r = run_mode("cancelsleep", "cancelsleep", "4", NULL,
				     "EXTPROF_HOOKS=function:xs_nap,function:xs_work", counters[c],
				     &err);
		long long evals = harness_decl_int(r, "xs_nap", "evaluations");

		cr_expect_eq(harness_decl_int(r, "xs_nap", "abandoned"), 4, "%s", counters[c]);
		cr_expect_eq(evals + 4, harness_truth(err, "xs_nap"), "%s", counters[c]);
		expect_exact(r, err, "xs_work", counters[c]);
		json_decref(r);
		free(err);
	}
}

/*
 * Asynchronous cancellation lands anywhere: in the function, in its stub,
 * in the shim.  The thread unwinds out of any of them; an activation the
 * cancellation ended is abandoned, never half counted: the evaluations are
 * the calls that returned, and each cancelled thread leaves at most one
 * activation, which may have been pushed before the function's own first
 * instruction counted it.  The worker the cancelled threads used is then
 * used again by a thread whose 1000 calls are all evaluations, none taken
 * for recursive.  Before: SIGSEGV (ns, steps); then, under load, now and
 * then a thread whose join read NULL, not PTHREAD_CANCELED (status 7): a
 * cancellation that arrived while its first call took a worker acted as
 * the hold's pthread_setcancelstate ended, which leaves the result unset.
 */
Test(safety, asynchronous_cancellation_anywhere_in_a_hooked_call)
{
	for (size_t c = 0; c < NCOUNTERS; c++) {
		char *err;
		json_t *r = run_mode("cancelasync", "cancelasync", "12", NULL,
				     "EXTPROF_HOOKS=function:xs_work", counters[c], &err);
		long long evals = harness_decl_int(r, "xs_work", "evaluations");
		long long abandoned = harness_decl_int(r, "xs_work", "abandoned");
		long long truth = harness_truth(err, "xs_work");

		cr_expect(evals <= truth && truth <= evals + abandoned && abandoned <= 12,
			  "%s: %lld evaluations, %lld abandoned, %lld calls", counters[c], evals,
			  abandoned, truth);
		cr_expect(evals + abandoned <= truth + 12, "%s", counters[c]);
		cr_expect_eq(harness_decl_int(r, "xs_work", "recursive"), 0, "%s", counters[c]);
		cr_expect(json_is_true(json_object_get(r, "complete")), "%s", counters[c]);
		json_decref(r);
		free(err);
	}
}

/* `safety MODE SIZE` without the shim: whether it ends well. */
static bool works_plain(const char *mode, long size)
{
	char arg[32];
	const char *argv[] = {harness_path("SAFETY_TARGET"), mode, arg, NULL};
	struct run_opts o = {.timeout_s = 30};
	struct run_result r;
	bool ok;

	snprintf(arg, sizeof(arg), "%ld", size);
	harness_run_with(argv, plain_env, &o, &r);
	ok = r.status == 0;
	harness_free(&r);
	return ok;
}

/* The first SIZE from @lo to @hi, by @step, at which `safety MODE SIZE` works (@up) or fails. */
static long edge_plain(const char *mode, long lo, long hi, long step, bool up)
{
	while (hi - lo > step) {
		long mid = lo + (hi - lo) / 2;

		if (works_plain(mode, mid) == up)
			hi = mid;
		else
			lo = mid;
	}
	return up ? hi : lo;
}

/*
 * What the shim may take of the program's stack on top of what the program
 * takes itself, on a thread's first hooked call (its set-up runs on a
 * stack of the shim's own, docs/limits.md): measured 0.4 KiB.
 */
#define SHIM_STACK_BUDGET 512

/* `safety MODE SIZE` under every counter: as without the shim, and @name's counts exact. */
static void small_stack_runs(const char *mode, long size, const char *hooks, const char *name)
{
	char arg[32];

	snprintf(arg, sizeof(arg), "%ld", size);
	for (size_t c = 0; c < NCOUNTERS; c++) {
		char *err, what[96];
		json_t *r = run_mode(mode, mode, arg, NULL, hooks, counters[c], &err);

		snprintf(what, sizeof(what), "%s %s, %s", mode, arg, counters[c]);
		expect_exact(r, err, name, what);
		expect_exact(r, err, "xs_work", what);
		json_decref(r);
		free(err);
	}
	/* steps' trap engine too: its SIGTRAP handler on the shim's sigaltstack */
	{
		char *err, what[96];
		json_t *r = run_mode_with(mode, mode, arg, NULL, hooks, "EXTPROF_COUNTER=steps",
					  "EXTPROF_STEP_ENGINE=trap", &err);

		snprintf(what, sizeof(what), "%s %s, the trap engine", mode, arg);
		expect_exact(r, err, name, what);
		expect_exact(r, err, "xs_work", what);
		json_decref(r);
		free(err);
	}
}

/*
 * A thread's first hooked call in a signal handler on a 4 KiB sigaltstack,
 * which holds the program's handler with room to spare (before: overflowed
 * by 0x420 bytes); then on the smallest sigaltstack the program works on
 * without the shim, less the shim's budget.
 */
Test(safety, a_first_call_on_a_small_sigaltstack)
{
	long least = edge_plain("altstack", 1024, 65536, 64, true);

	/* a CPU whose extended state makes the kernel's signal frame larger (AMX) needs more */
	if (works_plain("altstack", 4096))
		small_stack_runs("altstack", 4096,
				 "EXTPROF_HOOKS=function:xs_in_handler,function:xs_work",
				 "xs_in_handler");
	else
		fprintf(stderr, "safety: a 4 KiB sigaltstack is too small here (%ld bytes)\n",
			least);
	small_stack_runs("altstack", least + SHIM_STACK_BUDGET,
			 "EXTPROF_HOOKS=function:xs_in_handler,function:xs_work", "xs_in_handler");
}

/*
 * A 5,000-byte frame on a thread stack of PTHREAD_STACK_MIN (16 KiB), and
 * the largest frame that works there without the shim, less its budget:
 * steps single-steps the first calls, and the SIGTRAP handler runs on a
 * sigaltstack of the shim's (before: overflowed at 5,000 bytes).
 */
Test(safety, a_large_frame_on_the_smallest_thread_stack)
{
	long most = edge_plain("smallstack", 1024, 16384, 64, false);

	cr_assert(works_plain("smallstack", 5000), "5,000 bytes: the program fails by itself");
	small_stack_runs("smallstack", 5000, "EXTPROF_HOOKS=function:xs_deep,function:xs_work",
			 "xs_deep");
	small_stack_runs("smallstack", most - SHIM_STACK_BUDGET,
			 "EXTPROF_HOOKS=function:xs_deep,function:xs_work", "xs_deep");
}

/*
 * A program that loads a seccomp filter (kill on any other system call)
 * and goes on: more calls, a function first called under the filter, new
 * threads, a fork child.  The shim makes no system call after the filter:
 * every call of the process counted exactly, the dumps finished in place
 * (complete), the child's calls said lost, the histogram of the function
 * first called under the filter said lost.  Before: SIGSYS at the shim's
 * openat of a dump, or at exit on prlimit64.  steps' code cache goes on
 * under the filter in the memory the calling thread had made before it
 * (its calls after it counted whole); the threads made after it have no
 * cache, and run natively, their calls not whole.  Before: SIGSYS at the
 * code cache's mmap, or at its gettid.
 */
Test(safety, a_program_that_sandboxes_itself)
{
	for (size_t c = 0; c < NCOUNTERS; c++) {
		bool steps = !strcmp(counters[c], "EXTPROF_COUNTER=steps");
		char *err;
		json_t *r = run_mode("sandbox", "sandbox", "3", "fork",
				     "EXTPROF_HOOKS=function:xs_work,function:xs_other",
				     counters[c], &err);

		expect_exact(r, err, "xs_work", counters[c]);
		expect_exact(r, err, "xs_other", counters[c]);
		cr_expect(json_is_true(json_object_get(r, "complete")), "%s", counters[c]);
		cr_expect_eq(harness_int(r, "lost"), 5, "%s: the child's calls", counters[c]);
		cr_expect_eq(harness_decl_int(r, "xs_other", "histogram_lost"), 1, "%s",
			     counters[c]);
		/* the main thread's 20 (10 of them under the filter), not the threads' 3,000 */
		if (steps)
			cr_expect_eq(harness_decl_int(r, "xs_work", "not_whole"), 3000);
		json_decref(r);
		free(err);
	}
}

/*
 * The trap engine under the same filter: no call is stepped after it (its
 * handler makes system calls), and none has a histogram.
 */
Test(safety, the_trap_engine_under_a_sandbox)
{
	char *err;
	json_t *r = run_mode_with("sandboxtrap", "sandbox", "3", "fork",
				  "EXTPROF_HOOKS=function:xs_work,function:xs_other",
				  "EXTPROF_COUNTER=steps", "EXTPROF_STEP_ENGINE=trap", &err);

	expect_exact(r, err, "xs_work", "trap");
	expect_exact(r, err, "xs_other", "trap");
	cr_expect(json_is_true(json_object_get(r, "complete")));
	cr_expect_eq(harness_int(r, "lost"), 5, "the child's calls");
	cr_expect_eq(harness_decl_int(r, "xs_other", "stepped"), 0);
	json_decref(r);
	free(err);
}

/*
 * Under the filter, more threads alive at once than the 8 the shim prepared
 * for: those past them count their calls in lost, and nothing the shim
 * does for them (the line it would say about their missing shadow stack:
 * silenced) makes a system call.  Before: SIGSYS at prlimit64, asked for
 * the address-space limit that line would name.
 */
Test(safety, more_threads_than_prepared_under_a_sandbox)
{
	for (size_t c = 0; c < NCOUNTERS; c++) {
		char *err;
		json_t *r = run_mode("sandboxmany", "sandbox", "12", "together",
				     "EXTPROF_HOOKS=function:xs_work,function:xs_other",
				     counters[c], &err);

		cr_expect(json_is_true(json_object_get(r, "complete")), "%s", counters[c]);
		cr_expect_gt(harness_int(r, "lost"), 0, "%s: the threads past 8", counters[c]);
		cr_expect_eq(harness_decl_int(r, "xs_work", "evaluations") + harness_int(r, "lost"),
			     harness_truth(err, "xs_work"), "%s: every call counted or lost",
			     counters[c]);
		json_decref(r);
		free(err);
	}
}

/*
 * A Debian program that sandboxes itself: universal-ctags in its
 * interactive sandbox mode (a seccomp filter, kill on violation), with
 * libc's malloc hooked.  Its output and status as without the shim, the
 * dumps complete, nothing lost, and malloc's count the same whatever the
 * counter (the program is deterministic).  Before: SIGSYS.
 */
Test(safety, ctags_sandboxes_itself)
{
	static const char *const ctags_counters[] = {"EXTPROF_COUNTER=tsc", "EXTPROF_COUNTER=ns",
						     "EXTPROF_COUNTER=steps"};
	char *dir = harness_tmpdir("ctags"), *src = str("%s/x.c", dir), *in = str("%s/in", dir);
	const char *argv[] = {"ctags", "--_interactive=sandbox", NULL};
	static const char code[] = "int foo(void) { return 1; }\nint bar;\n";
	struct run_opts o = {.timeout_s = 60, .stdin_path = in};
	long long first = -1;
	char *cmd;

	if (system("command -v ctags >/dev/null 2>&1")) {
		fprintf(stderr, "safety: ctags skipped: universal-ctags is not installed\n");
		harness_rmdir(dir);
		cr_skip_test("no ctags");
	}
	write_file(src, code);
	cmd = str("{\"command\":\"generate-tags\", \"filename\":\"%s\", \"size\": %zu}\n%s", src,
		  sizeof(code) - 1, code);
	write_file(in, cmd);
	for (size_t c = 0; c < sizeof(ctags_counters) / sizeof(ctags_counters[0]); c++) {
		char *dumps = str("%s/d%zu", dir, c);
		char **env = shim_env(dumps, "EXTPROF_HOOKS=function:malloc@libc.so.6",
				      ctags_counters[c], NULL);
		struct run_result plain, hooked;
		json_t *r;

		run_both(argv, env, &o, &plain, &hooked);
		cr_expect_eq(hooked.signal, 0, "%s: killed by signal %d", ctags_counters[c],
			     hooked.signal);
		cr_expect(strstr(hooked.out, "\"name\": \"foo\""), "%s", hooked.out);
		r = harness_report(dumps, NULL);
		cr_assert(r, "%s: no report; %s", ctags_counters[c], hooked.err);
		cr_expect(json_is_true(json_object_get(r, "complete")), "%s", ctags_counters[c]);
		cr_expect_eq(harness_int(r, "lost"), 0, "%s", ctags_counters[c]);
		if (first < 0)
			first = harness_decl_int(r, "malloc", "evaluations");
		cr_expect_gt(first, 0);
		cr_expect_eq(harness_decl_int(r, "malloc", "evaluations"), first, "%s",
			     ctags_counters[c]);
		json_decref(r);
		harness_free(&plain);
		harness_free(&hooked);
		env_free(env);
		free(dumps);
	}
	free(cmd);
	free(src);
	free(in);
	harness_rmdir(dir);
}
