// SPDX-License-Identifier: MIT
/*
 * extprof attach, through the real command on real running
 * processes: tests/targets/attach.c (4 threads calling hooked functions,
 * checking their own registers, errno, signal masks, signals, sleeps and
 * pipe as they go) and the refusals' sleepers (tests/targets/sleeper.c).
 *
 * After every attachment the target's code must be its file's again, byte
 * for byte, and it must not be traced; in the end its stdout and exit
 * status are an unattached run's, and every count at most the program's
 * own total ("checker-truth:" lines).  The tests run as root (CI does):
 * another user is uid 65534 through setpriv.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "harness.h"

#define NOBODY "65534"

static const char *const plain_env[] = {"LD_PRELOAD=",
					"EXTPROF_HOOKS=",
					"EXTPROF_SPEC=",
					"EXTPROF_DIR=",
					"EXTPROF_TEST_ATTACH_PICK=",
					NULL};

/* ---- the target -------------------------------------------------------------- */

struct target {
	struct spawned s;
	char pid[16];
	char *stopfile;
	char *dir;   /* where the test keeps its files */
	char *dumps; /* the dump directory, inside it */
};

/* Start @argv (a target that prints "ready" first) and wait for it. */
static void target_start(struct target *t, const char *const argv[], const char *const env[])
{
	char *line;

	harness_spawn(argv, env ? env : plain_env, &t->s);
	line = harness_read_line(&t->s, 20000);
	cr_assert(line && !strcmp(line, "ready"), "%s did not start: %s", argv[0],
		  line ? line : "(nothing)");
	free(line);
	snprintf(t->pid, sizeof(t->pid), "%d", t->s.pid);
}

/* @exe (the attach target, or another), for up to 120 s, until its stop file appears. */
static void any_target_start(struct target *t, const char *exe, const char *mode)
{
	const char *argv[] = {exe, "120", NULL, mode, NULL};

	memset(t, 0, sizeof(*t));
	t->dir = harness_tmpdir("attach");
	cr_assert(asprintf(&t->stopfile, "%s/stop", t->dir) > 0);
	cr_assert(asprintf(&t->dumps, "%s/dumps", t->dir) > 0);
	argv[2] = t->stopfile;
	target_start(t, argv, NULL);
}

static void attach_target_start(struct target *t, const char *mode)
{
	any_target_start(t, harness_path("ATTACH_TARGET"), mode);
}

static void target_stop(struct target *t, struct run_result *r)
{
	if (t->stopfile)
		close(open(t->stopfile, O_CREAT | O_WRONLY, 0600));
	harness_reap(&t->s, r);
	free(t->stopfile);
	t->stopfile = NULL;
}

/* What an unattached run of the target prints and exits with. */
static void target_plain(const char *mode, struct run_result *r)
{
	const char *argv[] = {harness_path("ATTACH_TARGET"), "0.5", "-", mode, NULL};

	harness_run(argv, plain_env, r);
	cr_assert_eq(r->status, 3, "the target alone: status %d: %s", r->status, r->out);
}

static void expect_same_as_plain(const struct run_result *plain, const struct run_result *r)
{
	cr_expect_eq(r->status, plain->status, "attached: status %d, alone %d; stdout: %s",
		     r->status, plain->status, r->out);
	cr_expect_str_eq(r->out, plain->out, "attached, the target printed something else");
}

/* ---- the process as it was ----------------------------------------------------- */

/* A thread of @pid alive, for /proc: the leader may have ended (pthread_exit). */
static const char *live_view(const char *pid)
{
	static char tid[300];
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(tid, sizeof(tid), "%s", pid);
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char st[512], line[256], state = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(st, sizeof(st), "/proc/%s/task/%s/status", pid, de->d_name);
		f = fopen(st, "re");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "State: %c", &state) == 1)
				break;
		if (f)
			fclose(f);
		if (state && state != 'Z' && state != 'X') {
			snprintf(tid, sizeof(tid), "%s", de->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
	return tid;
}

static bool maps_have(const char *pid, const char *what)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/maps", live_view(pid));
	f = fopen(path, "re");
	cr_assert(f, "%s: %s", path, strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static int tracer_of(const char *pid)
{
	char path[64], line[256];
	int tracer = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

/*
 * Every executable mapping of a file (the program's, libc's, libstdc++'s,
 * libgcc_s's, ...) holds the file's bytes: no entry left patched, the
 * unwinder's put back too.  Returns how many bytes were compared.
 */
static size_t expect_code_as_files(const char *pid)
{
	char path[64], line[8192];
	size_t compared = 0;
	int mem;
	FILE *f;

	pid = live_view(pid);
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "re");
	snprintf(path, sizeof(path), "/proc/%s/mem", pid);
	mem = open(path, O_RDONLY);
	cr_assert(f && mem >= 0);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8], name[4096] = "";
		ssize_t na, nb;
		char *a, *b;
		int file;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perms, &off, name) <
			    5 ||
		    perms[2] != 'x' || name[0] != '/' || (file = open(name, O_RDONLY)) < 0)
			continue;
		a = malloc(hi - lo);
		b = malloc(hi - lo);
		cr_assert(a && b);
		na = pread(mem, a, hi - lo, (off_t)lo);
		nb = pread(file, b, hi - lo, (off_t)off);
		cr_assert(na > 0 && nb > 0, "reading %s's code in process %s", name, pid);
		/* the last page may run past the file's end */
		cr_expect(!memcmp(a, b, (size_t)(na < nb ? na : nb)),
			  "process %s: its code differs from %s's", pid, name);
		compared += (size_t)(na < nb ? na : nb);
		free(a);
		free(b);
		close(file);
	}
	fclose(f);
	close(mem);
	cr_expect(compared > 0, "no code found in process %s", pid);
	return compared;
}

static void expect_let_go(const struct target *t)
{
	cr_expect_eq(tracer_of(t->pid), 0, "process %s is still traced", t->pid);
	expect_code_as_files(t->pid);
}

/* ---- extprof attach ---------------------------------------------------------------- */

/*
 * @r->out of a run of extprof attach or detach with --output @file: the
 * report, which goes to stderr without it, as extprof run's does.
 */
