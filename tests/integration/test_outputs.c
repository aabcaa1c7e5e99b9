// SPDX-License-Identifier: MIT
/*
 * The files extprof writes for the user (report -o, run --output, doubling
 * --plot), through the real command: a path is written to, never replaced.
 * A symlink stays a symlink and its target takes the report, a FIFO's
 * reader gets it, a device stays the device, another user's file keeps its
 * owner and mode; a write error (ENOSPC, EPIPE) is one line naming the path
 * and the error, status 2; a report that fails leaves the file as it was.
 *
 * The devices are made with mknod in the test's own directory when we are
 * root (the same major and minor as /dev/null and /dev/full), so that a
 * regression replaces a node of ours, never the system's; /dev/null itself
 * is written only after our own node came through unharmed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define NOBODY 65534

/* Each test's directory, and the dumps of a run made there (make_dumps). */
static char *dir, *dumps;

/* A run of the work target under extprof run, into DIR/dumps. */
static void make_dumps(void)
{
	struct run_result r;

	dir = harness_tmpdir("outputs");
	cr_assert(asprintf(&dumps, "%s/dumps", dir) > 0);
	const char *argv[] = {harness_path("EXTPROF_BIN"),
			      "run",
			      "-d",
			      dumps,
			      "--counter",
			      "var:work_tls",
			      "-H",
			      "function:leaf",
			      "-H",
			      "function:twice",
			      "--",
			      harness_path("WORK_TARGET"),
			      "-n",
			      "100",
			      "basic",
			      NULL};
	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "extprof run: %s", r.err);
	harness_free(&r);
}

static void free_dumps(void)
{
}

TestSuite(outputs, .init = make_dumps, .fini = free_dumps);

/* extprof report --format @format -o @out DUMPS: its result in @r. */
static void report_to(const char *format, const char *out, struct run_result *r)
{
	const char *argv[] = {
		harness_path("EXTPROF_BIN"), "report", "--format", format, "-o", out, dumps, NULL};

	harness_run(argv, NULL, r);
}

