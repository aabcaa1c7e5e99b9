// SPDX-License-Identifier: MIT
/*
 * exec: an image that replaces itself ends without exit handlers, so its
 * dumps would read "did not finish cleanly".  The exec calls a program makes
 * through the dynamic linker mark them EXEC first (the counts are whole: an
 * exec'd image finished, by exec) and count the activations in progress as
 * abandoned; if the exec fails, both are undone and counting goes on.  The
 * new image is profiled again by the shim it loads.  exec calls made inside
 * libc (execl and its kin, system, posix_spawn) are not seen: their dumps
 * stay "incomplete" (docs/limits.md).
 *
 * _exit and _Exit end a process without its exit handlers, as a shell does
 * after its children (dash leaves by _exit): the live dumps hold every
 * evaluation that finished, so they are marked EXIT_NOW (whole, though not
 * compacted) and the activations in progress abandoned, as for an exec.
 * A vfork child's _exit is its own: the dumps are the parent's.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"
#include "count/activation.h"
#include "core/cancel.h"
#include "core/interpose.h"
#include "core/state.h"
#include "store/dump.h"
#include "host/exec.h"
#include "store/process.h"
#include "count/thread.h"
#include "store/worker.h"

#define XP_EXPORT __attribute__((visibility("default")))

static void exec_write(void *map)
{
	dump_write_compact(map, 0);
}

/* Mark every dump of the process with @flag; @on false undoes it. */
static void exec_mark_as(uint32_t flag, bool on)
{
	uint32_t n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	struct xp_thread *self;

	if (!xp.enabled || xp.finished)
		return;
	/* a vfork child shares our memory and thread: the dumps are the parent's
	 * (not asked under a seccomp filter: no system call there) */
	if (!xp.sandboxed && (uint64_t)getpid() != xp.meta.pid)
		return;
	/* the caller's own state, that of a thread without TLS of its own too */
	self = state_self((uint64_t)__builtin_frame_address(0), false);
	for (uint32_t i = 0; i < n; i++) {
		struct xp_worker *w = &xp.workers[i];
		struct xp_thread *t = w->owner;

		if (!w->map.base)
			continue;
		if (on && t && t == self)
			thread_close_run(w, t); /* harmless if the exec fails */
		if (on)
			w->map.hdr->flags |= flag;
		else
			w->map.hdr->flags &= ~flag;
		for (uint32_t d = 0; t && d < t->depth; d++)
			activation_abandon(w, &t->stack[d],
					   on ? ACTIVATION_TALLY : ACTIVATION_UNDO);
		w->map.hdr->end_ns = process_now_ns();
		/* counted in memory (no room for its file): written now, or never */
		if (on && w->map.in_memory && !xp.sandboxed) {
			struct cancel_hold h;

			cancel_hold(&h, self);
			worker_call_own(self, exec_write, &w->map);
			cancel_release(&h);
		}
	}
}

static void exec_mark(bool on)
{
	exec_mark_as(EXTPROF_DUMP_F_EXEC, on);
}

/*
 * The real functions, looked up at start-up (exec_resolve): execve is
 * async-signal-safe, and dlsym takes the loader's lock.
 */
enum { EX_EXECVE, EX_EXECV, EX_EXECVP, EX_EXECVPE, EX_FEXECVE, EX_N };
static const char *const exec_names[EX_N] = {"execve", "execv", "execvp", "execvpe", "fexecve"};
static void *exec_cache[EX_N];
static const struct interpose_table exec_reals = {exec_names, exec_cache, EX_N};

static void *exec_real(int which)
{
	return interpose_real(&exec_reals, which);
}

void exec_resolve(void)
{
	interpose_resolve(&exec_reals);
}

#define EXEC_WRAP(name, which, params, args)                                                       \
	XP_EXPORT int name params                                                                  \
	{                                                                                          \
		int(*real) params = (int(*) params)exec_real(which);                               \
		int ret, saved;                                                                    \
                                                                                                   \
		exec_mark(true);                                                                   \
		ret = real args;                                                                   \
		saved = errno;                                                                     \
		exec_mark(false);                                                                  \
		errno = saved;                                                                     \
		return ret;                                                                        \
	}

EXEC_WRAP(execve, EX_EXECVE, (const char *path, char *const argv[], char *const envp[]),
	  (path, argv, envp))
EXEC_WRAP(execv, EX_EXECV, (const char *path, char *const argv[]), (path, argv))
EXEC_WRAP(execvp, EX_EXECVP, (const char *file, char *const argv[]), (file, argv))
EXEC_WRAP(execvpe, EX_EXECVPE, (const char *file, char *const argv[], char *const envp[]),
	  (file, argv, envp))
EXEC_WRAP(fexecve, EX_FEXECVE, (int fd, char *const argv[], char *const envp[]), (fd, argv, envp))

/* exit_group(2) itself, as glibc's _exit: no dlsym on a path a fork child may take */
#define EXIT_WRAP(name)                                                                            \
	XP_EXPORT __attribute__((noreturn)) void name(int status)                                  \
	{                                                                                          \
		exec_mark_as(EXTPROF_DUMP_F_EXIT_NOW, true);                                       \
		for (;;)                                                                           \
			arch_syscall4(SYS_exit_group, status, 0, 0, 0);                            \
	}

EXIT_WRAP(_exit)
EXIT_WRAP(_Exit)
