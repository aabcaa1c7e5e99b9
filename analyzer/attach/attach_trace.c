// SPDX-License-Identifier: MIT
/*
 * attach_trace: every thread of a process under ptrace, for as short a
 * time as the attachment needs.  PTRACE_SEIZE (no signal sent, nothing the
 * process sees), with PTRACE_O_TRACECLONE so that a thread created
 * meanwhile is ours from its first instruction, and PTRACE_O_TRACEEXEC so
 * that an exec is seen; PTRACE_INTERRUPT stops a thread.
 *
 * Signals are the program's: one that arrives for a stopped thread stays
 * pending in the kernel, and is delivered, with its siginfo, when that
 * thread goes on; one that a thread takes while we trace it (a
 * signal-delivery-stop) is passed on at once, never reaped
 * (trace_signal_at_once).  A stop signal (SIGSTOP, SIGTSTP, ...) is left
 * in effect: the kernel stops the process again when we let go.
 *
 * Nothing here kills, and PTRACE_O_EXITKILL is not asked for: if the
 * tracer dies, the kernel lets the threads go, each from the stop it is
 * in, and each must run on from there as if nothing had happened.  So a
 * thread is never stepped (a single step's SIGTRAP would be delivered,
 * and kill it), no signal for the program is ever held in a stop we
 * reaped (waitpid clears the stop's signal: the kernel would drop it),
 * and the stops we reap are those a thread goes on from unchanged:
 * PTRACE_INTERRUPT's, events', and system-call stops marked with
 * PTRACE_O_TRACESYSGOOD (their SIGTRAP|0x80 is no signal to deliver).
 *
 * The tracer waits with SIGCHLD blocked (cmd_attach.c blocks it) and
 * sigtimedwait, so that every wait has a deadline.
 *
 * A thread that exits while we trace it (an exec or an exit_group in
 * another thread kills it, even from a stop) stays a zombie until we reap
 * it, and an exec waits in the kernel (de_thread) until every other thread
 * is reaped: the tracer reaps in every wait, and letting go ends with the
 * threads that died in our hands reaped (xp_trace_reap).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach.h"
#include "util/vec.h"

#define TRACE_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD)
#define TRACE_STOP_MS 5000 /* a thread takes this long to stop: it is stuck in the kernel */

static struct xp_tthread *trace_find(struct xp_trace *tr, pid_t tid)
{
	for (size_t i = 0; i < tr->n; i++)
		if (tr->t[i].tid == tid && !tr->t[i].gone)
			return &tr->t[i];
	return NULL;
}

struct xp_tthread *xp_trace_thread(struct xp_trace *tr, pid_t tid)
{
	return trace_find(tr, tid);
}

static struct xp_tthread *trace_add(struct xp_trace *tr, pid_t tid)
{
	struct xp_tthread *t;

