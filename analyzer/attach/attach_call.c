// SPDX-License-Identifier: MIT
/*
 * attach_call: a thread of the process borrowed to call functions in it
 * (dlopen, the shim's begin and end), in a way that it finishes each call
 * and comes back as it was by itself (attach_x86_64.c): if the tracer dies
 * at any moment, the kernel lets the thread go from where it is, and it
 * runs on.
 *
 *   begin  pick a thread at a safe point (attach_pick.c) and save its
 *          state; the gate written into the process (attach_gate.c); the
 *          calls laid out on the thread's stack, below what it uses
 *   call   one change of its registers starts it; it runs with
 *          PTRACE_SYSCALL, so that the system call that ends the call
 *          (XP_ARCH_AT_DONE) is seen: the result is in the gate's block,
 *          and the next call may start from there.  The thread's signals
 *          are blocked but the faults meanwhile: a fault is the call
 *          crashing, and the thread is sent its way back
 *   end    the thread goes its way back (a system call it was asleep in
 *          finished on the way); once it is out, the gate's bytes go back
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "attach/attach.h"

#define CALL_TIMEOUT_MS 30000 /* dlopen of the shim and its calibration: well under a second */
#define BACK_WAIT_MS	3000  /* for a thread to finish a sleep it was in, on its way back */
#define PICK_TRIES	100   /* x 20 ms */
#define PICK_PAUSE_MS	20

int xp_hijack_begin(struct xp_trace *tr, struct xp_layout *l, enum xp_pick_for why,
		    uint64_t errno_location, struct xp_hijack *h, struct xp_err *e)
{
	struct xp_tthread *t = NULL;
	int err;

	memset(h, 0, sizeof(*h));
	/* where the gate goes first: a thread inside it (on its way back from
	 * an earlier call, which needs the kernel's restart block as it is) is
	 * never borrowed */
	err = xp_gate_find(tr->pid, l, &h->gate, e);
	for (int i = 0; !err && i < PICK_TRIES; i++) {
		t = xp_pick_thread(tr, l, why, &h->saved);
		if (t)
			break;
		xp_trace_run_for(tr, PICK_PAUSE_MS);
		err = xp_trace_stop_all(tr, e);
		if (!err) {
			xp_layout_free(l);
			err = xp_layout_read(tr->pid, l, e);
		}
		if (!err)
			err = xp_gate_find(tr->pid, l, &h->gate, e);
	}
	if (err) {
		memset(&h->gate, 0, sizeof(h->gate));
		return err;
	}
	if (!t)
		return xp_err_set(
			e, -EAGAIN,
			"process %d: no thread came to a safe point in %d s (each was in the "
			"loader, in libc or short of stack); try again",
			(int)tr->pid, PICK_TRIES * PICK_PAUSE_MS / 1000);
	h->tid = t->tid;
	h->calls.errno_location = errno_location;
	h->calls.restorer = xp_pick_restorer(tr->pid, l);
	if (!h->calls.restorer)
		return xp_err_set(e, -ENOEXEC,
				  "process %d: glibc's signal restorer (__restore_rt) is not in "
				  "its libc",
				  (int)tr->pid);
	err = xp_gate_put(tr->pid, &h->gate, e);
	if (err) {
		memset(&h->gate, 0, sizeof(h->gate));
		return err;
	}
	h->calls.gate = h->gate.at;
	return xp_arch_calls_lay(tr->pid, &h->saved, &h->calls, e);
}

/* A fault in the call (the program's signals are blocked during it): its crash. */
static bool call_fault(pid_t tid, int sig)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	ptrace(PTRACE_GETSIGINFO, tid, NULL, &si);
	return si.si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
				  sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS);
}

/*
 * Where the borrowed thread is, stopped at a system-call stop: for @until,
 * true once there (at that entry for XP_ARCH_AT_DONE, at the exit of the
 * rt_sigreturn for XP_ARCH_AT_BACK).  @back_entered: that rt_sigreturn's
 * entry was seen.
 */
static bool call_arrived(const struct xp_hijack *h, enum xp_arch_at until, bool *back_entered)
{
	struct __ptrace_syscall_info si;

	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, h->tid, (void *)sizeof(si), &si) <= 0)
		return false;
	if (si.op == PTRACE_SYSCALL_INFO_EXIT)
		return until == XP_ARCH_AT_BACK && *back_entered;
	if (si.op != PTRACE_SYSCALL_INFO_ENTRY)
		return false;
	switch (xp_arch_calls_at(&h->calls, si.entry.nr, si.stack_pointer)) {
	case XP_ARCH_AT_DONE:
		return until == XP_ARCH_AT_DONE;
	case XP_ARCH_AT_BACK:
		*back_entered = true;
		return false;
	default:
		return false;
	}
}

/*
 * Run the borrowed thread (PTRACE_SYSCALL) until it arrives @until, in
 * @timeout_ms: 0, -EFAULT when the call crashed (the thread then sent its
 * way back, and run until it is back), -ETIMEDOUT, or -errno (the process
 * ended), with @e set.
 */
