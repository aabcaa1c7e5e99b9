/* SPDX-License-Identifier: MIT */
/*
 * arch_syscall: the port's system calls made with the instruction itself
 * (arch/<cpu>/syscall.c), a part of arch.h that needs nothing else: what
 * core/sys.h and the shim's dump writer, also built into the analyzer's
 * tests and the merge benchmark's generator, include.
 */
#ifndef EXTPROF_PRELOAD_ARCH_SYSCALL_H
#define EXTPROF_PRELOAD_ARCH_SYSCALL_H

/* System calls without errno: the evaluation path leaves the program's alone. */
long arch_syscall4(long nr, long arg1, long arg2, long arg3, long arg4);
/* The same with six arguments. */
long arch_syscall6(long nr, long arg1, long arg2, long arg3, long arg4, long arg5, long arg6);

#endif