	if (XP_GROW(&tr->t, &tr->cap, tr->n, 16))
		return NULL;
	t = &tr->t[tr->n++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static bool trace_all_gone(const struct xp_trace *tr)
{
	for (size_t i = 0; i < tr->n; i++)
		if (!tr->t[i].gone)
			return false;
	return true;
}

static int64_t trace_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* What a wait status says about one of our threads. */
static void trace_event(struct xp_trace *tr, pid_t tid, int status)
{
	struct xp_tthread *t = trace_find(tr, tid);
	int sig = WSTOPSIG(status), ev = status >> 16;
	unsigned long msg = 0;

	if (!t) {
		/* a new thread's first stop, before its creator's clone event */
		t = trace_add(tr, tid);
		if (!t)
			return;
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		t->gone = true;
		t->stop = XP_TS_RUNNING;
		tr->exited = trace_all_gone(tr);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	t->asked = false;
	switch (ev) {
	case PTRACE_EVENT_STOP:
		t->stop = is_stop_signal(sig) ? XP_TS_GROUP : XP_TS_INTERRUPT;
		if (is_stop_signal(sig))
			tr->group_stop = true;
		break;
	case PTRACE_EVENT_CLONE:
		if (!ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) && !trace_find(tr, (pid_t)msg))
			trace_add(tr, (pid_t)msg);
		t = trace_find(tr, tid); /* trace_add may have moved the array */
		t->stop = XP_TS_INTERRUPT;
		break;
	case PTRACE_EVENT_EXEC:
		/* every other thread is gone; the one left has the leader's tid */
		tr->execed = true;
		for (size_t i = 0; i < tr->n; i++)
			if (tr->t[i].tid != tid)
				tr->t[i].gone = true;
		t->stop = XP_TS_INTERRUPT;
		break;
	case 0:
		if (sig == (SIGTRAP | 0x80)) {
			t->stop = XP_TS_SYSCALL;
			break;
		}
		/* a fault in a remote call (trace_signal_at_once): for attach_call.c */
		t->stop = XP_TS_SIGNAL;
		t->sig = sig;
		break;
	default:
		t->stop = XP_TS_INTERRUPT;
		break;
	}
}

/*
 * A signal for the program (a signal-delivery-stop) is passed on at once,
 * seen but not reaped: waitpid would take the signal from the kernel (the
 * stop's exit code), and a tracer that died before giving it back would
 * lose it.  The kernel sets the handler up, and the thread goes on as it
 * went (with PTRACE_SYSCALL, the borrowed one on its way back: a SIGCHLD
 * it takes then must not hide that way's end from us); one that is to be
 * stopped is stopped again by the PTRACE_INTERRUPT still pending for it,
 * or by xp_trace_stop_all.  The borrowed thread of a call blocks every
 * signal but the faults: its stop is the call crashing, reaped and left
 * to attach_call.c.  1 when @si was such a signal, passed on.
 */
static int trace_signal_at_once(struct xp_trace *tr, const siginfo_t *si)
{
	struct xp_tthread *t = trace_find(tr, si->si_pid);
	int sig = si->si_status;

	if (si->si_code != CLD_TRAPPED || (sig & ~0x7f) || !sig || !t || t->calling)
		return 0;
	xp_trace_test_point();
	if (ptrace(t->syscalls ? PTRACE_SYSCALL : PTRACE_CONT, t->tid, NULL, (void *)(long)sig) < 0)
		return 0;
	t->stop = XP_TS_RUNNING;
	t->sig = 0;
	return 1;
}

/* One event within @timeout_ms: 1, 0 on timeout, -errno. */
static int trace_wait_one(struct xp_trace *tr, int timeout_ms)
{
	int64_t deadline = trace_now_ms() + timeout_ms;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		int64_t left = deadline - trace_now_ms();
		struct timespec ts;
		siginfo_t si;
		int status, r;

		/* looked at first, reaped only if it is not a signal for the program */
		memset(&si, 0, sizeof(si));
		r = waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | __WALL | WNOHANG | WNOWAIT);
		if (!r && si.si_pid > 0) {
			if (trace_signal_at_once(tr, &si))
				return 1;
			if (waitpid(si.si_pid, &status, __WALL | WNOHANG | WUNTRACED) ==
			    si.si_pid) {
				trace_event(tr, si.si_pid, status);
				return 1;
			}
			continue;
		}
		if (r < 0 && errno != EINTR)
			return errno == ECHILD ? (tr->exited = true, -ESRCH) : -errno;
		if (left <= 0)
			return 0;
		/* SIGCHLD is blocked: it says a stop or an exit is there to reap
		 * (one for several, so waitpid is asked again every 2 ms anyway) */
		ts.tv_sec = 0;
		ts.tv_nsec = (left < 2 ? left : 2) * 1000000;
		sigtimedwait(&chld, NULL, &ts);
	}
}

/* A thread that stopped while we wanted it running: on it goes. */
static void trace_let_run(struct xp_trace *tr, struct xp_tthread *t)
{
	if (t->stop == XP_TS_SIGNAL || t->stop == XP_TS_INTERRUPT || t->stop == XP_TS_SYSCALL)
		xp_trace_resume(tr, t, false);
}

/* EXTPROF_TEST_ATTACH_TOUCH_AT=-K: @let_go threads let go so far (-1: the first letting go is
 * over). */
static void trace_test_release_point(long let_go)
{
	static bool over;

	if (!over && let_go > 0 && let_go == -xp_trace_test_env("EXTPROF_TEST_ATTACH_TOUCH_AT"))
		xp_trace_test_touch();
	if (let_go < 0)
		over = true;
}

int xp_trace_resume(struct xp_trace *tr, struct xp_tthread *t, bool syscalls)
{
	int sig = t->sig;

	(void)tr;
	if (t->gone || t->stop == XP_TS_RUNNING)
		return 0;
	xp_trace_test_point();
	if (ptrace(syscalls ? PTRACE_SYSCALL : PTRACE_CONT, t->tid, NULL,
		   (void *)(long)(t->stop == XP_TS_GROUP ? 0 : sig)) < 0) {
		if (errno == ESRCH) {
			t->gone = true;
			return 0;
		}
		return -errno;
	}
	if (t->stop != XP_TS_GROUP)
		t->sig = 0;
	t->syscalls = syscalls;
	t->stop = XP_TS_RUNNING;
	return 0;
}

