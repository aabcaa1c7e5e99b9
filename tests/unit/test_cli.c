// SPDX-License-Identifier: MIT
/*
 * The command line, through the extprof command (with the stand-in shim,
 * fake_shim.c, where a program runs): -o is the report file in every
 * command and -d the dump directory, the old "-o DIR" kept with a warning.
 */
#include <criterion/criterion.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

static char *shim_env;

static void setup(void)
{
	xt_dir_init();
	shim_env = xt_fake_shim_env();
}

static void teardown(void)
{
	xt_dir_fini();
	free(shim_env);
}

TestSuite(cli, .init = setup, .fini = teardown, .timeout = 60);

/* The outcome of one extprof command: its wait status, stdout and stderr. */
struct cli_run {
	int status;
	char *out, *err;
};

/* extprof @argv (argv[0] ignored) in xt_dir, with the stand-in shim. */
static void cli(struct cli_run *r, const char *const *argv)
{
	const char *env[] = {shim_env, "LD_PRELOAD=", NULL};
	char cwd[4096];

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(xt_dir), 0);
	r->status = xt_run(argv, env, &r->out, &r->err);
	cr_assert_eq(chdir(cwd), 0);
}

static void cli_free(struct cli_run *r)
{
	free(r->out);
	free(r->err);
}

/* Exited with @code. */
static bool exited(const struct cli_run *r, int code)
{
	return WIFEXITED(r->status) && WEXITSTATUS(r->status) == code;
}

/* Lines of @s. */
static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static bool is_dir(const char *rel)
{
	char *p = xt_path(xt_dir, rel);
	struct stat st;
	bool d = !stat(p, &st) && S_ISDIR(st.st_mode);

	free(p);
	return d;
}

/* The text of file @rel of xt_dir ("" when it is missing), malloc'd. */
static char *slurp_rel(const char *rel)
{
	char *p = xt_path(xt_dir, rel), *s;
	size_t n;

	if (access(p, F_OK)) {
		free(p);
		return strdup("");
	}
	s = xt_slurp(p, &n);
	free(p);
	return s;
}

/* run -o FILE: the report into FILE, the dumps into the default directory (or -d's). */
Test(cli, run_o_is_the_report_file)
{
	struct cli_run r;
	char *rep;

	cli(&r, (const char *[]){"x", "run", "-H", "function:f", "-o", "report.txt", "--",
				 "/bin/sh", "-c", "echo ran", NULL});
	cr_assert(exited(&r, 0), "status %d: %s", r.status, r.err);
	cr_expect_str_eq(r.out, "ran\n");
	cr_expect_null(strstr(r.err, "extprof report:"), "the report went to stderr: %s", r.err);
	rep = slurp_rel("report.txt");
	cr_expect_not_null(strstr(rep, "extprof report: 1 process"), "%s", rep);
	cr_expect(is_dir("extprof.data"), "the dumps are not in extprof.data");
	free(rep);
	cli_free(&r);

	cli(&r, (const char *[]){"x", "run", "-H", "function:f", "-d", "dumps", "--output",
				 "r2.json", "--format", "json", "--", "/bin/true", NULL});
	cr_assert(exited(&r, 0), "status %d: %s", r.status, r.err);
	rep = slurp_rel("r2.json");
	cr_expect_not_null(strstr(rep, "\"evaluations\": 10,"), "%s", rep);
	cr_expect(is_dir("dumps"), "-d dumps: no such directory");
	free(rep);
	cli_free(&r);
}

/* The old "run -o DIR": an existing directory is the dump directory, with one warning line. */
Test(cli, run_o_existing_directory_is_the_old_spelling)
{
	char *dir = xt_path(xt_dir, "old");
	struct cli_run r;

	cr_assert_eq(mkdir(dir, 0700), 0);
	cli(&r,
	    (const char *[]){"x", "run", "-H", "function:f", "-o", "old", "--", "/bin/true", NULL});
	cr_assert(exited(&r, 0), "status %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.err, "extprof: warning: run -o old: a directory, taken as the "
					 "dump directory as before; -o is the report file now, -d "
					 "DIR the dump directory\n"),
			   "%s", r.err);
	cr_expect_not_null(strstr(r.err, "extprof report: 1 process"), "%s", r.err);
	cr_expect(!is_dir("extprof.data"), "the dumps went to extprof.data");
	cli_free(&r);
	free(dir);
}

