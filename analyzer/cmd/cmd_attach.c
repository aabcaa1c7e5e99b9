// SPDX-License-Identifier: MIT
/*
 * cmd_attach: extprof attach [options] -H KIND:PATTERN... PID, and
 * extprof detach PID.  Attach: the refusals, the dump directory, the shim
 * loaded and the entries written (attach_load.c), then count for
 * --duration (or until Ctrl-C, the process's end, or an extprof detach),
 * undo it all (attach_end.c) and report the attachment's dumps as
 * "extprof run" reports its run's.  --duration 0 leaves it attached and
 * returns; extprof detach PID ends it later.
 *
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT are blocked from the start: one that
 * comes while the process is stopped or patched waits until it is whole
 * again, and while counting it ends the attachment.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach.h"
#include "cmd/cmd.h"
#include "run/run.h"

#define ATTACH_GRACE_MS 500 /* for the activations in flight to return */
#define ATTACH_POLL_MS	500 /* how often an extprof detach is looked for */

enum { XP_OPT_DURATION = XP_OPT_RUN_END, XP_OPT_FOLLOW_FORKS };

struct attach_opts {
	struct xp_run_opts run;
	double duration; /* < 0: until Ctrl-C or the end of the process */
	bool follow_forks;
	pid_t pid;
};

void cmd_attach_usage(FILE *out)
{
	fputs("usage: extprof attach [options] -H KIND:PATTERN[@OBJECT]... PID\n"
	      "\n"
	      "Load the shim into the running process PID, hook the functions named, count\n"
	      "the calls that begin while attached, then put the program back as it was and\n"
	      "print the report, on stderr as extprof run does (or into --output's FILE).\n"
	      "PID runs on unharmed.\n"
	      "\n"
	      "  -H, --hook KIND:PATTERN[@OBJECT]\n"
	      "                           hook these functions (repeatable)\n"
	      "  --spec FILE              hook entries from FILE, one a line\n"
	      "  --counter C              auto|instructions|cycles|steps|tsc|ns|var:SYMBOL\n"
	      "                           (default auto)\n"
	      "  -d, --data DIR           dump directory (default extprof.data; --dir is the\n"
	      "                           same); it may hold only extprof dumps\n"
	      "  -o, --output FILE        the report into FILE (written whole), not stderr;\n"
	      "                           -o DIR naming an existing directory is the old\n"
	      "                           spelling of -d DIR (a warning)\n"
	      "  --duration SECONDS       count this long (default: until Ctrl-C or the\n"
	      "                           process ends); 0: attach and return at once, count\n"
	      "                           until extprof detach PID\n"
	      "  --follow-forks           fork children made meanwhile count too, each in\n"
	      "                           dumps of its own (default: a child puts its own copy\n"
	      "                           of the program back and counts "
	      "nothing)\n" XP_REPORT_OPTIONS_HELP "  -h, --help               this text\n"
	      "\n"
	      "Refused, with status 2 and the process untouched: no permission (another user,\n"
	      "a set-user-ID program, kernel.yama.ptrace_scope), a process already traced,\n"
	      "statically linked, not using glibc, not x86-64, or carrying the shim already.\n",
	      out);
}

void cmd_detach_usage(FILE *out)
{
	fputs("usage: extprof detach [options] PID\n"
	      "\n"
	      "End the attachment of PID made by extprof attach (--duration 0, or one still\n"
	      "counting): put the program back as it was and print the report on stderr (or\n"
	      "into --output's FILE).\n"
	      "\n"
	      "  -o, --output FILE        the report into FILE (written whole), not "
	      "stderr\n" XP_REPORT_OPTIONS_HELP "  -h, --help               this text\n",
	      out);
}