static void report_from(const char *file, struct run_result *r)
{
	FILE *f = fopen(file, "re");
	size_t n = 0;
	char *buf;

	cr_assert(!r->out || !r->out[0], "extprof printed on stdout: %s", r->out);
	free(r->out);
	buf = calloc(1, 1 << 22);
	cr_assert(buf);
	if (f) {
		n = fread(buf, 1, (1 << 22) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	r->out = buf;
	unlink(file);
}

/* extprof attach ... PID with @opts (NULL-terminated), its JSON report in @r->out. */
static void attach_run(const struct target *t, const char *const opts[], const char *pick,
		       struct run_result *r)
{
	const char *argv[40] = {harness_path("EXTPROF_BIN"),
				"attach",
				"-d",
				t->dumps,
				"--format",
				"json",
				"--output",
				NULL};
	/* a hang (an exec waiting for threads the tracer never reaped) is a failure of its own */
	struct run_opts bounded = {.timeout_s = 90};
	char *pickv = NULL, *out = NULL;
	const char *env[] = {NULL, NULL};
	int n = 8;

	cr_assert(asprintf(&out, "%s/report.json", t->dir) > 0);
	argv[7] = out;
	for (int i = 0; opts && opts[i] && n < 37; i++)
		argv[n++] = opts[i];
	argv[n++] = t->pid;
	argv[n] = NULL;
	cr_assert(asprintf(&pickv, "EXTPROF_TEST_ATTACH_PICK=%s", pick ? pick : "") > 0);
	env[0] = pickv;
	harness_run_with(argv, env, &bounded, r);
	cr_expect(!r->timed_out, "extprof attach still ran after %u s: %s", bounded.timeout_s,
		  r->err);
	report_from(out, r);
	free(pickv);
	free(out);
}

static json_t *attach_json(const struct run_result *r)
{
	json_t *root = harness_json(r, 0, "extprof attach");

	cr_assert(json_is_object(json_object_get(root, "attached")),
		  "the report does not say it was an attachment: %s", r->out);
	return root;
}

static const char *const counts_opts[] = {
	"--duration",	     "1", "--counter", "var:attach_units", "-H", "function:at_work", "-H",
	"function:at_other", NULL};

Test(attach, counts_a_running_program_and_leaves_it_as_it_was, .timeout = 120)
{
	struct run_result plain, r, end;
	struct target t;
	long long work, other;
	json_t *rep;

	target_plain("-", &plain);
	attach_target_start(&t, "-");
	attach_run(&t, counts_opts, NULL, &r);
	rep = attach_json(&r);
	cr_expect(strstr(r.err, "extprof: hooked 2/2"), "%s", r.err);
	cr_expect(strstr(r.err, "extprof: attached to process"), "%s", r.err);
	work = harness_decl_int(rep, "at_work", "evaluations");
	other = harness_decl_int(rep, "at_other", "evaluations");
	/* var:attach_units: at_work adds 3, at_other 1, exactly, after attaching too */
	cr_expect_eq(harness_decl_int(rep, "at_work", "per_eval"), 3);
	cr_expect_eq(harness_decl_int(rep, "at_other", "per_eval"), 1);
	cr_expect_eq(harness_decl_int(rep, "at_work", "abandoned"), 0);
	cr_expect(json_is_true(json_object_get(rep, "complete")), "%s", r.out);
	expect_let_go(&t);
	cr_expect(maps_have(t.pid, "libextprof.so"), "the shim stays loaded (its stubs)");
	target_stop(&t, &end);
	expect_same_as_plain(&plain, &end);
	cr_expect(work > 0 && work <= harness_tagged(end.err, "truth", "at_work"),
		  "at_work: %lld evaluations attached, %lld in all", work,
		  harness_tagged(end.err, "truth", "at_work"));
	cr_expect(other > 0 && other <= harness_tagged(end.err, "truth", "at_other"),
		  "at_other: %lld evaluations attached, %lld in all", other,
		  harness_tagged(end.err, "truth", "at_other"));
	json_decref(rep);
	harness_free(&r);
	harness_free(&end);
	harness_free(&plain);
	harness_rmdir(t.dir);
}

/* at_work's and at_other's per_eval with steps, the shim preloaded (extprof run). */
static void steps_preloaded(long long *work, long long *other)
{
	const char *argv[] = {harness_path("ATTACH_TARGET"), "0.5", "-", "-", NULL};
	char *dir = harness_tmpdir("attach-steps"), *dirv, *shim;
	const char *env[] = {NULL,
			     NULL,
			     "EXTPROF_HOOKS=function:at_work,function:at_other",
			     "EXTPROF_COUNTER=steps",
			     "EXTPROF_SPEC=",
			     "EXTPROF_STEP_ENGINE=",
			     NULL};
	struct run_result r;
	json_t *rep;

	cr_assert(asprintf(&dirv, "EXTPROF_DIR=%s", dir) > 0);
	cr_assert(asprintf(&shim, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	env[0] = dirv;
	env[1] = shim;
	harness_run(argv, env, &r);
	cr_assert_eq(r.status, 3, "the target preloaded: status %d: %s", r.status, r.err);
	rep = harness_report(dir, NULL);
	*work = harness_decl_int(rep, "at_work", "per_eval");
	*other = harness_decl_int(rep, "at_other", "per_eval");
	json_decref(rep);
	harness_free(&r);
	free(dirv);
	free(shim);
	harness_rmdir(dir);
}

/*
 * steps while attached: the code cache counts every evaluation, exactly as
 * the shim preloaded does (a tracer attached only while the shim is loaded
 * does not stop it, as it stops single-stepping), and the program runs on.
 */
Test(attach, steps_counts_every_evaluation_exactly, .timeout = 120)
{
	static const char *const opts[] = {
		"--duration",	    "1",  "--counter",	       "steps", "-H",
		"function:at_work", "-H", "function:at_other", NULL};
	struct run_result plain, r, end;
	long long work, other;
	struct target t;
	json_t *rep, *c;

	steps_preloaded(&work, &other);
	cr_assert(work > 0 && other > 0, "preloaded: at_work %lld, at_other %lld", work, other);
	target_plain("-", &plain);
	attach_target_start(&t, "-");
	attach_run(&t, opts, NULL, &r);
	rep = attach_json(&r);
	c = json_object_get(rep, "counter");
	cr_expect_str_eq(json_string_value(json_object_get(c, "name")), "steps", "%s", r.err);
	cr_expect_str_eq(json_string_value(json_object_get(c, "engine")), "translate");
	cr_expect_gt(harness_decl_int(rep, "at_work", "evaluations"), 0);
	cr_expect_eq(harness_decl_int(rep, "at_work", "not_whole"), 0);
	cr_expect_eq(harness_decl_int(rep, "at_other", "not_whole"), 0);
	cr_expect_eq(harness_decl_int(rep, "at_work", "per_eval"), work);
	cr_expect_eq(harness_decl_int(rep, "at_other", "per_eval"), other);
	/* every hooked call is counted: the run's total is theirs */
	cr_expect_eq(harness_int(rep, "run_total"),
		     harness_decl_int(rep, "at_work", "observed") +
			     harness_decl_int(rep, "at_other", "observed"));
	expect_let_go(&t);
	target_stop(&t, &end);
	expect_same_as_plain(&plain, &end);
	json_decref(rep);
	harness_free(&r);
	harness_free(&end);
	harness_free(&plain);
	harness_rmdir(t.dir);
}

Test(attach, twenty_times_in_a_row, .timeout = 240)
{
	static const char *const opts[] = {
		"--duration",	    "0.2", "--counter", "var:attach_units", "-H",
		"function:at_work", NULL};
	struct run_result plain, end;
	long long sum = 0, last_to = 0;
	struct target t;

	target_plain("-", &plain);
	attach_target_start(&t, "-");
	for (int i = 0; i < 20; i++) {
		/* the remote calls made in turn by a thread in its own code
		 * (regcheck, which checks every register), by one waiting in a
		 * system call (the reader, in read) and by one asleep in one
		 * (main, in nanosleep, which checks that no sleep is cut short) */
		static const char *const picks[] = {"user", "syscall", "sleep"};
		static const char *const said[] = {"(in its own code)",
						   "(waiting in a system call)",
						   "(asleep in a system call)"};
		const char *pick = picks[i % 3];
		struct run_result r;
		json_t *rep, *att;
		long long n;

		attach_run(&t, opts, pick, &r);
		rep = attach_json(&r);
		cr_expect(strstr(r.err, said[i % 3]), "attachment %d: %s", i, r.err);
		n = harness_decl_int(rep, "at_work", "evaluations");
		cr_expect(n > 0, "attachment %d counted %lld", i, n);
		cr_expect_eq(harness_decl_int(rep, "at_work", "per_eval"), 3, "attachment %d", i);
		att = json_object_get(rep, "attached");
		cr_expect(json_integer_value(json_object_get(att, "from_ns")) > last_to,
			  "attachment %d began before the one before it ended", i);
		last_to = json_integer_value(json_object_get(att, "to_ns"));
		sum += n;
		expect_let_go(&t);
		json_decref(rep);
		harness_free(&r);
	}
	target_stop(&t, &end);
	expect_same_as_plain(&plain, &end);
	cr_expect(sum <= harness_tagged(end.err, "truth", "at_work"),
		  "20 attachments counted %lld at_work calls, the program made %lld", sum,
		  harness_tagged(end.err, "truth", "at_work"));
	harness_free(&end);
	harness_free(&plain);
	harness_rmdir(t.dir);
}

Test(attach, cxx_exceptions_out_of_hooked_functions, .timeout = 120)
{
	static const char *const opts[] = {
		"--duration", "1", "-H", "function:_Z8at_throwl", "-H", "function:_Z8at_catchl",
		NULL};
	const char *plain_argv[] = {harness_path("ATTACH_THROW"), "0.3", NULL};
	struct run_result plain, r, end;
	struct target t;
	json_t *rep;

	harness_run(plain_argv, plain_env, &plain);
	cr_assert_eq(plain.status, 3, "%s", plain.out);
	any_target_start(&t, harness_path("ATTACH_THROW"), NULL);
	attach_run(&t, opts, NULL, &r);
	rep = attach_json(&r);
	cr_expect(!strstr(r.err, "could not be redirected"), "%s", r.err);
	/* at_throw's throws leave it by an exception: abandoned, not evaluations */
	cr_expect(harness_decl_int(rep, "_Z8at_throwl", "abandoned") > 0, "%s", r.out);
	cr_expect(harness_decl_int(rep, "_Z8at_throwl", "evaluations") > 0);
	cr_expect(harness_decl_int(rep, "_Z8at_catchl", "evaluations") > 0);
	expect_let_go(&t);
	target_stop(&t, &end);
	expect_same_as_plain(&plain, &end);
	cr_expect(harness_decl_int(rep, "_Z8at_catchl", "evaluations") <=
		  harness_tagged(end.err, "truth", "at_catch"));
	cr_expect(harness_decl_int(rep, "_Z8at_throwl", "abandoned") <=
		  harness_tagged(end.err, "truth", "throws"));
	json_decref(rep);
	harness_free(&r);
	harness_free(&end);
	harness_free(&plain);
	harness_rmdir(t.dir);
}

/* The dumps of fork children in @dir: their pids are not @parent. */
static int child_reports(const char *dir, const char *parent, int *exact)
{
	long pids[256];
	int n = harness_dump_pids(dir, pids, 256), children = 0;

	*exact = 0;
	for (int i = 0; i < n; i++) {
		char why[512] = "";
		json_t *rep;
		long long k;

		if (pids[i] == atol(parent))
			continue;
		rep = harness_report_pid(dir, pids[i], why, sizeof(why));
		cr_assert(rep, "fork child %ld: %s", pids[i], why);
		k = harness_decl_int(rep, "at_work", "evaluations");
		/* a child calls at_work 1000 times, counted from zero at its fork */
		cr_expect(k >= 0 && k <= 1000, "fork child %ld counted %lld", pids[i], k);
		*exact += k == 1000;
		children++;
		json_decref(rep);
	}
	return children;
}

Test(attach, while_it_forks_and_execs, .timeout = 120)
{
	static const char *const follow[] = {"--follow-forks",	 "--duration", "1", "-H",
					     "function:at_work", NULL};
	struct run_result plain, r, end;
	struct target t;
	int exact, children;
	char why[512];
	json_t *rep;

	target_plain("fork", &plain);
	attach_target_start(&t, "fork");
	/* not followed: each child puts its own copy of the code back */
	attach_run(&t, counts_opts, NULL, &r);
	rep = attach_json(&r);
	cr_expect_eq(json_integer_value(json_object_get(rep, "processes")), 1,
		     "children were counted though not followed: %s", r.out);
	cr_expect(harness_decl_int(rep, "at_work", "evaluations") > 0);
	json_decref(rep);
	harness_free(&r);
	expect_let_go(&t);
	/* followed: each child counts in dumps of its own */
	free(t.dumps);
	cr_assert(asprintf(&t.dumps, "%s/follow", t.dir) > 0);
	attach_run(&t, follow, NULL, &r);
	rep = attach_json(&r);
	cr_expect(json_integer_value(json_object_get(rep, "processes")) > 1,
		  "no fork child was followed: %s", r.err);
	children = child_reports(t.dumps, t.pid, &exact);
	cr_expect(children > 0 && exact > 0, "%d children, %d of them counted exactly", children,
		  exact);
	json_decref(rep);
	rep = harness_report_pid(t.dumps, atol(t.pid), why, sizeof(why));
	cr_assert(rep, "%s", why);
	expect_let_go(&t);
	target_stop(&t, &end);
	expect_same_as_plain(&plain, &end);
	cr_expect(harness_decl_int(rep, "at_work", "evaluations") <=
		  harness_tagged(end.err, "truth", "at_work"));
	json_decref(rep);
	harness_free(&r);
	harness_free(&end);
	harness_free(&plain);
	harness_rmdir(t.dir);
}

Test(attach, detach_ends_an_attachment_left_counting, .timeout = 120)
{
	static const char *const leave[] = {"--duration", "0", "-H", "function:at_work", NULL};
	struct run_result plain, r, again, d, end;
	struct target t;
	char *out;
	const char *dargv[] = {harness_path("EXTPROF_BIN"),
			       "detach",
			       "--format",
			       "json",
			       "--output",
			       NULL,
			       NULL,
			       NULL};
	json_t *rep;

	target_plain("-", &plain);
	attach_target_start(&t, "-");
	attach_run(&t, leave, NULL, &r);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.err, "counting until extprof detach"), "%s", r.err);
	cr_expect_eq(tracer_of(t.pid), 0, "attached, it must not stay traced");
	/* attaching twice: refused, one line, nothing changed */
	attach_run(&t, leave, NULL, &again);
	cr_expect_eq(again.status, 2);
	cr_expect(strstr(again.err, "is attached already"), "%s", again.err);
	cr_expect(!strchr(again.err, '\n') || strchr(again.err, '\n')[1] == '\0', "%s", again.err);
	usleep(300000);
	cr_assert(asprintf(&out, "%s/detach.json", t.dir) > 0);
	dargv[5] = out;
	dargv[6] = t.pid;
	harness_run(dargv, NULL, &d);
	report_from(out, &d);
	rep = harness_json(&d, 0, "extprof detach");
	cr_expect(harness_decl_int(rep, "at_work", "evaluations") > 0);
	expect_let_go(&t);
	json_decref(rep);
	harness_free(&d);
	/* nothing left to detach */
	harness_run(dargv, NULL, &d);
	cr_expect_eq(d.status, 2);
	cr_expect(strstr(d.err, "is not attached"), "%s", d.err);
	target_stop(&t, &end);
	expect_same_as_plain(&plain, &end);
	free(out);
	harness_free(&r);
	harness_free(&again);
	harness_free(&d);
	harness_free(&end);
	harness_free(&plain);
	harness_rmdir(t.dir);
}

/*
 * extprof attach with no --duration, interrupted @after_ms after it
 * started, or (@after_ms 0) as soon as it holds the process.
 */
static void interrupted(int after_ms)
{
	struct run_result plain, r, end;
	struct target t;
	struct spawned a;

	target_plain("-", &plain);
	attach_target_start(&t, "-");
	{
		const char *argv[] = {harness_path("EXTPROF_BIN"), "attach", "-d", t.dumps, "-H",
				      "function:at_work",	   t.pid,    NULL};

		harness_spawn(argv, NULL, &a);
	}
	if (after_ms) {
		usleep((useconds_t)after_ms * 1000);
	} else {
		for (int i = 0; i < 50000 && tracer_of(t.pid) != a.pid; i++)
			usleep(100);
		cr_expect_eq(tracer_of(t.pid), a.pid, "extprof attach never traced the target");
	}
	kill(a.pid, SIGINT);
	harness_reap(&a, &r);
	cr_expect_eq(r.status, 0, "extprof attach after SIGINT: status %d: %s", r.status, r.err);
	/* interrupted at once, it may have ended before any hooked call */
	/* the report on stderr, as extprof run's */
	cr_expect(strstr(r.err, "at_work@attach-target") ||
			  (!after_ms && strstr(r.err, "the attachment left no dumps")),
		  "no report: %s%s", r.out, r.err);
	cr_expect_eq(r.out[0], '\0', "extprof attach printed on stdout: %s", r.out);
	expect_let_go(&t);
	target_stop(&t, &end);
	expect_same_as_plain(&plain, &end);
	harness_free(&r);
	harness_free(&end);
	harness_free(&plain);
	harness_rmdir(t.dir);
}

Test(attach, ctrl_c_while_counting_restores_it_first, .timeout = 120)
{
	interrupted(1500);
}

Test(attach, ctrl_c_while_attaching_restores_it_first, .timeout = 120)
{
	interrupted(0);
}

Test(attach, a_process_that_ends_meanwhile, .timeout = 120)
{
	const char *argv[] = {harness_path("ATTACH_TARGET"), "1.5", "-", "-", NULL};
	static const char *const opts[] = {"-H", "function:at_work", NULL};
	struct run_result r, end;
	struct target t;
	json_t *rep;

	memset(&t, 0, sizeof(t));
	t.dir = harness_tmpdir("attach-ends");
	cr_assert(asprintf(&t.dumps, "%s/dumps", t.dir) > 0);
	target_start(&t, argv, NULL);
	/* no --duration: counting until the process ends */
	attach_run(&t, opts, NULL, &r);
	harness_reap(&t.s, &end);
	cr_expect_eq(end.status, 3, "%s", end.out);
	rep = attach_json(&r);
	cr_expect(strstr(r.err, "has ended"), "%s", r.err);
	cr_expect(json_is_true(json_object_get(rep, "complete")), "its exit finished the dumps");
	cr_expect(harness_decl_int(rep, "at_work", "evaluations") > 0);
	cr_expect(harness_decl_int(rep, "at_work", "evaluations") <=
		  harness_tagged(end.err, "truth", "at_work"));
	json_decref(rep);
	harness_free(&r);
	harness_free(&end);
	harness_rmdir(t.dir);
}

Test(attach, a_process_that_execs_meanwhile, .timeout = 120)
{
	const char *argv[] = {harness_path("ATTACH_TARGET"), "1", "-", "exec", NULL};
	static const char *const opts[] = {"-H", "function:at_work", NULL};
	struct run_result r, end;
	struct target t;
	json_t *rep;

	memset(&t, 0, sizeof(t));
	t.dir = harness_tmpdir("attach-exec");
	cr_assert(asprintf(&t.dumps, "%s/dumps", t.dir) > 0);
	target_start(&t, argv, NULL);
	/* counting until it execs itself (its new image is not the one attached) */
	attach_run(&t, opts, NULL, &r);
	rep = attach_json(&r);
	cr_expect(strstr(r.err, "exec'd another program"), "%s", r.err);
	cr_expect(json_is_true(json_object_get(rep, "complete")),
		  "the image the exec ended counts as finished: %s", r.out);
	cr_expect(harness_decl_int(rep, "at_work", "evaluations") > 0);
	cr_expect(!maps_have(t.pid, "libextprof.so"), "the new image has no shim");
	harness_reap(&t.s, &end);
	cr_expect_eq(end.status, 4, "%s", end.out);
	cr_expect(strstr(end.out, "attach-target: lingered"), "%s", end.out);
	json_decref(rep);
	harness_free(&r);
	harness_free(&end);
	harness_rmdir(t.dir);
}

Test(attach, a_process_that_ends_while_being_attached, .timeout = 120)
{
	static const char *const opts[] = {"--duration", "2", "-H", "function:at_work", NULL};

	/* ending 0 to 50 ms after it said ready: attach is under way or done */
	for (int i = 0; i < 6; i++) {
		char secs[16];
		const char *argv[] = {harness_path("ATTACH_TARGET"), secs, "-", "-", NULL};
		struct run_result r, end;
		struct target t;

		snprintf(secs, sizeof(secs), "%.3f", 0.001 + i * 0.01);
		memset(&t, 0, sizeof(t));
		t.dir = harness_tmpdir("attach-race");
		cr_assert(asprintf(&t.dumps, "%s/dumps", t.dir) > 0);
		target_start(&t, argv, NULL);
		attach_run(&t, opts, NULL, &r);
		harness_reap(&t.s, &end);
		cr_expect_eq(end.status, 3, "the target: %s", end.out);
		cr_expect(r.status == 0 || r.status == 2, "extprof attach: status %d: %s", r.status,
			  r.err);
		if (r.status == 2)
			cr_expect(strstr(r.err, "no process") || strstr(r.err, "exited") ||
					  strstr(r.err, "zombie"),
				  "%s", r.err);
		harness_free(&r);
		harness_free(&end);
		harness_rmdir(t.dir);
	}
}

/* ---- a tracer killed ------------------------------------------------------------- */

/*
 * When extprof attach or detach is killed with SIGKILL, the kernel lets
 * the threads go from wherever they are: every such state must be one the
 * process runs on from, as if nothing had happened (docs/attach.md, "The
 * tracer").  EXTPROF_TEST_ATTACH_KILL_AT=N kills it at its Nth change to
 * the process (a ptrace request that moves a thread, a write into its
 * memory); a kill after a delay finds it wherever it is.
 */

/* extprof attach --duration 0 on @t, or extprof detach (@detach), as argv. */
static void tracer_argv(const struct target *t, bool detach, const char *argv[10])
{
	const char *a[] = {
		harness_path("EXTPROF_BIN"), "attach", "-d", t->dumps, "--duration", "0", "-H",
		"function:at_work",	     t->pid,   NULL};
	const char *d[] = {harness_path("EXTPROF_BIN"), "detach", t->pid, NULL};

	memcpy(argv, detach ? d : a, (detach ? 4 : 10) * sizeof(*argv));
}

/*
 * @argv killed at its @at-th change (0: never) with @pick's thread for its
 * calls: whether it died there; when it ran to its end, how many changes
 * it made, in *@changes.
 */
static bool tracer_killed_at(const char *const argv[], long at, const char *pick, long *changes)
{
	char kill_at[64], pickv[64];
	const char *env[] = {kill_at, pickv, NULL};
	struct run_result r;
	const char *said;
	long made = -1;
	bool killed;

	snprintf(kill_at, sizeof(kill_at), "EXTPROF_TEST_ATTACH_KILL_AT=%ld", at);
	snprintf(pickv, sizeof(pickv), "EXTPROF_TEST_ATTACH_PICK=%s", pick ? pick : "");
	harness_run(argv, env, &r);
	killed = r.signal == SIGKILL;
	for (said = strstr(r.err, "attach: test: "); said && made < 0;
	     said = strstr(said + 1, "attach: test: "))
		sscanf(said, "attach: test: %ld changes made", &made);
	if (changes)
		*changes = killed ? 0 : made;
	cr_expect(killed || at == 0 || (made >= 0 && made < at),
		  "extprof %s was not killed at change %ld: %s", argv[1], at, r.err);
	harness_free(&r);
	return killed;
}

/* After a tracer died: the process runs on, traced by no one. */
static void expect_runs_on(const struct target *t, const char *what, long at)
{
	/* a call it was making comes back by itself meanwhile */
	usleep(200000);
	cr_expect_eq(kill(t->s.pid, 0), 0, "%s killed at change %ld: the process is gone", what,
		     at);
	cr_expect_eq(tracer_of(t->pid), 0, "%s killed at change %ld: the process is traced", what,
		     at);
}

/* Whatever a killed tracer left (an attachment counting, or none): ended. */
static void detach_quietly(const struct target *t)
{
	const char *argv[10];
	struct run_result r;

	tracer_argv(t, true, argv);
	harness_run(argv, NULL, &r);
	harness_free(&r);
}

/* The target, killed tracer or not, must end as an unattached run does. */
static void expect_ends_as_plain(struct target *t, const struct run_result *plain, const char *what,
				 long at)
{
	struct run_result end;

	target_stop(t, &end);
	cr_expect_eq(end.status, plain->status, "%s killed at %ld: status %d; stdout: %s", what, at,
		     end.status, end.out);
	cr_expect_str_eq(end.out, plain->out, "%s killed at %ld: the target printed otherwise",
			 what, at);
	harness_free(&end);
	harness_rmdir(t->dir);
}

/* The changes a first attachment (dlopen included) and a detach make, with @pick's thread. */
static void tracer_changes(const struct run_result *plain, const char *pick, long *attach,
			   long *detach)
{
	const char *argv[10];
	struct target t;

	attach_target_start(&t, "-");
	tracer_argv(&t, false, argv);
	tracer_killed_at(argv, 0, pick, attach);
	tracer_argv(&t, true, argv);
	tracer_killed_at(argv, 0, pick, detach);
	cr_assert(*attach > 10 && *detach > 5, "attach made %ld changes, detach %ld", *attach,
		  *detach);
	expect_ends_as_plain(&t, plain, "nothing", 0);
}

Test(attach, killed_at_changes_while_attaching, .timeout = 600)
{
	static const char *const picks[] = {"user", "sleep", "syscall"};
	struct run_result plain;
	long changes[3], detach;

	target_plain("-", &plain);
	for (int k = 0; k < 3; k++)
		tracer_changes(&plain, picks[k], &changes[k], &detach);
	/* each on a fresh process: the first attachment loads the shim */
	for (int i = 0; i < 24; i++) {
		const char *pick = picks[i % 3];
		long at = 1 + (long)i * changes[i % 3] / 24;
		const char *argv[10];
		struct target t;

		attach_target_start(&t, "-");
		tracer_argv(&t, false, argv);
		tracer_killed_at(argv, at, pick, NULL);
		expect_runs_on(&t, "extprof attach", at);
		detach_quietly(&t);
		expect_ends_as_plain(&t, &plain, "extprof attach", at);
	}
	harness_free(&plain);
}

Test(attach, killed_at_changes_while_detaching, .timeout = 600)
{
	struct run_result plain, r;
	long attach, changes;
	const char *argv[10];
	struct target t;

	target_plain("-", &plain);
	tracer_changes(&plain, "user", &attach, &changes);
	attach_target_start(&t, "-");
	for (int i = 0; i < 16; i++) {
		long at = 1 + (long)i * changes / 16;

		tracer_argv(&t, false, argv);
		harness_run(argv, NULL, &r);
		cr_assert_eq(r.status, 0, "%s", r.err);
		harness_free(&r);
		tracer_argv(&t, true, argv);
		tracer_killed_at(argv, at, i % 2 ? "sleep" : "user", NULL);
		expect_runs_on(&t, "extprof detach", at);
		detach_quietly(&t);
	}
	/* at last a whole attachment: the code is the files' again */
	tracer_argv(&t, false, argv);
	harness_run(argv, NULL, &r);
	harness_free(&r);
	detach_quietly(&t);
	expect_let_go(&t);
	expect_ends_as_plain(&t, &plain, "extprof detach", 0);
	harness_free(&plain);
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

Test(attach, killed_after_delays_while_attaching, .timeout = 600)
{
	struct run_result plain, r;
	const char *argv[10];
	struct target t;
	long took;

	target_plain("-", &plain);
	/* how long a first attachment takes here, now */
	attach_target_start(&t, "-");
	tracer_argv(&t, false, argv);
	took = now_us();
	harness_run(argv, NULL, &r);
	took = now_us() - took;
	cr_assert_eq(r.status, 0, "%s", r.err);
	harness_free(&r);
	detach_quietly(&t);
	expect_ends_as_plain(&t, &plain, "nothing", 0);
	for (int i = 0; i < 12; i++) {
		long delay = (long)i * took / 12;
		struct spawned a;

		attach_target_start(&t, "-");
		tracer_argv(&t, false, argv);
		harness_spawn(argv, NULL, &a);
		usleep((useconds_t)delay);
		kill(a.pid, SIGKILL);
		harness_reap(&a, &r);
		harness_free(&r);
		expect_runs_on(&t, "extprof attach, after a delay in us", delay);
		detach_quietly(&t);
		expect_ends_as_plain(&t, &plain, "extprof attach, after a delay in us", delay);
	}
	harness_free(&plain);
}

/* ---- an exec while traced ------------------------------------------------------- */

/*
 * extprof attach --duration 3 on the exec target @t, which execs when its
 * stop file appears: created at the tracer's @at-th change, or once it let
 * -@at threads go (EXTPROF_TEST_ATTACH_TOUCH_AT).  The exec kills every
 * other thread, one stopped by the tracer too, and waits in the kernel
 * until each is reaped: by its tracer, while it is traced.  extprof attach
 * must end, whatever it says, and the new image run to its end, traced by
 * no one.
 */
static void attach_while_it_execs(struct target *t, long at)
{
	const char *argv[] = {
		harness_path("EXTPROF_BIN"), "attach", "-d", t->dumps, "--duration", "3", "-H",
		"function:at_work",	     t->pid,   NULL};
	char touch_at[64], *touch = NULL;
	const char *env[] = {touch_at, NULL, NULL};
	struct run_opts bounded = {.timeout_s = 60};
	struct run_result r, end;
	int tracer;

	snprintf(touch_at, sizeof(touch_at), "EXTPROF_TEST_ATTACH_TOUCH_AT=%ld", at);
	cr_assert(asprintf(&touch, "EXTPROF_TEST_ATTACH_TOUCH=%s", t->stopfile) > 0);
	env[1] = touch;
	harness_run_with(argv, env, &bounded, &r);
	/* the new image sleeps 2 s before it ends: it is there to look at */
	tracer = tracer_of(t->pid);
	cr_expect(!r.timed_out,
		  "exec at %ld: extprof attach still ran after %u s (the exec waiting for "
		  "threads it traced to be reaped?): %s",
		  at, bounded.timeout_s, r.err);
	cr_expect(r.status == 0 || r.status == 2, "exec at %ld: status %d: %s", at, r.status,
		  r.err);
	cr_expect(tracer <= 0, "exec at %ld: the new image is traced by %d", at, tracer);
	target_stop(t, &end);
	cr_expect_eq(end.status, 4, "exec at %ld: the target: %s", at, end.out);
	cr_expect(strstr(end.out, "attach-target: lingered"), "exec at %ld: %s", at, end.out);
	harness_free(&end);
	harness_free(&r);
	free(touch);
	harness_rmdir(t->dir);
}

Test(attach, execs_at_changes_while_attached, .timeout = 900)
{
	struct run_result plain;
	long changes, detach;

	target_plain("-", &plain);
	tracer_changes(&plain, "user", &changes, &detach);
	/* spread over the attachment; then as it lets go of the 1st to the 4th thread */
	for (int i = 0; i < 10; i++) {
		long at = i < 6 ? 1 + (long)i * changes / 6 : 5 - i;
		struct target t;

		attach_target_start(&t, "exec");
		attach_while_it_execs(&t, at);
	}
	harness_free(&plain);
}

/* ---- refusals ---------------------------------------------------------------------- */

/*
 * extprof attach on @t, as @user ("root" or a uid), with @env: refused
 * with one line containing @want, status 2, the process untouched.
 */
static void expect_refused(const struct target *t, const char *user, const char *const env[],
			   const char *want, bool shim_before)
{
	char *dir = harness_tmpdir("attach-refused"), *dumps;
	const char *argv[] = {"setpriv",
			      "--reuid",
			      user,
			      "--regid",
			      user,
			      "--clear-groups",
			      harness_path("EXTPROF_BIN"),
			      "attach",
			      "-d",
			      NULL,
			      "-H",
			      "function:sl_tick",
			      t->pid,
			      NULL};
	const char *const *a = strcmp(user, "root") ? argv : argv + 6;
	struct run_result r;
	char *nl;

	cr_assert(asprintf(&dumps, "%s/dumps", dir) > 0);
	argv[9] = dumps;
	chmod(dir, 0777);
	harness_run(a, env, &r);
	cr_expect_eq(r.status, 2, "refusal '%s': status %d: %s", want, r.status, r.err);
	cr_expect(strstr(r.err, want), "refusal '%s' said: %s", want, r.err);
	nl = strchr(r.err, '\n');
	cr_expect(nl && nl[1] == '\0', "refusal '%s': not one line: %s", want, r.err);
	cr_expect_eq(r.out[0], '\0', "refusal '%s' printed: %s", want, r.out);
	cr_expect_eq(kill(t->s.pid, 0), 0, "refusal '%s': the process is gone", want);
	cr_expect_eq(tracer_of(t->pid), 0, "refusal '%s': the process is traced", want);
	cr_expect_eq(maps_have(t->pid, "libextprof.so"), shim_before,
		     "refusal '%s': the shim was loaded", want);
	harness_free(&r);
	free(dumps);
	harness_rmdir(dir);
}

static void sleeper_start(struct target *t, const char *exe, const char *user,
			  const char *const env[])
{
	const char *argv[] = {"setpriv",	"--reuid", user, "--regid", user,
			      "--clear-groups", exe,	   "30", NULL};

	memset(t, 0, sizeof(*t));
	target_start(t, strcmp(user, "root") ? argv : argv + 6, env);
}

static void sleeper_stop(struct target *t)
{
	struct run_result r;

	kill(t->s.pid, SIGKILL);
	harness_reap(&t->s, &r);
	harness_free(&r);
}

static const char *sleeper(const char *variant)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s%s", harness_path("ATTACH_SLEEPER"), variant);
	return path;
}

Test(refusal, no_such_process)
{
	const char *argv[] = {
		harness_path("EXTPROF_BIN"), "attach", "-H", "function:x", NULL, NULL};
	struct run_result r;
	char pid[16];
	pid_t child = fork();

	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	snprintf(pid, sizeof(pid), "%d", child);
	argv[4] = pid;
	harness_run(argv, NULL, &r);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "no process"), "%s", r.err);
	harness_free(&r);
}