/* -o naming the dump directory, or a directory beside -d: refused before the program runs. */
Test(cli, run_o_that_is_the_dump_directory_is_refused)
{
	static const char *const cases[][5] = {
		{"-o", "extprof.data", NULL, NULL, "run -o extprof.data: the dump directory's own"},
		{"-o", "./d", "-d", "d", "run -o ./d: the dump directory (-d d)"},
		{"--output", "sub/", "-d", "d", "run --output sub/: a directory"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[16] = {"x", "run", "-H", "function:f", cases[i][0], cases[i][1]};
		size_t n = 6;
		struct cli_run r;

		if (cases[i][2]) {
			argv[n++] = cases[i][2];
			argv[n++] = cases[i][3];
		}
		argv[n++] = "--";
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = "echo ran";
		cli(&r, argv);
		cr_expect(exited(&r, 2), "case %zu: status %d", i, r.status);
		cr_expect_not_null(strstr(r.err, cases[i][4]), "case %zu: %s", i, r.err);
		cr_expect_eq(lines(r.err), 1, "case %zu: %s", i, r.err);
		cr_expect_str_eq(r.out, "", "case %zu ran the program", i);
		cli_free(&r);
	}
}

/* report, diff and doubling: -o FILE is where the result goes, nothing on stdout. */
Test(cli, o_is_the_report_file_in_every_command)
{
	char *a = xt_path(xt_dir, "a"), *b = xt_path(xt_dir, "b"), *pa, *pb, *s;
	struct cli_run r;

	cr_assert_eq(mkdir(a, 0700), 0);
	cr_assert_eq(mkdir(b, 0700), 0);
	pa = xt_path(a, "one.xpd");
	pb = xt_path(b, "one.xpd");
	xt_sample_dump(pa, 11, 2);
	xt_sample_dump(pb, 12, 2);

	cli(&r, (const char *[]){"x", "report", "-o", "rep.txt", "a", NULL});
	cr_expect(exited(&r, 0), "report: %s", r.err);
	cr_expect_str_eq(r.out, "");
	s = slurp_rel("rep.txt");
	cr_expect_not_null(strstr(s, "extprof report: 1 process"), "%s", s);
	free(s);
	cli_free(&r);

	cli(&r, (const char *[]){"x", "diff", "-o", "diff.csv", "--format", "csv", "a", "b", NULL});
	cr_expect(exited(&r, 0), "diff: %s", r.err);
	cr_expect_str_eq(r.out, "");
	s = slurp_rel("diff.csv");
	cr_expect_eq(strncmp(s, "kind,", 5), 0, "%s", s);
	free(s);
	cli_free(&r);

	cli(&r, (const char *[]){"x", "doubling", "--sizes", "1,2", "-H", "function:f", "-d",
				 "runs", "-o", "dbl.json", "--format", "json", "--", "/bin/sh",
				 "-c", ": {N}", NULL});
	cr_expect(exited(&r, 0), "doubling: %s", r.err);
	cr_expect_str_eq(r.out, "");
	s = slurp_rel("dbl.json");
	cr_expect_not_null(strstr(s, "\"sizes\""), "%s", s);
	cr_expect(is_dir("runs/n1-r1"), "-d runs: the runs are not there");
	free(s);
	cli_free(&r);
	free(pa);
	free(pb);
	free(a);
	free(b);
}

/* doubling's old "-o DIR" (an empty directory): its runs go there, with a warning. */
Test(cli, doubling_o_existing_directory_is_the_old_spelling)
{
	char *dir = xt_path(xt_dir, "runs");
	struct cli_run r;

	cr_assert_eq(mkdir(dir, 0700), 0);
	cli(&r, (const char *[]){"x", "doubling", "--sizes", "1,2", "-H", "function:f", "-o",
				 "runs", "--", "/bin/sh", "-c", ": {N}", NULL});
	cr_assert(exited(&r, 0), "status %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.err, "extprof: warning: doubling -o runs: a directory, taken "
					 "as the dump directory as before"),
			   "%s", r.err);
	cr_expect(is_dir("runs/n2-r1"), "the runs are not in runs/");
	cli_free(&r);
	free(dir);
}