static int parse_pid(const char *cmd, const char *arg, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v <= 0 || v > 0x3fffffff) {
		fprintf(stderr, "extprof: %s: '%s' is not a process id\n", cmd, arg);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

static int parse_duration(const char *arg, double *out, struct xp_err *e)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || !isfinite(v) || v < 0 || v > 1e9)
		return xp_err_set(e, -EINVAL, "--duration %s: expected seconds, 0 or more", arg);
	*out = v;
	return 0;
}

/* 1 to attach, 0 after --help, <0 on error (said). */
static int attach_parse(struct attach_opts *o, int argc, char **argv, bool detach)
{
	static const struct option attach_longopts[] = {
		{"hook", required_argument, NULL, 'H'},
		{"spec", required_argument, NULL, XP_OPT_SPEC},
		{"counter", required_argument, NULL, XP_OPT_COUNTER},
		{"duration", required_argument, NULL, XP_OPT_DURATION},
		{"follow-forks", no_argument, NULL, XP_OPT_FOLLOW_FORKS},
		XP_OUTPUT_LONGOPTS,
		XP_DATA_LONGOPTS,
		XP_REPORT_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	static const struct option detach_longopts[] = {
		XP_OUTPUT_LONGOPTS,
		XP_REPORT_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *cmd = detach ? "detach" : "attach";
	struct xp_err e = {""};
	int c;

	memset(o, 0, sizeof(*o));
	o->run.dir = XP_RUN_DEFAULT_DIR;
	o->duration = -1;
	xp_report_opts_init(&o->run.report);
	opterr = 0;
	while ((c = getopt_long(argc, argv, detach ? "+ho:" : "+hH:o:d:",
				detach ? detach_longopts : attach_longopts, NULL)) != -1) {
		int err = 0;

		if (c == 'h' || c == XP_OPT_HELP) {
			(detach ? cmd_detach_usage : cmd_attach_usage)(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			xp_bad_option(cmd, argv);
			return -EINVAL;
		}
		if (c == XP_OPT_DURATION)
			err = parse_duration(optarg, &o->duration, &e);
		else if (c == XP_OPT_FOLLOW_FORKS)
			o->follow_forks = true;
		else
			err = xp_run_getopt(&o->run, c, optarg, &e);
		if (err) {
			if (!e.msg[0])
				xp_err_set(&e, -EINVAL, "%s: option not understood", cmd);
			xp_err_print(&e);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "extprof: %s: name one process id (see extprof %s --help)\n", cmd,
			cmd);
		return -EINVAL;
	}
	if (!detach && !o->run.hooks && !o->run.spec) {
		fputs("extprof: attach: name the functions to hook with -H KIND:PATTERN or --spec "
		      "FILE\n",
		      stderr);
		return -EINVAL;
	}
	if (parse_pid(cmd, argv[optind], &o->pid))
		return -EINVAL;
	/* where the report goes, checked before anything is touched */
	if (xp_run_check_output(&o->run, cmd, &o->run.dir, detach || o->run.dir_given, &e) ||
	    xp_run_open_output(&o->run, &e)) {
		xp_err_print(&e);
		return -EINVAL;
	}
	return 1;
}

/*
 * For the tests that kill us at each change we make to the process
 * (EXTPROF_TEST_ATTACH_KILL_AT, attach_trace.c): how many there were.
 */
static void attach_say_changes(void)
{
	if (getenv("EXTPROF_TEST_ATTACH_KILL_AT"))
		fprintf(stderr, "extprof: attach: test: %ld changes made\n",
			xp_trace_test_changes());
}

/* Block what ends us, and SIGCHLD (attach_trace.c waits for it). */
static void attach_block_signals(sigset_t *ending)
{
	sigset_t all;

	sigemptyset(ending);
	sigaddset(ending, SIGINT);
	sigaddset(ending, SIGTERM);
	sigaddset(ending, SIGHUP);
	sigaddset(ending, SIGQUIT);
	all = *ending;
	sigaddset(&all, SIGCHLD);
	sigprocmask(SIG_BLOCK, &all, NULL);
}

/*
 * The dump directory, as run makes it; when it is new and we are root
 * tracing another user, it becomes that user's, so that the shim can write
 * there as the process.
 */
static int attach_dir(const struct attach_opts *o, char **abs, struct xp_err *e)
{
	struct xp_names before;
	struct xp_pstatus s;
	struct stat st;
	bool existed = stat(o->run.dir, &st) == 0;
	int err = xp_run_dir_prepare(o->run.dir, abs, &before, e);

	if (err)
		return err;
	xp_names_free(&before);
	if (xp_pstatus_read(o->pid, 0, &s) || stat(*abs, &st))
		return 0;
	if (!existed && st.st_uid != s.uid[3] && chown(*abs, s.uid[3], s.gid[3]) < 0)
		return xp_err_set(e, -errno,
				  "%s: cannot give it to uid %u, whose process writes "
				  "there: %s",
				  *abs, s.uid[3], strerror(errno));
	/* the shim takes only a directory of the process's own user (usage.md, "Security") */
	if (existed && st.st_uid != s.uid[3])
		return xp_err_set(
			e, -EACCES,
			"%s: belongs to uid %u, and process %d writes its dumps as uid %u, into a "
			"directory of its own user only: choose another directory with -d",
			*abs, st.st_uid, (int)o->pid, s.uid[3]);
	return 0;
}

static void attach_say_attached(const struct xp_attachment *a, double duration)
{
	struct xp_pstatus s;
	char when[32] = "";
	time_t t = (time_t)(a->start_ns / 1000000000);
	struct tm tm;

	if (xp_pstatus_read(a->pid, 0, &s))
		snprintf(s.name, sizeof(s.name), "?");
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(stderr, "extprof: attached to process %d (%s) at %s: %u function%s hooked; ",
		(int)a->pid, s.name, when, a->npatches, a->npatches == 1 ? "" : "s");
	if (duration == 0)
		fprintf(stderr, "counting until extprof detach %d\n", (int)a->pid);
	else if (duration > 0)
		fprintf(stderr, "counting for %g s (Ctrl-C ends it sooner)\n", duration);
	else
		fputs("counting until Ctrl-C or its end\n", stderr);
}

static int64_t attach_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Count: until the duration is over, a signal comes, the process ends, or a
 * detach.  Meanwhile, a thread still traced by us (killed by an exec or an
 * exit while we let go) is reaped as soon as SIGCHLD says it ended: an
 * exec waits for that.
 */
static void attach_wait(const struct xp_attachment *a, double duration, const sigset_t *ending)
{
	sigset_t woken = *ending;
	int pidfd = (int)syscall(SYS_pidfd_open, a->pid, 0), sfd;
	int64_t deadline = duration > 0 ? attach_now_ms() + (int64_t)(duration * 1000) : INT64_MAX;

	sigaddset(&woken, SIGCHLD);
	sfd = signalfd(-1, &woken, SFD_CLOEXEC);
	for (;;) {
		struct pollfd p[2] = {{sfd, POLLIN, 0}, {pidfd, POLLIN, 0}};
		int64_t left = deadline - attach_now_ms();
		uint32_t state = EXTPROF_ATTACH_ATTACHED;

		xp_trace_reap(a->pid, 0);
		if (left <= 0)
			break;
		poll(p, 2, (int)(left < ATTACH_POLL_MS ? left : ATTACH_POLL_MS));
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				break;
			if (si.ssi_signo == SIGCHLD)
				continue;
			fprintf(stderr, "extprof: attach: %s: ending the attachment\n",
				strsignal((int)si.ssi_signo));
			break;
		}
		if ((p[1].revents & POLLIN) || kill(a->pid, 0) < 0)
			break;
		/* an extprof detach ended it, or the process exec'd: no block there */
		if (xp_mem_read(a->pid, a->block + offsetof(struct extprof_attach_block, state),
				&state, sizeof(state)) ||
		    state != EXTPROF_ATTACH_ATTACHED)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	if (sfd >= 0)
		close(sfd);
}

/* The report of attachment @id's dumps in @dir, as run's goes: an exit status. */
static int attach_report(const char *dir, uint64_t id, const struct xp_report_opts *o)
{
	struct xp_names names;
	struct xp_err e;
	int status;

	if (xp_attach_dumps(dir, id, 0, &names, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	if (!names.n) {
		fprintf(stderr,
			"extprof: %s: the attachment left no dumps (no hooked function was called "
			"while it lasted)\n",
			dir);
		xp_names_free(&names);
		return o->strict ? XP_EXIT_BAD : 0;
	}
	status = xp_report_names(dir, &names, o, stderr);
	xp_names_free(&names);
	return status;
}

/* Undo attachment @id of @pid (0: whichever) and report it: an exit status. */
static int attach_end_and_report(pid_t pid, uint64_t id, const char *dir,
				 const struct xp_report_opts *o)
{
	struct xp_attach_end end;
	struct xp_err e;

	if (xp_attach_finish(pid, id, ATTACH_GRACE_MS, &end, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	if (!id)
		id = end.id;
	if (!dir || !*dir)
		dir = end.dir;
	if (end.gone)
		fprintf(stderr, "extprof: process %d has ended; its dumps say how\n", (int)pid);
	if (end.execed) {
		fprintf(stderr, "extprof: process %d exec'd another program meanwhile\n", (int)pid);
		if (xp_attach_mark_exec(dir, id, pid, end.end_ns, &e))
			xp_err_print(&e);
	}
	if (!id) {
		fprintf(stderr, "extprof: detach: process %d: no attachment to end\n", (int)pid);
		return XP_EXIT_BAD;
	}
	return attach_report(dir, id, o);
}

int cmd_attach(int argc, char **argv)
{
	struct xp_attach_cfg cfg;
	struct xp_attachment a;
	struct attach_opts o;
	struct xp_trace tr;
	struct xp_err e = {""};
	char *dir = NULL, *shim = NULL, *spec = NULL;
	sigset_t ending;
	int r, status = XP_EXIT_BAD;

	r = attach_parse(&o, argc, argv, false);
	if (r <= 0) {
		xp_run_opts_free(&o.run);
		return r ? XP_EXIT_BAD : 0;
	}
	attach_block_signals(&ending);
	if (xp_attach_check(o.pid, false, &e) || xp_run_find_shim(&shim, &e) ||
	    attach_dir(&o, &dir, &e))
		goto out_said;
	if (o.run.spec && !(spec = realpath(o.run.spec, NULL))) {
		xp_err_set(&e, -errno, "--spec %s: %s", o.run.spec, strerror(errno));
		goto out_said;
	}
	cfg = (struct xp_attach_cfg){o.run.hooks, spec, o.run.counter, dir, shim, o.follow_forks};
	if (xp_trace_attach(&tr, o.pid, &e))
		goto out_said;
	r = xp_attach_load(&tr, &cfg, &a, &e);
	xp_trace_release(&tr);
	if (r)
		goto out_said;
	attach_say_attached(&a, o.duration);
	if (o.duration == 0) {
		status = 0;
		goto out;
	}
	attach_wait(&a, o.duration, &ending);
	status = attach_end_and_report(o.pid, a.id, dir, &o.run.report);
	goto out;
out_said:
	xp_err_print(&e);
out:
	attach_say_changes();
	free(dir);
	free(shim);
	free(spec);
	xp_run_opts_free(&o.run);
	return status;
}

int cmd_detach(int argc, char **argv)
{
	struct attach_opts o;
	struct xp_err e;
	sigset_t ending;
	int r;

	r = attach_parse(&o, argc, argv, true);
	if (r <= 0)
		return r ? XP_EXIT_BAD : 0;
	attach_block_signals(&ending);
	if (xp_attach_check(o.pid, true, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	r = attach_end_and_report(o.pid, 0, NULL, &o.run.report);
	attach_say_changes();
	return r;
}
