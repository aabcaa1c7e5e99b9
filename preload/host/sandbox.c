// SPDX-License-Identifier: MIT
/*
 * sandbox: a program that sandboxes itself with seccomp (kill on a system
 * call its filter does not allow) must not die of one of the shim's.  The
 * filter comes through libc, which the shim interposes:
 *
 *   prctl(PR_SET_SECCOMP, mode, ...)       libseccomp's seccomp_load uses
 *   syscall(SYS_seccomp, op, ...)          one or the other
 *
 * Before the real call, while system calls may still be made, the shim
 * prepares what it will need (worker_prepare_sandbox): dumps laid out for
 * threads to come, their shadow stacks and stacks of the shim's, the rest
 * of every dump's room as memory, the stubs registered with libgcc's
 * unwinder.  From then on (xp.sandboxed) it makes no system call at all,
 * whatever the filter allows, as the program's may allow few:
 *
 *   a thread's first call      takes a dump laid out before; none left: its
 *                              calls are lost, and the dumps say how many
 *   a function's first call    its histogram row in memory, not in the file:
 *                              the report says which histograms are lost
 *   exit                       the dumps marked complete where they are,
 *                              not rewritten (no file is opened)
 *   a fork child               counts nothing: its calls are added to the
 *                              parent's lost count, through the dump the
 *                              two share
 *   steps                      no call stepped any more (the handler reads
 *                              memory through system calls); the code
 *                              cache goes on in the memory it has (the
 *                              calling thread's made before): code that
 *                              needs more runs natively, not counted whole
 *   log lines, dlopen          not said; objects loaded later not hooked
 *
 * xp.sandboxed is raised before the real call (a filter with TSYNC applies
 * to every thread at once), and lowered again if the call fails (libseccomp
 * probes the kernel with calls that fail).  A filter loaded by a raw
 * system call, not through libc, is not seen (docs/limits.md).
 */
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "core/cancel.h"
#include "core/interpose.h"
#include "core/log.h"
#include "core/state.h"
#include "host/sandbox.h"
#include "resolve/unwind_stub.h"
#include "store/worker.h"
#include "steps/step.h"

#define XP_EXPORT __attribute__((visibility("default")))

enum { SB_PRCTL, SB_SYSCALL, SB_N };
static const char *const sandbox_names[SB_N] = {"prctl", "syscall"};
static void *sandbox_cache[SB_N];
static const struct interpose_table sandbox_reals = {sandbox_names, sandbox_cache, SB_N};

void sandbox_resolve(void)
{
	interpose_resolve(&sandbox_reals);
}

/* A filter may come: ready for it, and no system call from now on. */
static bool sandbox_enter(void)
{
	struct xp_thread *t, *self;
	struct cancel_hold h;

	if (!xp.enabled || xp.sandboxed)
		return false;
	/* the caller's own state, that of a thread without TLS of its own too */
	t = state_self((uint64_t)__builtin_frame_address(0), false);
	self = t ? t : &xp_self;
	/* the SIGTRAP handler of a stepped call makes system calls; the code cache, mmap */
	step_prepare_sandbox(self);
	cancel_hold(&h, t);
	/* the dumps' layout calls what may be hooked: not the program's calls */
	self->busy++;
	worker_prepare_sandbox(t);
	unwind_stub_prepare();
	self->busy--;
	cancel_release(&h);
	__atomic_store_n(&xp.sandboxed, true, __ATOMIC_SEQ_CST);
	return true;
}

/* The filter is in (@ok), or it is not after all. */
static void sandbox_done(bool entered, bool ok)
{
	if (!entered)
		return;
	if (ok)
		log_silence();
	else
		__atomic_store_n(&xp.sandboxed, false, __ATOMIC_SEQ_CST);
}

XP_EXPORT int prctl(int option, ...)
{
	typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);
	unsigned long a[4];
	bool entered = false;
	va_list ap;
	int ret;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	/* not the calls that cannot succeed: libseccomp probes with them */
	if (option == PR_SET_SECCOMP &&
	    (a[0] == SECCOMP_MODE_STRICT || (a[0] == SECCOMP_MODE_FILTER && a[1])))
		entered = sandbox_enter();
	ret = ((prctl_fn)interpose_real(&sandbox_reals, SB_PRCTL))(option, a[0], a[1], a[2], a[3]);
	sandbox_done(entered, ret == 0);
	return ret;
}

/*
 * Six arguments passed on, whatever the call takes, as glibc's own syscall()
 * reads six registers: the ones not given are what the registers held.
 */
XP_EXPORT long syscall(long number, ...)
{
	typedef long (*syscall_fn)(long, long, long, long, long, long, long);
	bool entered = false;
	long a[6], ret;
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_seccomp && ((a[0] == SECCOMP_SET_MODE_STRICT && !a[1] && !a[2]) ||
				      (a[0] == SECCOMP_SET_MODE_FILTER && a[2])))
		entered = sandbox_enter();
	ret = ((syscall_fn)interpose_real(&sandbox_reals, SB_SYSCALL))(number, a[0], a[1], a[2],
								       a[3], a[4], a[5]);
	/* a filter with a listener returns its descriptor */
	sandbox_done(entered, ret >= 0);
	return ret;
}