/* kthreadd (pid 2): a kernel thread, told apart from a process that is ending. */
Test(refusal, a_kernel_thread)
{
	const char *argv[] = {harness_path("EXTPROF_BIN"), "attach", "-H", "function:x", "2", NULL};
	struct run_result r;

	char stat[256] = "";
	FILE *f = fopen("/proc/2/stat", "r");

	if (f) {
		if (!fgets(stat, sizeof(stat), f))
			stat[0] = '\0';
		fclose(f);
	}
	if (!strstr(stat, "(kthreadd)")) {
		/* another pid namespace: pid 2 is somebody's process, leave it be */
		fprintf(stderr, "refusal::a_kernel_thread: pid 2 is not kthreadd here\n");
		return;
	}
	harness_run(argv, NULL, &r);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "is a kernel thread"), "%s", r.err);
	harness_free(&r);
}

Test(refusal, another_user)
{
	struct target t;

	sleeper_start(&t, sleeper(""), "root", NULL);
	expect_refused(&t, NOBODY, NULL, "belongs to uid 0, you are uid 65534", false);
	sleeper_stop(&t);
}

Test(refusal, a_setuid_program)
{
	char *dir = harness_tmpdir("attach-suid"), *copy, cmd[8192];
	struct target t;

	/* a copy owned by root with the set-user-ID bit, run by nobody */
	cr_assert(asprintf(&copy, "%s/sleeper-suid", dir) > 0);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 4755 '%s' && chmod 755 '%s'", sleeper(""),
		 copy, copy, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	sleeper_start(&t, copy, NOBODY, NULL);
	expect_refused(&t, NOBODY, NULL, "runs a set-user-ID program", false);
	sleeper_stop(&t);
	free(copy);
	harness_rmdir(dir);
}

