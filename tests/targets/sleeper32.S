/* SPDX-License-Identifier: MIT */
/*
 * An i386 process, static, without libc, for the attach tests' "another
 * architecture" refusal: it says "ready", sleeps 30 s, and exits 0.
 */
	.text
	.globl _start
_start:
	movl $4, %eax		/* write(1, ready, 6) */
	movl $1, %ebx
	movl $ready, %ecx
	movl $6, %edx
	int $0x80
	movl $162, %eax		/* nanosleep(&thirty, NULL) */
	movl $thirty, %ebx
	xorl %ecx, %ecx
	int $0x80
	movl $1, %eax		/* exit(0) */
	xorl %ebx, %ebx
	int $0x80

	.data
ready:	.ascii "ready\n"
thirty:	.long 30, 0

	.section .note.GNU-stack,"",@progbits
