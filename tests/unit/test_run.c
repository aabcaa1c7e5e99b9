// SPDX-License-Identifier: MIT
/*
 * extprof run, with a stand-in shim (fake_shim.c, through EXTPROF_SHIM):
 * the environment the program gets, the dump directory rules, only this
 * run's dumps reported, the program's exit status and death by signal, and
 * signals passed on.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "xt_json.h"

static char *out_dir, *shim_env;

static void setup(void)
{
	xt_dir_init();
	out_dir = xt_path(xt_dir, "data");
	shim_env = xt_fake_shim_env();
}

static void teardown(void)
{
	xt_dir_fini();
	free(out_dir);
	free(shim_env);
}

TestSuite(run, .init = setup, .fini = teardown, .timeout = 30);

static int run_sh(const char *script, const char *const *extra, char **out, char **err)
{
	const char *env[] = {shim_env, "LD_PRELOAD=", NULL};

	return xt_run_sh(out_dir, script, extra, env, out, err);
}

Test(run, reports_and_exits_with_the_program_status)
{
	char *out, *err;
	int status = run_sh("echo hello; exit 3", (const char *[]){"-H", "function:work", NULL},
			    &out, &err);

	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %d: %s", status, err);
	/* the program's stdout is its own; the report goes to stderr, as perf stat's */
	cr_expect_str_eq(out, "hello\n");
	cr_expect_not_null(strstr(err, "extprof report: 1 process"), "%s", err);
	/* the fake shim: 10 evaluations at 40, calibration 5 */
	cr_expect_not_null(strstr(err, "function  work@prog             10        35   350"), "%s",
			   err);
	free(out);
	free(err);
}

/* A program that leaves through exit(): the stand-in shim completes its dump. */
Test(run, clean_exit_is_complete)
{
	const char *argv[] = {"x",	  "run",  "-d", NULL,	     "-H", "function:f",
			      "--format", "json", "--", "/bin/true", NULL};
	const char *env[] = {shim_env, NULL};
	char *out, *err;
	int status;

	argv[3] = out_dir;
	status = xt_run(argv, env, &out, &err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status, err);
	cr_expect_str_eq(out, "");
	cr_expect_not_null(strstr(err, "\"complete\": true,"), "%s", err);
	cr_expect_not_null(
		strstr(err, "\"evaluations\": 10,\n      \"per_eval\": 35,\n      \"cost\": 350,"),
		"%s", err);
	free(out);
	free(err);
}