/*
 * No Yama on the machines this was built on: the scope is read from a file
 * of the test's (EXTPROF_TEST_PTRACE_SCOPE_FILE), which checks the message
 * path, not the kernel's refusal.
 */
static char *fake_scope(const char *dir, const char *value)
{
	char *path, *env;
	FILE *f;

	cr_assert(asprintf(&path, "%s/ptrace_scope", dir) > 0);
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "%s\n", value);
	fclose(f);
	chmod(dir, 0755);
	chmod(path, 0644);
	cr_assert(asprintf(&env, "EXTPROF_TEST_PTRACE_SCOPE_FILE=%s", path) > 0);
	free(path);
	return env;
}

Test(refusal, yama_ptrace_scope_3_test_hook)
{
	char *dir = harness_tmpdir("attach-yama");
	const char *env[] = {fake_scope(dir, "3"), NULL};
	struct target t;

	sleeper_start(&t, sleeper(""), "root", NULL);
	expect_refused(&t, "root", env, "kernel.yama.ptrace_scope is 3", false);
	sleeper_stop(&t);
	free((char *)env[0]);
	harness_rmdir(dir);
}

Test(refusal, yama_ptrace_scope_2_test_hook)
{
	char *dir = harness_tmpdir("attach-yama");
	const char *env[] = {fake_scope(dir, "2"), NULL};
	struct target t;

	/* the same user: only Yama's scope 2 stands in the way */
	sleeper_start(&t, sleeper(""), NOBODY, NULL);
	expect_refused(&t, NOBODY, env, "kernel.yama.ptrace_scope is 2", false);
	sleeper_stop(&t);
	free((char *)env[0]);
	harness_rmdir(dir);
}