/*
 * A binary --format where the report would go to stderr (run, attach,
 * detach): refused before the program runs, or the process is touched,
 * unless -o FILE is given.
 */
Test(cli, binary_format_needs_o_before_anything_runs)
{
	const char *const run[] = {"x",	 "run",	    "--format", "pprof",    "-H", "function:f",
				   "--", "/bin/sh", "-c",	"echo ran", NULL};
	const char *const attach[] = {"x",  "attach",	  "--format", "pprof",
				      "-H", "function:f", "1",	      NULL};
	const char *const detach[] = {"x", "detach", "--format", "pprof", "1", NULL};
	const char *const *const cases[] = {run, attach, detach};
	struct cli_run r;
	unsigned char *b;
	char *pb;
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[160];

		cli(&r, cases[i]);
		snprintf(want, sizeof(want),
			 "extprof: %s: --format pprof writes a binary file: give -o FILE (without "
			 "it the report goes to stderr)\n",
			 cases[i][1]);
		cr_expect(exited(&r, 2), "%s: status %d", cases[i][1], r.status);
		cr_expect_str_eq(r.err, want);
		cr_expect_str_eq(r.out, "", "%s: the program ran", cases[i][1]);
		cli_free(&r);
	}
	cr_expect(!is_dir("extprof.data"), "the dump directory was made");

	/* with -o FILE: the program runs, the profile is in FILE, gzipped */
	cli(&r, (const char *[]){"x", "run", "--format", "pprof", "-o", "p.pb.gz", "-H",
				 "function:f", "--", "/bin/sh", "-c", "echo ran", NULL});
	cr_expect(exited(&r, 0), "status %d: %s", r.status, r.err);
	cr_expect_str_eq(r.out, "ran\n");
	pb = xt_path(xt_dir, "p.pb.gz");
	b = xt_slurp(pb, &n);
	cr_expect(n > 2 && b[0] == 0x1f && b[1] == 0x8b, "not gzip");
	free(b);
	free(pb);
	cli_free(&r);
}

/*
 * A --format a command does not write is refused with the formats it does
 * write, and only those: doubling's html among them, diff's and top's three.
 */
Test(cli, format_refusals_name_the_formats_of_their_command)
{
	static const char *const cases[][2] = {
		{"report", "expected text, json, csv, callgrind, pprof, folded or html"},
		{"doubling", "expected text, json, csv or html"},
		{"diff", "expected text, json or csv"},
		{"top", "expected text, json or csv"},
	};
	static const char *const written[][3] = {
		{"doubling", "pprof", "doubling writes text, json, csv or html"},
		{"diff", "html", "diff writes text, json or csv"},
		{"top", "folded", "top writes text, json or csv"},
	};
	struct cli_run r;
	char want[160];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cli(&r, (const char *[]){"x", cases[i][0], "--format", "svg", "1=a", "2=b", NULL});
		snprintf(want, sizeof(want), "extprof: --format svg: %s\n", cases[i][1]);
		cr_expect(exited(&r, 2), "%s: status %d", cases[i][0], r.status);
		cr_expect_str_eq(r.err, want, "%s", cases[i][0]);
		cli_free(&r);
	}
	for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++) {
		cli(&r, (const char *[]){"x", written[i][0], "--format", written[i][1], "1=a",
					 "2=b", NULL});
		snprintf(want, sizeof(want), "extprof: --format %s: %s\n", written[i][1],
			 written[i][2]);
		cr_expect(exited(&r, 2), "%s: status %d", written[i][0], r.status);
		cr_expect_str_eq(r.err, want, "%s", written[i][0]);
		cli_free(&r);
	}
	/* and html is one doubling writes: past --format, the missing runs are what is wrong */
	cli(&r, (const char *[]){"x", "doubling", "--format", "html", "1=a", "2=b", NULL});
	cr_expect(exited(&r, 2), "status %d", r.status);
	cr_expect(!strstr(r.err, "--format"), "%s", r.err);
	cli_free(&r);
}