int xp_trace_resume_all(struct xp_trace *tr, pid_t except)
{
	int err = 0;

	for (size_t i = 0; i < tr->n; i++) {
		struct xp_tthread *t = &tr->t[i];

		if (t->tid != except && !t->gone && t->stop != XP_TS_RUNNING) {
			int r = xp_trace_resume(tr, t, false);

			if (r && !err)
				err = r;
		}
	}
	return err;
}

int xp_trace_wait(struct xp_trace *tr, struct xp_tthread *t, int timeout_ms, bool others_run)
{
	int64_t deadline = trace_now_ms() + timeout_ms;
	pid_t tid = t->tid;

	for (;;) {
		int64_t left = deadline - trace_now_ms();
		int r;

		t = trace_find(tr, tid);
		if (!t || tr->exited || tr->execed)
			return -ESRCH;
		if (t->stop != XP_TS_RUNNING)
			return 0;
		if (left <= 0)
			return -ETIMEDOUT;
		r = trace_wait_one(tr, (int)left);
		if (r < 0)
			return r;
		if (!others_run)
			continue;
		for (size_t i = 0; i < tr->n; i++)
			if (tr->t[i].tid != tid && !tr->t[i].gone)
				trace_let_run(tr, &tr->t[i]);
	}
}

/*
 * A thread that has exited but is not reaped never stops: the leader of a
 * process whose main thread called pthread_exit is kept a zombie until
 * the last thread ends.
 */
static void trace_drop_zombies(struct xp_trace *tr)
{
	for (size_t i = 0; i < tr->n; i++) {
		struct xp_tthread *t = &tr->t[i];
		struct xp_pstatus s;

		if (!t->gone && t->stop == XP_TS_RUNNING &&
		    (xp_pstatus_read(tr->pid, t->tid, &s) || s.state == 'Z' || s.state == 'X'))
			t->gone = true;
	}
}

int xp_trace_stop_all(struct xp_trace *tr, struct xp_err *e)
{
	int64_t deadline = trace_now_ms() + TRACE_STOP_MS;

	for (;;) {
		bool running = false;

		for (size_t i = 0; i < tr->n; i++) {
			struct xp_tthread *t = &tr->t[i];

			if (t->gone || t->stop != XP_TS_RUNNING)
				continue;
			running = true;
			if (t->asked)
				continue;
			t->asked = true;
			xp_trace_test_point();
			if (ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) < 0 && errno == ESRCH)
				t->gone = true;
		}
		if (tr->exited || tr->execed || trace_all_gone(tr))
			return xp_err_set(e, -ESRCH, "process %d %s meanwhile", (int)tr->pid,
					  tr->execed ? "exec'd another program" : "exited");
		if (!running)
			return 0;
		if (trace_now_ms() > deadline)
			return xp_err_set(
				e, -ETIMEDOUT,
				"process %d: a thread does not stop (stuck in the kernel?)",
				(int)tr->pid);
		if (trace_wait_one(tr, 100) < 0 && tr->exited)
			return xp_err_set(e, -ESRCH, "process %d exited meanwhile", (int)tr->pid);
		trace_drop_zombies(tr);
	}
}

int xp_trace_attach(struct xp_trace *tr, pid_t pid, struct xp_err *e)
{
	bool fresh;

	memset(tr, 0, sizeof(*tr));
	tr->pid = pid;
	/* until a listing finds none new: threads may be created meanwhile */
	do {
		pid_t *tids;
		size_t n;
		int err = xp_tasks_list(pid, &tids, &n);

		if (err) {
			xp_trace_release(tr);
			return err == -ENOENT ? xp_err_set(e, -ESRCH, "process %d exited meanwhile",
							   (int)pid)
					      : xp_err_set(e, err, "process %d: %s", (int)pid,
							   strerror(-err));
		}
		fresh = false;
		for (size_t i = 0; i < n; i++) {
			struct xp_pstatus st;

			if (trace_find(tr, tids[i]))
				continue;
			/* a thread that has exited (the leader after pthread_exit) */
			if (!xp_pstatus_read(pid, tids[i], &st) &&
			    (st.state == 'Z' || st.state == 'X'))
				continue;
			xp_trace_test_point();
			if (ptrace(PTRACE_SEIZE, tids[i], NULL, (void *)(long)TRACE_OPTIONS) < 0) {
				int code = -errno;

				if (code == -ESRCH)
					continue; /* that thread just exited */
				free(tids);
				xp_trace_release(tr);
				return xp_attach_explain_seize(pid, code, e);
			}
			if (!trace_add(tr, tids[i])) {
				free(tids);
				xp_trace_release(tr);
				return xp_err_set(e, -ENOMEM, "out of memory");
			}
			fresh = true;
		}
		free(tids);
	} while (fresh);
	if (!tr->n)
		return xp_err_set(e, -ESRCH, "process %d exited meanwhile", (int)pid);
	return xp_trace_stop_all(tr, e);
}