Test(refusal, already_traced)
{
	struct target t;
	char want[64];
	int status;

	sleeper_start(&t, sleeper(""), "root", NULL);
	cr_assert_eq(ptrace(PTRACE_SEIZE, t.s.pid, NULL, NULL), 0, "%s", strerror(errno));
	snprintf(want, sizeof(want), "is already traced by process %d", (int)getpid());
	{
		const char *argv[] = {harness_path("EXTPROF_BIN"), "attach", "-H",
				      "function:sl_tick",	   t.pid,    NULL};
		struct run_result r;

		harness_run(argv, NULL, &r);
		cr_expect_eq(r.status, 2, "%s", r.err);
		cr_expect(strstr(r.err, want), "%s", r.err);
		cr_expect(!maps_have(t.pid, "libextprof.so"));
		harness_free(&r);
	}
	/* our own tracer lets go; the sleeper goes on */
	ptrace(PTRACE_INTERRUPT, t.s.pid, NULL, NULL);
	waitpid(t.s.pid, &status, __WALL);
	cr_expect_eq(ptrace(PTRACE_DETACH, t.s.pid, NULL, NULL), 0, "%s", strerror(errno));
	cr_expect_eq(tracer_of(t.pid), 0);
	sleeper_stop(&t);
}

Test(refusal, a_static_program)
{
	struct target t;

	sleeper_start(&t, sleeper("-static"), "root", NULL);
	expect_refused(&t, "root", NULL, "runs a statically linked program", false);
	sleeper_stop(&t);
}