Test(run, passes_the_options_as_environment)
{
	char *out, *err, *spec = xt_path(xt_dir, "hooks.spec"), *want;
	const char *extra[] = {"-H",	    "function:a", "--hook",   "guard:b@lib.so",
			       "--counter", "var:steps",  "--window", "search@checker",
			       "--callers", "3",	  "--spec",   spec,
			       "--format",  "json",	  NULL};
	int status;

	xt_spit(spec, "function:c\n", 11);
	status = run_sh("echo \"H=$EXTPROF_HOOKS C=$EXTPROF_COUNTER W=$EXTPROF_WINDOW "
			"N=$EXTPROF_CALLERS S=$EXTPROF_SPEC D=$EXTPROF_DIR P=$LD_PRELOAD\"",
			extra, &out, &err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
	cr_assert(asprintf(&want,
			   "H=function:a,guard:b@lib.so C=var:steps W=search@checker N=3 S=%s D=%s "
			   "P=%s\n",
			   spec, out_dir, getenv("EXTPROF_FAKE_SHIM")) > 0);
	cr_expect_str_eq(out, want);
	cr_expect_not_null(strstr(err, "\"name\": \"var:steps\""), "%s", err);
	cr_expect_not_null(strstr(err, "\"window\": \"search@checker\""), "%s", err);
	cr_expect_not_null(strstr(err, "\"object\": \"lib.so\""), "%s", err);
	free(want);
	free(spec);
	free(out);
	free(err);
}

Test(run, keeps_the_users_preload_after_the_shim)
{
	const char *argv[] = {"x",	    "run", "-d",      NULL, "-H",
			      "function:f", "--",  "/bin/sh", "-c", "echo \"P=$LD_PRELOAD\"",
			      NULL};
	const char *env[] = {shim_env, "LD_PRELOAD=libc.so.6", NULL};
	char *out, *err, *want;

	/* a user's preload would go before the ASan runtime of a sanitized extprof */
	if (!xt_real_shim())
		cr_skip_test("sanitized build: extprof cannot run with LD_PRELOAD set");
	argv[3] = out_dir;
	cr_assert(WIFEXITED(xt_run(argv, env, &out, &err)));
	cr_assert(asprintf(&want, "P=%s:libc.so.6\n", getenv("EXTPROF_FAKE_SHIM")) > 0);
	cr_expect_eq(strncmp(out, want, strlen(want)), 0, "%s", out);
	free(want);
	free(out);
	free(err);
}

Test(run, reports_only_the_dumps_of_this_run)
{
	char *old, *out, *err;
	size_t before_size, after_size;
	void *before, *after;

	cr_assert_eq(mkdir(out_dir, 0700), 0);
	old = xt_path(out_dir, "old.xpd");
	xt_sample_dump(old, 9, 1); /* "alpha" */
	before = xt_slurp(old, &before_size);
	cr_assert(WIFEXITED(
		run_sh("true", (const char *[]){"-H", "function:fresh", NULL}, &out, &err)));
	cr_expect_not_null(strstr(err, "fresh@prog"), "%s", err);
	cr_expect_null(strstr(err, "alpha"), "an older run's dump was reported: %s", err);
	after = xt_slurp(old, &after_size);
	cr_expect(before_size == after_size && !memcmp(before, after, before_size),
		  "an older dump was changed");
	free(before);
	free(after);
	free(old);
	free(out);
	free(err);
}

Test(run, creates_the_directory_private)
{
	struct stat st;
	char *out, *err;

	cr_assert(
		WIFEXITED(run_sh("true", (const char *[]){"-H", "function:f", NULL}, &out, &err)));
	cr_assert_eq(stat(out_dir, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700);
	free(out);
	free(err);
}

Test(run, refuses_a_directory_with_other_files)
{
	char *mine, *out, *err;
	int status;

	cr_assert_eq(mkdir(out_dir, 0700), 0);
	mine = xt_path(out_dir, "notes.txt");
	xt_spit(mine, "keep me", 7);
	status = run_sh("echo ran", (const char *[]){"-H", "function:f", NULL}, &out, &err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
	cr_expect_not_null(strstr(err, "holds 'notes.txt', which is not an extprof dump"), "%s",
			   err);
	cr_expect_null(strstr(out, "ran"), "the program ran anyway");
	cr_expect_eq(access(mine, F_OK), 0);
	free(mine);
	free(out);
	free(err);
}

Test(run, dies_by_the_programs_signal_after_the_report)
{
	char *out, *err;
	int status =
		run_sh("kill -TERM $$", (const char *[]){"-H", "function:f", NULL}, &out, &err);

	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %d: %s", status, err);
	cr_expect_not_null(strstr(err, "extprof report"), "%s", err);
	/* the stand-in shim's exit handler did not run: the dump stayed live */
	cr_expect_not_null(strstr(err, "incomplete"), "%s", err);
	free(out);
	free(err);
}

Test(run, program_not_found)
{
	const char *argv[] = {"x", "run", "-d", NULL, "--", "/nonexistent/prog", NULL};
	const char *env[] = {shim_env, NULL};
	char *out, *err;
	int status;

	argv[3] = out_dir;
	status = xt_run(argv, env, &out, &err);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
	cr_expect_str_eq(err, "extprof: /nonexistent/prog: No such file or directory\n");
	free(out);
	free(err);
}

Test(run, bad_options)
{
	static const char *const bad[][3] = {
		{"-H", "Function:f", "KIND:PATTERN"},
		{"-H", "function:", "empty PATTERN"},
		{"-H", "function:f@", "empty OBJECT"},
		{"-H", "function:a,b", "comma or blank"},
		{"--counter", "bogus", "--counter bogus: expected"},
		{"--callers", "9", "--callers 9: expected a depth from 0 to 8"},
		{"--spec", "/nonexistent.spec", "--spec /nonexistent.spec: No such file"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out, *err;
		int status = run_sh("echo ran", (const char *[]){bad[i][0], bad[i][1], NULL}, &out,
				    &err);

		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "case %zu: status %d", i,
			  status);
		cr_expect_not_null(strstr(err, bad[i][2]), "case %zu: %s", i, err);
		cr_expect_null(strstr(out, "ran"), "case %zu ran the program", i);
		free(out);
		free(err);
	}
}

Test(run, no_aslr_reaches_the_program)
{
	char *out, *err;
	int status = run_sh("cat /proc/self/personality",
			    (const char *[]){"--no-aslr", "-H", "function:f", NULL}, &out, &err);

	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
	cr_expect_eq(strtoul(out, NULL, 16) & 0x0040000, 0x0040000, "%s", out);
	free(out);
	free(err);
}

static bool file_has(const char *path, const char *needle)
{
	size_t n;
	char *s = xt_slurp(path, &n);
	bool has;

	s[n] = '\0';
	has = strstr(s, needle) != NULL;
	free(s);
	return has;
}

/* kill(extprof, SIGTERM) is passed on: the program's trap decides the status. */
Test(run, forwards_a_signal_sent_to_extprof)
{
	char *log = xt_path(xt_dir, "out.log");
	struct timespec pause = {0, 20 * 1000 * 1000};
	int status, tries = 0;
	pid_t pid;

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fd, 1);
		dup2(fd, 2);
		putenv(shim_env);
		execl(getenv("EXTPROF_BIN"), "extprof", "run", "-d", out_dir, "-H", "function:f",
		      "--", "/bin/sh", "-c", "trap 'exit 7' TERM; echo up; while :; do :; done",
		      (char *)NULL);
		_exit(127);
	}
	while (tries++ < 250 && !(access(log, F_OK) == 0 && file_has(log, "up\n")))
		nanosleep(&pause, NULL);
	cr_assert(kill(pid, SIGTERM) == 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 7, "status %d", status);
	cr_expect(file_has(log, "extprof report"), "no report after the signal");
	free(log);
}

/*
 * The program's stdout under `extprof run` is byte for byte its stdout
 * alone, in text and JSON alike; --output FILE takes the report instead
 * of stderr, and a FILE that cannot be made costs no run.
 */
Test(run, the_programs_stdout_is_its_own)
{
	const char *script = "printf 'line 1\\n\\0binary\\377\\n'; echo to stderr >&2";
	const char *formats[] = {"text", "json", "csv"};
	static const char plain[] = "line 1\n\0binary\377\n";
	char *out, *err, *report = xt_path(xt_dir, "report.json"), *got;
	size_t n;

	for (size_t i = 0; i < 3; i++) {
		int status = run_sh(
			script,
			(const char *[]){"-H", "function:work", "--format", formats[i], NULL}, &out,
			&err);

		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", err);
		cr_expect_eq(memcmp(out, plain, sizeof(plain)), 0,
			     "--format %s: the output changed", formats[i]);
		cr_expect_not_null(strstr(err, "to stderr\n"), "%s", err);
		free(out);
		free(err);
	}
	cr_assert(WIFEXITED(run_sh(script,
				   (const char *[]){"-H", "function:work", "--format", "json",
						    "--output", report, NULL},
				   &out, &err)));
	cr_expect_eq(memcmp(out, plain, sizeof(plain)), 0, "--output: the output changed");
	got = xt_slurp(report, &n);
	got[n] = '\0';
	cr_expect(got[0] == '{' && strstr(got, "\"evaluations\": 10"), "%s", got);
	cr_expect_null(strstr(err, "\"evaluations\""), "the report went to stderr too: %s", err);
	free(got);
	free(out);
	free(err);
	{
		int status = run_sh("echo ran",
				    (const char *[]){"-H", "function:work", "--output",
						     "/nonexistent/dir/report", NULL},
				    &out, &err);

		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d", status);
		cr_expect_str_eq(out, "", "the program ran anyway");
		cr_expect_not_null(strstr(err, "--output /nonexistent/dir/report: No such file"),
				   "%s", err);
		free(out);
		free(err);
	}
	free(report);
}
