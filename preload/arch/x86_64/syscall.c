// SPDX-License-Identifier: MIT
/*
 * syscall: system calls made with the instruction itself, which set no
 * errno and are no cancellation point, for the shim's work beside a signal
 * handler, a pending cancellation or a seccomp filter (preload/core/sys.h).
 */
#include "arch/arch.h"

long arch_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

long arch_syscall4(long nr, long a, long b, long c, long d)
{
	return arch_syscall6(nr, a, b, c, d, 0, 0);
}
