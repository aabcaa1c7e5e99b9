// SPDX-License-Identifier: MIT
/*
 * attach_call: a thread of the process borrowed to call functions in it
 * (dlopen, the shim's begin and end), and given back as it was.
 *
 *   begin  pick a thread at a safe point (attach_pick.c), save its
 *          registers, FP state and signal mask; its errno, read through
 *          a call of __errno_location() when the calls may change it
 *   call   set the call up on its stack (attach_x86_64.c), let it run
 *          until it faults on the return trap; a signal sent to it
 *          meanwhile (it blocks all but the faults) is kept for after,
 *          a fault elsewhere is the call crashing
 *   end    put everything back; the kept signal goes with the thread's
 *          next step, with its siginfo, as if it had just arrived
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach/attach.h"

#define CALL_TIMEOUT_MS 30000 /* dlopen of the shim and its calibration: well under a second */
#define PICK_TRIES	100   /* x 20 ms */
#define PICK_PAUSE_MS	20

int xp_hijack_begin(struct xp_trace *tr, struct xp_layout *l, enum xp_pick_for why,
		    uint64_t errno_location, struct xp_hijack *h, struct xp_err *e)
{
	struct xp_tthread *t = NULL;
	uint64_t addr = 0;
	int err;

	memset(h, 0, sizeof(*h));
	for (int i = 0; i < PICK_TRIES; i++) {
		t = xp_pick_thread(tr, l, why, &h->saved);
		if (t)
			break;
		xp_trace_run_for(tr, PICK_PAUSE_MS);
		err = xp_trace_stop_all(tr, e);
		if (err)
			return err;
		xp_layout_free(l);
		err = xp_layout_read(tr->pid, l, e);
		if (err)
			return err;
	}
	if (!t)
		return xp_err_set(
			e, -EAGAIN,
			"process %d: no thread came to a safe point in %d s (each was in the "
			"loader, in libc or short of stack); try again",
			(int)tr->pid, PICK_TRIES * PICK_PAUSE_MS / 1000);
	h->tid = t->tid;
	if (!errno_location)
		return 0;
	err = xp_hijack_call(tr, h, errno_location, NULL, 0, NULL, 0, -1, false, &addr, e);
	if (!err && xp_mem_read(tr->pid, addr, &h->errno_val, sizeof(h->errno_val)))
		err = xp_err_set(e, -errno, "process %d: reading errno: %s", (int)tr->pid,
				 strerror(errno));
	if (err) {
		xp_hijack_end(tr, h, e);
		return err;
	}
	h->errno_addr = addr;
	return 0;
}

/* A signal the thread got during the call: a fault is the call's, others the program's. */
static int call_signal(struct xp_trace *tr, struct xp_hijack *h, struct xp_tthread *t, uint64_t fn,
		       struct xp_err *e)
{
	siginfo_t si;
	int sig = t->sig;

	memset(&si, 0, sizeof(si));
	ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si);
	t->sig = 0;
	if (si.si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
			       sig == SIGTRAP || sig == SIGSYS))
		return xp_err_set(
			e, -EFAULT,
			"process %d: the call of 0x%llx in thread %d crashed with signal %d "
			"at 0x%llx",
			(int)tr->pid, (unsigned long long)fn, (int)t->tid, sig,
			(unsigned long long)xp_arch_pc_of(t->tid));
	if (!h->kept_sig) {
		h->kept_sig = sig;
		h->kept_info = si;
	} else {
		/* a second one meanwhile: sent again after, without its siginfo */
		syscall(SYS_tgkill, tr->pid, t->tid, sig);
	}
	return xp_trace_resume(tr, t, false);
}

int xp_hijack_call(struct xp_trace *tr, struct xp_hijack *h, uint64_t fn, uint64_t *args, int nargs,
		   const void *data, size_t len, int data_arg, bool others_run, uint64_t *ret,
		   struct xp_err *e)
{
	uint64_t top = xp_arch_sp(&h->saved) - XP_ARCH_STACK_GAP, a[6] = {0};
	struct xp_tthread *t = xp_trace_thread(tr, h->tid);
	int err;

	if (!t)
		return xp_err_set(e, -ESRCH, "process %d: thread %d is gone", (int)tr->pid,
				  (int)h->tid);
	for (int i = 0; i < nargs && i < 6; i++)
		a[i] = args[i];
	if (data) {
		top = (top - len) & ~15ull;
		if (xp_mem_write(tr->pid, top, data, len))
			return xp_err_set(e, -errno, "process %d: writing on thread %d's stack: %s",
					  (int)tr->pid, (int)h->tid, strerror(errno));
		if (data_arg >= 0 && data_arg < 6)
			a[data_arg] = top;
	}
	err = xp_arch_setup_call(h->tid, &h->saved, top, fn, a, nargs, e);
	if (err)
		return err;
	/* a stop left over from a signal-delivery-stop: the call goes from here */
	t->sig = 0;
	if (others_run)
		xp_trace_resume_all(tr, h->tid);
	err = xp_trace_resume(tr, t, false);
	while (!err) {
		err = xp_trace_wait(tr, t, CALL_TIMEOUT_MS, others_run);
		if (err == -ETIMEDOUT)
			return xp_err_set(e, err,
					  "process %d: the call of 0x%llx in thread %d has not "
					  "returned in %d s",
					  (int)tr->pid, (unsigned long long)fn, (int)h->tid,
					  CALL_TIMEOUT_MS / 1000);
		if (err)
			return xp_err_set(e, err, "process %d %s during a call in it", (int)tr->pid,
					  tr->execed ? "exec'd another program" : "exited");
		t = xp_trace_thread(tr, h->tid);
		if (t->stop == XP_TS_SIGNAL && t->sig == SIGSEGV &&
		    xp_arch_call_returned(t->tid, ret)) {
			t->sig = 0; /* the return trap: no signal for the program */
			return 0;
		}
		if (t->stop == XP_TS_SIGNAL)
			err = call_signal(tr, h, t, fn, e);
		else
			err = xp_trace_resume(tr, t, false);
	}
	return err;
}

int xp_hijack_end(struct xp_trace *tr, struct xp_hijack *h, struct xp_err *e)
{
	struct xp_tthread *t = xp_trace_thread(tr, h->tid);
	int err;

	if (!t)
		return xp_err_set(e, -ESRCH, "process %d: thread %d is gone", (int)tr->pid,
				  (int)h->tid);
	/* it must be stopped to be given back (another thread's call may have run it) */
	if (t->stop == XP_TS_RUNNING) {
		ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL);
		t->asked = true;
		err = xp_trace_wait(tr, t, 5000, false);
		if (err)
			return xp_err_set(e, err, "process %d: thread %d does not stop",
					  (int)tr->pid, (int)h->tid);
		t = xp_trace_thread(tr, h->tid);
	}
	if (h->errno_addr &&
	    xp_mem_write(tr->pid, h->errno_addr, &h->errno_val, sizeof(h->errno_val)))
		return xp_err_set(e, -errno, "process %d: restoring thread %d's errno: %s",
				  (int)tr->pid, (int)h->tid, strerror(errno));
	err = xp_arch_restore(h->tid, &h->saved, e);
	if (err)
		return err;
	/* a signal kept during the calls: it goes with the thread's next step */
	if (h->kept_sig && (t->stop == XP_TS_SIGNAL || t->stop == XP_TS_STEP)) {
		t->sig = h->kept_sig;
		t->info = h->kept_info;
		t->sig_info = true;
	} else if (h->kept_sig) {
		syscall(SYS_tgkill, tr->pid, t->tid, h->kept_sig);
	}
	h->kept_sig = 0;
	return 0;
}