void xp_trace_run_for(struct xp_trace *tr, int ms)
{
	int64_t deadline = trace_now_ms() + ms;

	xp_trace_resume_all(tr, 0);
	while (!tr->exited && !tr->execed) {
		int64_t left = deadline - trace_now_ms();

		if (left <= 0 || trace_wait_one(tr, (int)left) < 0)
			break;
		for (size_t i = 0; i < tr->n; i++)
			if (!tr->t[i].gone)
				trace_let_run(tr, &tr->t[i]);
	}
}

/*
 * The signal for the program that @tid's stop holds, one we never reaped
 * (0 when it is a stop of ptrace's own: an event, a system call's, or
 * none): a PTRACE_DETACH without it would drop it.
 */
static int trace_stop_signal(pid_t tid)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) < 0)
		return 0;
	/* an event's stop: SIGTRAP | event << 8; a system call's: SIGTRAP | 0x80 */
	if ((si.si_code > 0 && si.si_code >> 8) ||
	    (si.si_signo == SIGTRAP && si.si_code == (SIGTRAP | 0x80)))
		return 0;
	return si.si_signo;
}

/*
 * One pass over @pid's threads: each we still trace is reaped if it has
 * exited, let go if it is in a stop (one we have not seen yet: a new
 * thread's first).  Returns how many are left: dying, or running on.
 */
static int trace_reap_pass(pid_t pid)
{
	pid_t *tids, self = getpid();
	int left = 0;
	size_t n;

	if (xp_tasks_list(pid, &tids, &n))
		return 0; /* the process is gone, reaped by its parent */
	for (size_t i = 0; i < n; i++) {
		struct xp_pstatus s;
		int status;

		if (xp_pstatus_read(pid, tids[i], &s) || s.tracer != self)
			continue;
		if (s.state == 'Z' || s.state == 'X') {
			if (waitpid(tids[i], &status, __WALL | WNOHANG) != tids[i])
				left++;
			continue;
		}
		if (ptrace(PTRACE_DETACH, tids[i], NULL, (void *)(long)trace_stop_signal(tids[i])) <
		    0) {
			/* not in a stop: dying, or running on (it stops for the next pass) */
			ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL);
			left++;
		}
	}
	free(tids);
	return left;
}

int xp_trace_reap(pid_t pid, int timeout_ms)
{
	int64_t deadline = trace_now_ms() + timeout_ms;
	sigset_t chld;
	int left;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while ((left = trace_reap_pass(pid)) && trace_now_ms() < deadline) {
		struct timespec ts = {0, 2000000};

		sigtimedwait(&chld, NULL, &ts);
	}
	return left;
}

void xp_trace_release(struct xp_trace *tr)
{
	struct xp_err e;
	long let_go = 0;

	if (tr->n)
		xp_trace_stop_all(tr, &e);
	for (size_t i = 0; i < tr->n; i++) {
		struct xp_tthread *t = &tr->t[i];
		int sig = t->stop == XP_TS_SIGNAL ? t->sig : 0;

		if (t->gone)
			continue;
		xp_trace_test_point();
		if (!ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)sig))
			trace_test_release_point(++let_go);
	}
	trace_test_release_point(-1);
	/* one that an exec or an exit killed meanwhile was not let go: reaped */
	if (tr->n && xp_trace_reap(tr->pid, TRACE_STOP_MS))
		fprintf(stderr,
			"extprof: attach: process %d: a thread killed while traced has not ended "
			"in %d s; it is reaped later\n",
			(int)tr->pid, TRACE_STOP_MS / 1000);
	free(tr->t);
	tr->t = NULL;
	tr->n = tr->cap = 0;
}
