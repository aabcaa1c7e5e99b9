// SPDX-License-Identifier: MIT
/*
 * attach_check: the refusals of "extprof attach" and "extprof detach",
 * each one line, found before anything of the process is touched.  The
 * permission checks say what the kernel's ptrace_may_access() would: the
 * tracer's real uid and gid must be the target's real, effective and saved
 * ones, the target dumpable (a set-user-ID program is not), or the tracer
 * holds CAP_SYS_PTRACE; then Yama's kernel.yama.ptrace_scope.
 *
 * EXTPROF_TEST_PTRACE_SCOPE_FILE names a file read instead of
 * /proc/sys/kernel/yama/ptrace_scope: for the tests, on machines without
 * Yama (docs/attach.md).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attach/attach.h"

#define CAP_SYS_PTRACE_BIT 19
#define YAMA_SCOPE	   "/proc/sys/kernel/yama/ptrace_scope"

static bool check_have_cap_ptrace(void)
{
	struct xp_pstatus me;

	return !xp_pstatus_read(getpid(), 0, &me) && (me.cap_eff >> CAP_SYS_PTRACE_BIT) & 1;
}

/* Yama's scope: -1 without Yama. */
static int check_yama_scope(void)
{
	const char *fake = getenv("EXTPROF_TEST_PTRACE_SCOPE_FILE");
	char buf[16] = "";
	int fd = open(fake && *fake ? fake : YAMA_SCOPE, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* Is @pid a descendant of ours (Yama's scope 1 allows those)? */
static bool check_descendant(pid_t pid)
{
	for (int depth = 0; pid > 1 && depth < 4096; depth++) {
		struct xp_pstatus s;

		if (xp_pstatus_read(pid, 0, &s))
			return false;
		if (s.ppid == getpid())
			return true;
		pid = s.ppid;
	}
	return false;
}

static int check_users(pid_t pid, const char *cmd, const struct xp_pstatus *s, struct xp_err *e)
{
	uid_t me = getuid();
	gid_t mygid = getgid();
	char path[64];
	struct stat st;

	if (s->uid[0] != me)
		return xp_err_set(
			e, -EPERM,
			"%s: process %d (%s) belongs to uid %u, you are uid %u: permission "
			"denied (tracing another user's process needs CAP_SYS_PTRACE)",
			cmd, (int)pid, s->name, s->uid[0], me);
	if (s->uid[1] != me || s->uid[2] != me)
		return xp_err_set(
			e, -EPERM,
			"%s: process %d (%s) runs a set-user-ID program (uid %u, effective "
			"uid %u): permission denied (tracing it needs CAP_SYS_PTRACE)",
			cmd, (int)pid, s->name, s->uid[0], s->uid[1]);
	if (s->gid[0] != mygid || s->gid[1] != mygid || s->gid[2] != mygid)
		return xp_err_set(
			e, -EPERM,
			"%s: process %d (%s) runs a set-group-ID program (gid %u, effective "
			"gid %u): permission denied (tracing it needs CAP_SYS_PTRACE)",
			cmd, (int)pid, s->name, s->gid[0], s->gid[1]);
	/* a process that is not dumpable has its /proc directory owned by root */
	snprintf(path, sizeof(path), "/proc/%d", (int)xp_proc_view(pid));
	if (!stat(path, &st) && st.st_uid == 0 && s->uid[1] != 0)
		return xp_err_set(
			e, -EPERM,
			"%s: process %d (%s) is not dumpable (it ran a set-user-ID program, "
			"or made itself so): permission denied (tracing it needs "
			"CAP_SYS_PTRACE)",
			cmd, (int)pid, s->name);
	return 0;
}

static int check_yama(pid_t pid, const char *cmd, bool cap, bool after_eperm, struct xp_err *e)
{
	int scope = check_yama_scope();

	if (scope >= 3)
		return xp_err_set(e, -EPERM,
				  "%s: kernel.yama.ptrace_scope is %d: no process may be traced "
				  "(until the next boot)",
				  cmd, scope);
	if (scope == 2 && !cap)
		return xp_err_set(e, -EPERM,
				  "%s: kernel.yama.ptrace_scope is 2: only a process with "
				  "CAP_SYS_PTRACE may trace (run extprof as root)",
				  cmd);
	/* scope 1: a process may name its tracer (PR_SET_PTRACER): only the kernel knows */
	if (scope == 1 && !cap && after_eperm && !check_descendant(pid))
		return xp_err_set(
			e, -EPERM,
			"%s: kernel.yama.ptrace_scope is 1: only a parent may trace process "
			"%d (run extprof as root, or sysctl kernel.yama.ptrace_scope=0)",
			cmd, (int)pid);
	return 0;
}

static int check_traced(pid_t pid, const char *cmd, const struct xp_pstatus *s, struct xp_err *e)
{
	struct xp_pstatus tracer;

	if (!s->tracer)
		return 0;
	if (xp_pstatus_read(s->tracer, 0, &tracer))
		snprintf(tracer.name, sizeof(tracer.name), "?");
	return xp_err_set(e, -EBUSY, "%s: process %d (%s) is already traced by process %d (%s)",
			  cmd, (int)pid, s->name, (int)s->tracer, tracer.name);
}

/*
 * Whether @pid is a kernel thread: PF_KTHREAD in the flags of /proc/PID/stat
 * (its ninth field).  A process that is exiting has no program either
 * (/proc/PID/exe is gone once its memory is), and must not be called one.
 */
static bool check_kthread(pid_t pid)
{
	enum { PF_KTHREAD = 0x00200000 };
	char path[64], buf[1024], *p;
	unsigned long flags = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may hold anything, ')' too */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

/* x86-64, dynamically linked, with glibc's loader and libc.so.6. */
static int check_program(pid_t pid, const char *cmd, const struct xp_pstatus *s,
			 const struct xp_maps *maps, struct xp_err *e)
{
	char exe[4096], link[64];
	struct xp_elf_kind k;
	struct xp_object libc;
	struct xp_err ee;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)xp_proc_view(pid));
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n < 0 && errno == ENOENT)
		return check_kthread(pid)
			       ? xp_err_set(e, -EINVAL, "%s: process %d (%s) is a kernel thread",
					    cmd, (int)pid, s->name)
			       : xp_err_set(e, -ESRCH,
					    "%s: process %d (%s) has exited (it was ending)", cmd,
					    (int)pid, s->name);
	exe[n > 0 ? n : 0] = '\0';
	if (xp_elf_kind(link, &k, &ee))
		return xp_err_set(e, -ENOEXEC, "%s: process %d (%s): its program %s: %s", cmd,
				  (int)pid, s->name, exe, ee.msg);
	if (k.elf_class != ELFCLASS64 || k.machine != EM_X86_64)
		return xp_err_set(e, -ENOEXEC,
				  "%s: process %d (%s) runs %s program (%s): extprof attaches to "
				  "x86-64 programs only",
				  cmd, (int)pid, s->name,
				  k.machine == EM_386	   ? "a 32-bit x86"
				  : k.machine == EM_X86_64 ? "an x32"
							   : "another architecture's",
				  exe);
	if (!k.dynamic)
		return xp_err_set(
			e, -ENOEXEC,
			"%s: process %d (%s) runs a statically linked program (%s): it has "
			"no dynamic loader to load the shim with",
			cmd, (int)pid, s->name, exe);
	xp_maps_object(maps, "libc.so.6", &libc);
	if (!libc.found || !strstr(k.interp, "ld-linux-x86-64.so"))
		return xp_err_set(
			e, -ENOEXEC,
			"%s: process %d (%s) does not use glibc (its loader is %s): extprof "
			"attach needs glibc's dlopen",
			cmd, (int)pid, s->name, k.interp[0] ? k.interp : "unknown");
	return 0;
}

/* Whether it carries the shim already, and in which state. */
static int check_shim(pid_t pid, const char *cmd, bool detach, const struct xp_pstatus *s,
		      const struct xp_maps *maps, struct xp_err *e)
{
	struct xp_layout l;
	struct extprof_attach_block *blk;
	uint64_t addr = 0;
	int err;

	memset(&l, 0, sizeof(l));
	l.maps = *maps;
	xp_maps_object(maps, "libextprof.so", &l.shim);
	if (!l.shim.found)
		return detach ? xp_err_set(
					e, -ENOENT,
					"%s: process %d (%s) is not attached (it carries no shim)",
					cmd, (int)pid, s->name)
			      : 0;
	err = xp_block_find(pid, &l, &addr, e);
	if (err)
		return err;
	blk = malloc(sizeof(*blk));
	if (!blk)
		return xp_err_set(e, -ENOMEM, "out of memory");
	err = addr ? xp_block_read(pid, addr, blk) : -EPROTO;
	if (err == -EPROTO)
		err = xp_err_set(
			e, -EPROTO,
			"%s: process %d (%s) carries a shim of another version (%s): extprof "
			"%s cannot drive it",
			cmd, (int)pid, s->name, l.shim.path, cmd);
	else if (err)
		err = xp_err_set(e, err, "%s: process %d: reading its shim's state: %s", cmd,
				 (int)pid, strerror(-err));
	else if (blk->state == EXTPROF_ATTACH_PRELOADED)
		err = xp_err_set(
			e, -EBUSY,
			"%s: process %d (%s) carries the shim since it started (LD_PRELOAD "
			"or extprof run): it counts already%s",
			cmd, (int)pid, s->name, detach ? ", it is not an attachment" : "");
	/* PREPARED without a tracer: one died before it wrote the entries */
	else if (!detach && blk->state == EXTPROF_ATTACH_ATTACHED)
		err = xp_err_set(e, -EBUSY,
				 "%s: process %d (%s) is attached already (extprof detach %d ends "
				 "it)",
				 cmd, (int)pid, s->name, (int)pid);
	else if (detach && blk->state != EXTPROF_ATTACH_ATTACHED &&
		 blk->state != EXTPROF_ATTACH_PREPARED)
		err = xp_err_set(e, -ENOENT,
				 "%s: process %d (%s) is not attached (its last "
				 "attachment has ended)",
				 cmd, (int)pid, s->name);
	free(blk);
	return err;
}

int xp_attach_check(pid_t pid, bool detach, struct xp_err *e)
{
	const char *cmd = detach ? "detach" : "attach";
	bool cap = check_have_cap_ptrace();
	struct xp_pstatus s;
	struct xp_maps maps;
	int err;

	if (pid <= 0 || xp_pstatus_read(pid, 0, &s))
		return xp_err_set(e, -ESRCH, "%s: no process %d", cmd, (int)pid);
	if (pid == getpid())
		return xp_err_set(e, -EINVAL, "%s: process %d is extprof itself", cmd, (int)pid);
	/* a zombie leader with threads alive (pthread_exit in main) runs on */
	if (!xp_proc_alive(pid))
		return xp_err_set(e, -ESRCH, "%s: process %d (%s) has exited (a zombie)", cmd,
				  (int)pid, s.name);
	if (!cap && (err = check_users(pid, cmd, &s, e)))
		return err;
	if ((err = check_yama(pid, cmd, cap, false, e)))
		return err;
	if ((err = check_traced(pid, cmd, &s, e)))
		return err;
	if (s.state == 'T' || s.state == 't')
		return xp_err_set(
			e, -EAGAIN,
			"%s: process %d (%s) is stopped: continue it first (kill -CONT %d)", cmd,
			(int)pid, s.name, (int)pid);
	err = xp_maps_read(pid, &maps, e);
	if (err)
		return xp_err_set(e, err, "%s: process %d (%s): %s", cmd, (int)pid, s.name,
				  strerror(-err));
	err = check_program(pid, cmd, &s, &maps, e);
	if (!err)
		err = check_shim(pid, cmd, detach, &s, &maps, e);
	xp_maps_free(&maps);
	return err;
}

int xp_attach_explain_seize(pid_t pid, int err, struct xp_err *e)
{
	bool cap = check_have_cap_ptrace();
	struct xp_pstatus s;
	int r;

	if (xp_pstatus_read(pid, 0, &s) || !xp_proc_alive(pid))
		return xp_err_set(e, -ESRCH, "process %d exited meanwhile", (int)pid);
	if (err == -EPERM) {
		if ((r = check_traced(pid, "attach", &s, e)) ||
		    (!cap && (r = check_users(pid, "attach", &s, e))) ||
		    (r = check_yama(pid, "attach", cap, true, e)))
			return r;
	}
	return xp_err_set(e, err, "process %d (%s): PTRACE_SEIZE: %s", (int)pid, s.name,
			  strerror(-err));
}