/* What extprof report prints on stdout for DUMPS, to compare a file with. */
static char *report_text(const char *format)
{
	const char *argv[] = {
		harness_path("EXTPROF_BIN"), "report", "--format", format, dumps, NULL};
	struct run_result r;
	char *out;

	harness_run(argv, NULL, &r);
	cr_assert_eq(r.status, 0, "extprof report: %s", r.err);
	out = strdup(r.out);
	harness_free(&r);
	return out;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 1 << 20);
	size_t n = 0;

	cr_assert(buf);
	if (f) {
		n = fread(buf, 1, (1 << 20) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* DIR/@name. */
static char *path_in(const char *name)
{
	char *p;

	cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

/* One line on stderr, naming @path and @error, status 2, nothing on stdout. */
static void expect_one_line(const struct run_result *r, const char *path, const char *error)
{
	char *nl = strchr(r->err, '\n');

	cr_expect_eq(r->status, 2, "status %d: %s", r->status, r->err);
	cr_expect(nl && nl[1] == '\0', "not one line: %s", r->err);
	cr_expect(strstr(r->err, path) && strstr(r->err, error),
		  "the line does not name %s and '%s': %s", path, error, r->err);
	cr_expect_str_eq(r->out, "", "printed on stdout: %s", r->out);
}

/* A character device @major:@minor at DIR/@name when we are root, else @system. */
static char *device(const char *name, unsigned major, unsigned minor, const char *system)
{
	char *p = path_in(name);

	if (!mknod(p, S_IFCHR | 0666, makedev(major, minor)))
		return p;
	cr_assert(geteuid() != 0, "mknod %s: %s", p, strerror(errno));
	free(p);
	return strdup(system);
}

static void expect_chardev(const char *path, unsigned major, unsigned minor)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
	cr_assert(S_ISCHR(st.st_mode), "%s is no longer a character device (mode 0%o)", path,
		  st.st_mode);
	cr_assert(major(st.st_rdev) == major && minor(st.st_rdev) == minor,
		  "%s is device %u:%u now", path, major(st.st_rdev), minor(st.st_rdev));
}

Test(outputs, a_symlink_stays_and_its_target_takes_the_report)
{
	char *target = path_in("target.json"), *link = path_in("link.json");
	char *want = report_text("json"), *got;
	struct run_result r;
	struct stat st;

	cr_assert_eq(symlink(target, link), 0);
	report_to("json", link, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the symlink became a file");
	got = slurp(target);
	cr_expect_str_eq(got, want, "the symlink's target does not hold the report");
	free(got);
	harness_free(&r);
	free(want);
	free(target);
	free(link);
}

Test(outputs, a_fifo_is_written_to)
{
	char *fifo = path_in("fifo"), *want = report_text("text");
	char buf[65536];
	struct run_result r;
	struct stat st;
	ssize_t n;
	int rd;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* the reader is there first (a report is far below a pipe's 64 KiB) */
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	cr_assert(rd >= 0);
	report_to("text", fifo, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	n = read(rd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	cr_expect_str_eq(buf, want, "the FIFO's reader did not get the report");
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_expect(S_ISFIFO(st.st_mode), "the FIFO became a file");
	close(rd);
	harness_free(&r);
	free(want);
	free(fifo);
}

Test(outputs, dev_null_stays_a_device)
{
	char *null = device("null", 1, 3, "/dev/null");
	struct run_result r;

	report_to("callgrind", null, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	expect_chardev(null, 1, 3);
	harness_free(&r);
	/* ours came through: the system's own, by its name */
	report_to("pprof", "/dev/null", &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	expect_chardev("/dev/null", 1, 3);
	harness_free(&r);
	free(null);
}

Test(outputs, dev_full_is_one_line_and_status_2)
{
	char *full = device("full", 1, 7, "/dev/full");
	struct run_result r;

	report_to("json", full, &r);
	expect_one_line(&r, full, strerror(ENOSPC));
	expect_chardev(full, 1, 7);
	harness_free(&r);
	free(full);
}

/*
 * An existing file of another user (as root: nobody's, mode 0640) keeps its
 * owner and mode and takes the report; then a report that fails (a bad
 * dump) leaves it as it was.
 */
Test(outputs, another_users_file_keeps_its_owner_and_mode)
{
	char *out = path_in("theirs.csv"), *bad = path_in("bad.xpd");
	char *want = report_text("csv"), *got;
	struct run_result r;
	struct stat st;
	FILE *f;

	if (geteuid() != 0)
		cr_skip_test("giving a file to another user needs root");
	f = fopen(out, "we");
	cr_assert(f);
	fputs("old contents\n", f);
	fclose(f);
	cr_assert_eq(chown(out, NOBODY, NOBODY), 0);
	cr_assert_eq(chmod(out, 0640), 0);
	report_to("csv", out, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(stat(out, &st), 0);
	cr_expect(st.st_uid == NOBODY && st.st_gid == NOBODY, "owner %u:%u, was %u:%u", st.st_uid,
		  st.st_gid, NOBODY, NOBODY);
	cr_expect_eq(st.st_mode & 07777, 0640, "mode 0%o, was 0640", st.st_mode & 07777);
	got = slurp(out);
	cr_expect_str_eq(got, want);
	free(got);
	harness_free(&r);
	/* a report that fails: the file is the last good one */
	f = fopen(bad, "we");
	cr_assert(f);
	fputs("not a dump\n", f);
	fclose(f);
	{
		const char *argv[] = {harness_path("EXTPROF_BIN"),
				      "report",
				      "--strict",
				      "--format",
				      "csv",
				      "-o",
				      out,
				      dumps,
				      bad,
				      NULL};

		harness_run(argv, NULL, &r);
	}
	cr_expect_eq(r.status, 2, "a bad dump: status %d: %s", r.status, r.err);
	got = slurp(out);
	cr_expect_str_eq(got, want, "a failed report changed the file");
	free(got);
	harness_free(&r);
	free(want);
	free(bad);
	free(out);
}

/*
 * -o /proc/self/fd/1 with stdout a pipe whose reader has gone: EPIPE, said
 * in one line with status 2 (not a death by SIGPIPE).
 */
Test(outputs, a_reader_gone_is_one_line_and_status_2)
{
	char *err = path_in("stderr");
	const char *out = "/proc/self/fd/1";
	struct run_result r = {0};
	int p[2], status, fd;
	pid_t pid;

	fd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0 && pipe2(p, O_CLOEXEC) == 0);
	/* no reader from the start (closed after the fork, extprof could write first) */
	close(p[0]);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		/* above 2 first, whatever numbers they had: then stdout and stderr */
		int w = fcntl(p[1], F_DUPFD, 10), e = fcntl(fd, F_DUPFD, 10);

		if (w < 0 || e < 0 || dup2(w, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		signal(SIGPIPE, SIG_DFL);
		execl(harness_path("EXTPROF_BIN"), "extprof", "report", "-o", out, dumps,
		      (char *)NULL);
		_exit(127);
	}
	close(fd);
	close(p[1]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status), "extprof died by signal %d", WTERMSIG(status));
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r.err = slurp(err);
	r.out = strdup("");
	expect_one_line(&r, out, strerror(EPIPE));
	harness_free(&r);
	free(err);
}

/* extprof run --output: through a symlink, and into a full device (one line, status 2). */
Test(outputs, run_output_is_written_to_never_replaced)
{
	char *target = path_in("report.txt"), *link = path_in("link.txt");
	char *full = device("full", 1, 7, "/dev/full"), *got;
	const char *argv[] = {harness_path("EXTPROF_BIN"),
			      "run",
			      "-d",
			      dumps,
			      "--output",
			      link,
			      "-H",
			      "function:leaf",
			      "--",
			      harness_path("WORK_TARGET"),
			      "-n",
			      "100",
			      "basic",
			      NULL};
	struct run_result r;
	struct stat st;

	cr_assert_eq(symlink(target, link), 0);
	harness_run(argv, NULL, &r);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the symlink became a file");
	got = slurp(target);
	cr_expect(strstr(got, "leaf"), "the symlink's target does not hold the report: %s", got);
	free(got);
	harness_free(&r);
	/* the program succeeded, the report could not be written: 2 */
	argv[5] = full;
	harness_run(argv, NULL, &r);
	cr_expect_eq(r.status, 2, "status %d: %s", r.status, r.err);
	cr_expect(strstr(r.err, full) && strstr(r.err, strerror(ENOSPC)), "%s", r.err);
	expect_chardev(full, 1, 7);
	harness_free(&r);
	free(full);
	free(target);
	free(link);
}
