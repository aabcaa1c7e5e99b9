// SPDX-License-Identifier: MIT
/*
 * syscall: system calls made with the instruction itself, which set no
 * errno and are no cancellation point, for the shim's work beside a signal
 * handler, a pending cancellation or a seccomp filter (preload/core/sys.h).
 */
#include "arch/arch_syscall.h"

long arch_syscall6(long nr, long arg1, long arg2, long arg3, long arg4, long arg5, long arg6)
{
	register long r10 __asm__("r10") = arg4;
	register long r8 __asm__("r8") = arg5;
	register long r9 __asm__("r9") = arg6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(arg1), "S"(arg2), "d"(arg3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

long arch_syscall4(long nr, long arg1, long arg2, long arg3, long arg4)
{
	return arch_syscall6(nr, arg1, arg2, arg3, arg4, 0, 0);
}