static int call_run(struct xp_trace *tr, struct xp_hijack *h, enum xp_arch_at until,
		    bool others_run, int timeout_ms, struct xp_err *e)
{
	struct xp_tthread *t = xp_trace_thread(tr, h->tid);
	bool back_entered = false;
	int err, crashed = 0;

	if (!t)
		return xp_err_set(e, -ESRCH, "process %d: thread %d is gone", (int)tr->pid,
				  (int)h->tid);
	if (others_run)
		xp_trace_resume_all(tr, h->tid);
	err = xp_trace_resume(tr, t, true);
	while (!err) {
		err = xp_trace_wait(tr, t, timeout_ms, others_run);
		if (err == -ETIMEDOUT)
			return xp_err_set(e, err,
					  "process %d: thread %d has not come back from a call in "
					  "%d s (it goes on by itself)",
					  (int)tr->pid, (int)h->tid, timeout_ms / 1000);
		/* the thread killed, the process still there: an exec (or exit) under way */
		if (err)
			return xp_err_set(e, err, "process %d %s during a call in it", (int)tr->pid,
					  tr->execed		   ? "exec'd another program"
					  : xp_proc_alive(tr->pid) ? "began an exec or an exit"
								   : "exited");
		t = xp_trace_thread(tr, h->tid);
		if (t->stop == XP_TS_SYSCALL && call_arrived(h, until, &back_entered)) {
			if (until == XP_ARCH_AT_BACK)
				h->away = false;
			return crashed;
		}
		if (t->stop == XP_TS_SIGNAL && call_fault(t->tid, t->sig)) {
			crashed = xp_err_set(e, -EFAULT,
					     "process %d: the call in thread %d crashed with "
					     "signal %d at 0x%llx",
					     (int)tr->pid, (int)t->tid, t->sig,
					     (unsigned long long)xp_arch_pc_of(t->tid));
			/* the fault is not delivered: the thread goes its way back */
			t->sig = 0;
			err = xp_arch_calls_abandon(t->tid, tr->pid, &h->calls, e);
			if (err)
				return err;
			until = XP_ARCH_AT_BACK;
		}
		/* a stop of another kind (a stop signal, an event): it goes on */
		err = xp_trace_resume(tr, t, true);
	}
	return err;
}

int xp_hijack_call(struct xp_trace *tr, struct xp_hijack *h, uint64_t fn, uint64_t *args, int nargs,
		   const void *data, size_t len, int data_arg, bool others_run, uint64_t *ret,
		   struct xp_err *e)
{
	struct xp_tthread *t = xp_trace_thread(tr, h->tid);
	uint64_t a[6] = {0};
	int err;

	if (!t)
		return xp_err_set(e, -ESRCH, "process %d: thread %d is gone", (int)tr->pid,
				  (int)h->tid);
	if (h->away && !h->at_done)
		return xp_err_set(e, -EBUSY, "process %d: thread %d is still in a call",
				  (int)tr->pid, (int)h->tid);
	if (nargs > 6 || (data && len > XP_ARCH_CALL_DATA))
		return xp_err_set(e, -E2BIG, "process %d: a remote call too big", (int)tr->pid);
	for (int i = 0; i < nargs; i++)
		a[i] = args[i];
	if (data) {
		if (xp_mem_write(tr->pid, h->calls.data, data, len))
			return xp_err_set(e, -errno, "process %d: writing on thread %d's stack: %s",
					  (int)tr->pid, (int)h->tid, strerror(errno));
		if (data_arg >= 0 && data_arg < 6)
			a[data_arg] = h->calls.data;
	}
	/* from here the thread finishes the call and comes back by itself */
	h->away = true;
	h->at_done = false;
	err = xp_arch_call_start(tr->pid, h->tid, &h->calls, fn, a, nargs, e);
	if (err)
		return err;
	t->sig = 0;
	t->calling = true;
	err = call_run(tr, h, XP_ARCH_AT_DONE, others_run, CALL_TIMEOUT_MS, e);
	t = xp_trace_thread(tr, h->tid);
	if (t)
		t->calling = false;
	if (err)
		return err;
	h->at_done = true;
	if (xp_arch_call_result(tr->pid, &h->calls, ret))
		return xp_err_set(e, -EIO, "process %d: reading the result of a call",
				  (int)tr->pid);
	return 0;
}

/*
 * A thread that goes on by itself, still on its way: traced from now on
 * without PTRACE_SYSCALL, stopped.  Let go at a system call's exit stop,
 * a call interrupted there would not be restarted (the kernel restarts
 * only when it has a signal or a stop to look at on the way out).
 */
static void call_leave(struct xp_trace *tr, struct xp_hijack *h)
{
	struct xp_tthread *t = xp_trace_thread(tr, h->tid);

	for (int i = 0; t && i < 8; i++) {
		if (t->stop == XP_TS_RUNNING && !t->asked) {
			xp_trace_test_point();
			ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL);
			t->asked = true;
		}
		if (t->stop == XP_TS_RUNNING && xp_trace_wait(tr, t, 5000, false))
			return;
		t = xp_trace_thread(tr, h->tid);
		if (!t || t->stop != XP_TS_SYSCALL)
			return;
		xp_trace_resume(tr, t, false);
	}
}

void xp_hijack_end(struct xp_trace *tr, struct xp_hijack *h)
{
	struct xp_err e;

	/* stopped at a call's end: on its way back, to see it out of the gate
	 * (a few instructions and two system calls, but for a sleep to finish) */
	if (h->away && h->at_done &&
	    call_run(tr, h, XP_ARCH_AT_BACK, false,
		     h->calls.restart ? BACK_WAIT_MS : CALL_TIMEOUT_MS, &e) == -ETIMEDOUT)
		fprintf(stderr,
			"extprof: attach: process %d: thread %d is still asleep in a system call "
			"it was in, which it goes on with by itself; the calls' gate stays after "
			"the code at 0x%llx for its way back\n",
			(int)tr->pid, (int)h->tid, (unsigned long long)h->gate.at);
	if (h->away)
		call_leave(tr, h);
	else
		xp_gate_take(tr, &h->gate);
	memset(&h->gate, 0, sizeof(h->gate));
}