/* The last line of @s (without its newline), malloc'd. */
static char *last_line(const char *s)
{
	size_t n = strlen(s);
	const char *p;

	if (n && s[n - 1] == '\n')
		n--;
	for (p = s + n; p > s && p[-1] != '\n'; p--)
		;
	return strndup(p, (size_t)(s + n - p));
}

/*
 * A run that left no dump (nothing hooked: no -H) says so in its last
 * line, with the program's status, and exits 3 whatever that was;
 * --status program exits with the program's.
 */
Test(cli, run_that_measured_nothing_says_so_and_exits_3)
{
	static const struct {
		const char *script, *status_opt;
		int want;
		const char *ending;
	} cases[] = {
		{"echo ran", NULL, 3,
		 "sh exited with status 0; extprof exits 3 (--status program: "
		 "with the program's)"},
		{"echo ran; exit 5", NULL, 3, "sh exited with status 5; extprof exits 3"},
		{"echo ran; exit 5", "program", 5, "sh exited with status 5"},
		{"echo ran", "program", 0, "sh exited with status 0"},
		{"echo ran", "auto", 3, "sh exited with status 0; extprof exits 3"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[12] = {"x", "run"};
		size_t n = 2;
		struct cli_run r;
		char *last;

		if (cases[i].status_opt) {
			argv[n++] = "--status";
			argv[n++] = cases[i].status_opt;
		}
		argv[n++] = "--";
		argv[n++] = "sh";
		argv[n++] = "-c";
		argv[n++] = cases[i].script;
		cli(&r, argv);
		last = last_line(r.err);
		cr_expect(exited(&r, cases[i].want), "case %zu: status %d: %s", i, r.status, r.err);
		cr_expect_str_eq(r.out, "ran\n", "case %zu", i);
		cr_expect_eq(strncmp(last,
				     "extprof: run: nothing measured: no dump of this run in ", 55),
			     0, "case %zu: %s", i, last);
		cr_expect_not_null(strstr(last, "(nothing hooked, nothing hooked called, or no "
						"shim loaded); "),
				   "case %zu: %s", i, last);
		cr_expect_not_null(strstr(last, cases[i].ending), "case %zu: %s", i, last);
		if (!strcmp(cases[i].ending, "sh exited with status 5") ||
		    !strcmp(cases[i].ending, "sh exited with status 0"))
			cr_expect_null(strstr(last, "extprof exits"), "case %zu: %s", i, last);
		free(last);
		cli_free(&r);
	}
}

/* Nothing measured by any run of a series: the same; something measured: the program's status. */
Test(cli, run_measured_or_not_in_a_series_and_alone)
{
	struct cli_run r;
	char *last;

	cli(&r, (const char *[]){"x", "run", "--repeat", "2", "--", "/bin/true", NULL});
	last = last_line(r.err);
	cr_expect(exited(&r, 3), "status %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(last, "nothing measured"), "%s", last);
	free(last);
	cli_free(&r);

	cli(&r, (const char *[]){"x", "run", "-H", "function:f", "--", "/bin/true", NULL});
	cr_expect(exited(&r, 0), "status %d: %s", r.status, r.err);
	cr_expect_null(strstr(r.err, "nothing measured"), "%s", r.err);
	cli_free(&r);

	/* killed: run dies the same way, the line said first */
	cli(&r, (const char *[]){"x", "run", "--", "/bin/sh", "-c", "kill -TERM $$", NULL});
	cr_expect(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM, "status %d: %s", r.status,
		  r.err);
	cr_expect_not_null(strstr(r.err, "sh was killed by signal 15"), "%s", r.err);
	cli_free(&r);
}

/*
 * extprof @argv with its stdout and stderr on a terminal (a pty), NO_COLOR
 * unset unless @no_color, TERM=xterm, exiting with @code: what it wrote, malloc'd.
 */
static char *cli_on_a_terminal(const char *const *argv, const char *no_color, int code)
{
	const char *bin = getenv("EXTPROF_BIN");
	char *buf = NULL, chunk[4096];
	size_t len = 0;
	int master, status;
	ssize_t got;
	pid_t pid;

	cr_assert_not_null(bin);
	pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert_geq(pid, 0, "forkpty");
	if (pid == 0) {
		unsetenv("NO_COLOR");
		if (no_color)
			setenv("NO_COLOR", no_color, 1);
		setenv("TERM", "xterm", 1);
		if (chdir(xt_dir))
			_exit(126);
		execv(bin, (char **)argv);
		_exit(127);
	}
	/* EIO once the child has closed the terminal */
	while ((got = read(master, chunk, sizeof(chunk))) > 0) {
		buf = realloc(buf, len + (size_t)got + 1);
		cr_assert_not_null(buf);
		memcpy(buf + len, chunk, (size_t)got);
		len += (size_t)got;
	}
	close(master);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == code, "status %d: %.*s", status,
		  (int)len, buf ? buf : "");
	if (!buf)
		buf = calloc(1, 1);
	buf[len] = '\0';
	return buf;
}

/*
 * --color: auto colours a terminal only, and not with NO_COLOR; always
 * colours a pipe too (over NO_COLOR, which the tests set); never, nothing.
 */
Test(cli, color_auto_always_never)
{
	const char *bin = getenv("EXTPROF_BIN");
	char *dir = xt_path(xt_dir, "d"), *dump, *s;
	struct cli_run r;

	cr_assert_eq(mkdir(dir, 0700), 0);
	dump = xt_path(dir, "one.xpd");
	xt_sample_dump(dump, 21, 2);

	/* a pipe */
	cli(&r, (const char *[]){"x", "report", "--color=always", "d", NULL});
	cr_expect(exited(&r, 0), "%s", r.err);
	cr_expect_not_null(strstr(r.out, "\033[1m"), "no colour with --color=always: %s", r.out);
	cli_free(&r);
	cli(&r, (const char *[]){"x", "report", "d", NULL});
	cr_expect_null(strchr(r.out, '\033'), "colour into a pipe: %s", r.out);
	cli_free(&r);
	cli(&r, (const char *[]){"x", "diff", "--color", "always", "d", "d", NULL});
	cr_expect(exited(&r, 0), "%s", r.err);
	cr_expect_not_null(strstr(r.out, "\033[1m"), "diff: %s", r.out);
	cli_free(&r);
	cli(&r, (const char *[]){"x", "top", "--once", "--color=always", "d", NULL});
	cr_expect(exited(&r, 0), "%s", r.err);
	cr_expect_not_null(strstr(r.out, "\033[1m"), "top: %s", r.out);
	cli_free(&r);

	/* a terminal */
	s = cli_on_a_terminal((const char *[]){bin, "report", "d", NULL}, NULL, 0);
	cr_expect_not_null(strstr(s, "\033[1m"), "no colour on a terminal: %s", s);
	free(s);
	s = cli_on_a_terminal((const char *[]){bin, "report", "d", NULL}, "1", 0);
	cr_expect_null(strchr(s, '\033'), "colour with NO_COLOR=1: %s", s);
	free(s);
	s = cli_on_a_terminal((const char *[]){bin, "report", "--color=never", "d", NULL}, NULL, 0);
	cr_expect_null(strchr(s, '\033'), "colour with --color=never: %s", s);
	free(s);
	s = cli_on_a_terminal((const char *[]){bin, "report", "--color=always", "d", NULL}, "1", 0);
	cr_expect_not_null(strstr(s, "\033[1m"), "--color=always under NO_COLOR: %s", s);
	free(s);

	cli(&r, (const char *[]){"x", "report", "--color=sometimes", "d", NULL});
	cr_expect(exited(&r, 2), "status %d", r.status);
	cr_expect_str_eq(r.err, "extprof: --color sometimes: expected auto, always or never\n");
	cli_free(&r);
	free(dump);
	free(dir);
}

/*
 * report --format pprof onto a terminal: refused before a dump is read (the
 * directory named is not there), one line and status 2.
 */
Test(cli, binary_format_is_not_written_onto_a_terminal)
{
	const char *bin = getenv("EXTPROF_BIN");
	char *s;

	cr_assert_not_null(bin);
	s = cli_on_a_terminal((const char *[]){bin, "report", "--format", "pprof", "nowhere", NULL},
			      NULL, 2);
	cr_expect_str_eq(s, "extprof: --format pprof writes a binary file (gzipped profile.proto), "
			    "not onto a terminal: give -o FILE or redirect the output\r\n");
	free(s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* top on a directory that is not there gives up after --wait (default 10 s): one line, 2. */
Test(cli, top_gives_up_on_a_missing_directory)
{
	struct cli_run r;
	double t0 = now_s(), took;

	cli(&r, (const char *[]){"x", "top", "--wait", "0.3", "nowhere", NULL});
	took = now_s() - t0;
	cr_expect(exited(&r, 2), "status %d", r.status);
	cr_expect_str_eq(r.err,
			 "extprof: top: nowhere: no such directory after waiting 0.3 s (--wait)\n");
	cr_expect(took >= 0.3, "gave up after %.2f s", took);
	cli_free(&r);

	/* the default, with frames meanwhile; and --once, which shows no frame until DIR is there
	 */
	t0 = now_s();
	cli(&r, (const char *[]){"x", "top", "-d", "0.5", "nowhere", NULL});
	took = now_s() - t0;
	cr_expect(exited(&r, 2), "status %d", r.status);
	cr_expect_str_eq(r.err,
			 "extprof: top: nowhere: no such directory after waiting 10 s (--wait)\n");
	cr_expect(took >= 10 && took < 40, "gave up after %.2f s", took);
	cr_expect_not_null(strstr(r.out, "waiting: nowhere: No such file or directory (given up "
					 "after 10 s: --wait)"),
			   "%s", r.out);
	cli_free(&r);
	cli(&r, (const char *[]){"x", "top", "--once", "--wait", "0", "nowhere", NULL});
	cr_expect(exited(&r, 2), "status %d", r.status);
	cr_expect_str_eq(r.out, "");
	cli_free(&r);
}

/* A directory that comes within --wait is shown, and top goes on as usual. */
Test(cli, top_waits_for_a_directory_that_comes)
{
	char *late = xt_path(xt_dir, "late");
	struct cli_run r;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		usleep(300 * 1000);
		_exit(mkdir(late, 0700) ? 1 : 0);
	}
	cli(&r, (const char *[]){"x", "top", "--once", "--wait", "20", "late", NULL});
	cr_expect(exited(&r, 0), "status %d: %s", r.status, r.err);
	cr_expect_not_null(strstr(r.out, "waiting: late: no dump files"), "%s", r.out);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	cli_free(&r);
	free(late);
}

/*
 * doubling --sizes with stderr not a terminal: one progress line a run,
 * with the time so far and, once a run has finished, what is left.
 */
Test(cli, doubling_progress_is_a_line_a_run_off_a_terminal)
{
	struct cli_run r;
	int runs = 0, left = 0;

	cli(&r, (const char *[]){"x", "doubling", "--sizes", "1,2,4", "--repeat", "2", "--warmup",
				 "1", "-H", "function:f", "-d", "runs", "--", "/bin/sh", "-c",
				 ": {N}", NULL});
	cr_assert(exited(&r, 0), "status %d: %s", r.status, r.err);
	cr_expect_null(strchr(r.err, '\r'), "a terminal's line: %s", r.err);
	for (const char *p = r.err; (p = strstr(p, "extprof: doubling: N=")); p++) {
		const char *end = strchr(p, '\n');

		cr_assert_not_null(end);
		runs++;
		cr_expect(memmem(p, (size_t)(end - p), " elapsed", 8), "%.*s", (int)(end - p), p);
		left += memmem(p, (size_t)(end - p), " left", 5) != NULL;
	}
	/* a warmup and 2 rounds of 3 sizes; every line but the first has an estimate */
	cr_expect_eq(runs, 7, "%s", r.err);
	cr_expect_eq(left, 6, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "extprof: doubling: N=4, repeat 2 of 2 (run 7 of 7), "),
			   "%s", r.err);
	cli_free(&r);
}
