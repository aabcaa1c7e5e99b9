/* SPDX-License-Identifier: MIT */
/*
 * sys: the system calls the shim makes for its own files and memory,
 * straight to the kernel through the architecture's arch_syscall (arch.h), not through
 * libc.  libc's open, read, write and close are cancellation points: with
 * a pthread_cancel pending, the shim's own open() would cancel the thread
 * there, inside the shim, and the thread would unwind through the thunks.
 * A raw call is no cancellation point, and leaves errno alone.  Each
 * returns what the kernel does: the result, or -errno.
 */
#ifndef EXTPROF_PRELOAD_SYS_H
#define EXTPROF_PRELOAD_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "arch/arch_syscall.h"

/* open(2) of @path relative to the current directory. */
static inline int sys_open(const char *path, int flags, int mode)
{
	return (int)arch_syscall4(SYS_openat, AT_FDCWD, (long)path, flags, mode);
}

/* close(2). */
static inline int sys_close(int fd)
{
	return (int)arch_syscall4(SYS_close, fd, 0, 0, 0);
}

/* read(2), retried when a signal interrupts it. */
static inline long sys_read(int fd, void *buf, size_t len)
{
	long n;

	do
		n = arch_syscall4(SYS_read, fd, (long)buf, (long)len, 0);
	while (n == -EINTR);
	return n;
}

/* write(2), retried when a signal interrupts it. */
static inline long sys_write(int fd, const void *buf, size_t len)
{
	long n;

	do
		n = arch_syscall4(SYS_write, fd, (long)buf, (long)len, 0);
	while (n == -EINTR);
	return n;
}

/* mprotect(2): the shim's own memory and the code it patches, not seen as
 * the program's (steps/xlate_guard.c's wrapper is the program's). */
static inline int sys_mprotect(void *addr, size_t len, int prot)
{
	return (int)arch_syscall4(SYS_mprotect, (long)addr, (long)len, prot, 0);
}

/* munmap(2) of the shim's own memory, as sys_mprotect. */
static inline int sys_munmap(void *addr, size_t len)
{
	return (int)arch_syscall4(SYS_munmap, (long)addr, (long)len, 0, 0);
}

#endif
