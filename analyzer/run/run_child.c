// SPDX-License-Identifier: MIT
/*
 * run_child: start the program, wait for it, pass on the signals meant for
 * it, and afterwards die the way it did.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/run.h"

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NFORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static volatile sig_atomic_t child_pid;

/*
 * A signal from the terminal (si_code SI_KERNEL) went to the whole
 * foreground process group, the child included: passing it on would
 * deliver it twice.  One sent to us alone (kill, SI_USER and the like) is
 * passed on.
 */
static void forward(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (si->si_code != SI_KERNEL && child_pid > 0)
		kill((pid_t)child_pid, sig);
	errno = saved;
}

/* Install the forwarders; a signal we were started ignoring stays ignored. */
static void handlers_install(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NFORWARDED; i++) {
		sigaction(forwarded[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(forwarded[i], &sa, NULL);
	}
}

static void handlers_restore(const struct sigaction *old)
{
	child_pid = 0;
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaction(forwarded[i], &old[i], NULL);
}

/* What failed in the child, sent back through the close-on-exec pipe. */
struct child_failure {
	int step; /* 0: exec, 1: personality for --no-aslr */
	int err;
};

static void child_exec(char **argv, bool no_aslr, const struct xp_child_io *io,
		       const sigset_t *mask, int errfd)
{
	struct child_failure f = {1, 0};

	sigprocmask(SIG_SETMASK, mask, NULL);
	if (io && io->in >= 0 && io->in != 0)
		dup2(io->in, 0);
	if (io && io->quiet) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
	}
	if (!no_aslr ||
	    personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE) >= 0) {
		f.step = 0;
		execvp(argv[0], argv);
	}
	f.err = errno;
	if (write(errfd, &f, sizeof(f)) < 0)
		_exit(127);
	_exit(127);
}

/* What the child reported, or step -1 when the exec succeeded. */
static struct child_failure exec_result(int fd)
{
	struct child_failure f = {-1, 0};
	ssize_t n;

	do
		n = read(fd, &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n != sizeof(f))
		f.step = -1;
	return f;
}

static int child_wait(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int xp_run_child(char **argv, bool no_aslr, int *status, struct xp_err *e)
{
	return xp_run_child_io(argv, no_aslr, NULL, status, e);
}

int xp_run_child_io(char **argv, bool no_aslr, const struct xp_child_io *io, int *status,
		    struct xp_err *e)
{
	struct sigaction old[NFORWARDED];
	struct child_failure f;
	sigset_t block, mask;
	int pfd[2], err;
	pid_t pid;

	/* every run of a series from the same place in the same stdin */
	if (io && io->in >= 0 && lseek(io->in, (off_t)io->in_off, SEEK_SET) < 0)
		return xp_err_set(e, -errno, "rewinding the saved stdin: %s", strerror(errno));
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return xp_err_set(e, -errno, "pipe: %s", strerror(errno));
	/* Blocked until the child's pid is known to the handler. */
	sigemptyset(&block);
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaddset(&block, forwarded[i]);
	sigprocmask(SIG_BLOCK, &block, &mask);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		child_exec(argv, no_aslr, io, &mask, pfd[1]);
	}
	err = pid < 0 ? -errno : 0;
	close(pfd[1]);
	if (!err) {
		child_pid = pid;
		handlers_install(old);
	}
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (err) {
		close(pfd[0]);
		return xp_err_set(e, err, "fork: %s", strerror(-err));
	}
	f = exec_result(pfd[0]);
	child_wait(pid, status);
	handlers_restore(old);
	if (f.step == 1)
		return xp_err_set(e, -f.err, "--no-aslr: personality: %s", strerror(f.err));
	if (f.step == 0)
		return xp_err_set(e, -f.err, "%s: %s", argv[0], strerror(f.err));
	return 0;
}

void xp_run_die_like(int sig)
{
	struct rlimit none = {0, 0};
	sigset_t set;

	fflush(NULL);
	/* The program dumped its core if it was to; ours would only mislead. */
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

int xp_run_save_stdin(struct xp_child_io *io, struct xp_err *e)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct stat st;
	char buf[65536];
	ssize_t n;
	int fd;

	io->in = -1;
	io->in_off = 0;
	if (fstat(0, &st) < 0 || isatty(0))
		return 0;
	if (S_ISREG(st.st_mode)) {
		off_t at = lseek(0, 0, SEEK_CUR);

		if (at >= 0) {
			io->in = 0;
			io->in_off = (long)at;
			return 0;
		}
	}
	fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	if (fd < 0)
		return xp_err_set(e, -errno, "%s: cannot keep stdin for the runs: %s", dir,
				  strerror(errno));
	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(fd, buf, (size_t)n) != n) {
			int err = xp_err_set(e, -errno, "saving stdin for the runs: %s",
					     strerror(errno));

			close(fd);
			return err;
		}
	}
	io->in = fd;
	return 0;
}