Test(refusal, not_glibc)
{
	struct target t;

	sleeper_start(&t, sleeper("-musl"), "root", NULL);
	expect_refused(&t, "root", NULL, "does not use glibc (its loader is /lib/ld-musl", false);
	sleeper_stop(&t);
}

Test(refusal, another_architecture)
{
	struct target t;

	sleeper_start(&t, sleeper("32"), "root", NULL);
	expect_refused(&t, "root", NULL, "runs a 32-bit x86 program", false);
	sleeper_stop(&t);
}

Test(refusal, static_tls_used_up)
{
	char *dl;
	struct target t;

	/* a library of its own took the static TLS glibc keeps for dlopen */
	cr_assert(asprintf(&dl, "SLEEPER_DLOPEN=%s", harness_path("ATTACH_TLSHOG")) > 0);
	{
		const char *env[] = {dl, NULL};

		sleeper_start(&t, sleeper(""), "root", env);
	}
	expect_refused(&t, "root", NULL, "cannot allocate memory in static TLS block", false);
	sleeper_stop(&t);
	free(dl);
}

Test(refusal, already_carrying_the_shim)
{
	char *preload;
	struct target t;

	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", harness_path("EXTPROF_SHIM")) > 0);
	{
		char *dir = harness_tmpdir("attach-preloaded"), *dirv;
		const char *env[] = {preload, "EXTPROF_HOOKS=function:sl_tick", NULL, NULL};

		cr_assert(asprintf(&dirv, "EXTPROF_DIR=%s", dir) > 0);
		env[2] = dirv;
		sleeper_start(&t, sleeper(""), "root", env);
		expect_refused(&t, "root", NULL, "carries the shim since it started", true);
		sleeper_stop(&t);
		free(dirv);
		harness_rmdir(dir);
	}
	free(preload);
}

Test(attach, a_process_whose_main_thread_has_exited, .timeout = 120)
{
	static const char *const opts[] = {"--duration", "0.5", "-H", "function:sl_tick", NULL};
	const char *env[] = {"SLEEPER_MAIN_EXITS=1", NULL};
	struct run_result r;
	struct target t;
	json_t *rep;

	sleeper_start(&t, sleeper(""), "root", env);
	t.dir = harness_tmpdir("attach-leader");
	cr_assert(asprintf(&t.dumps, "%s/dumps", t.dir) > 0);
	/* its /proc/PID shows a zombie, its other thread runs on */
	attach_run(&t, opts, NULL, &r);
	rep = attach_json(&r);
	cr_expect(harness_decl_int(rep, "sl_tick", "evaluations") > 0, "%s", r.out);
	expect_let_go(&t);
	json_decref(rep);
	harness_free(&r);
	sleeper_stop(&t);
	harness_rmdir(t.dir);
}
