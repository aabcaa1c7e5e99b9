// SPDX-License-Identifier: MIT
/*
 * Matrix case "tailcall": hooked functions that leave by a tail call (jmp)
 * into other hooked functions, through an unhooked one, and a mutual
 * tail recursion 200000 calls long (every link is a jmp at -O2: the shim's
 * shadow stack holds 200000 activations sharing one return slot).
 *
 * gcc 12 -O2 (tailcall-gcc-O2-pie-nocet, objdump -d): every link is a
 * jmp, here a 2-byte jmp rel8, to the entry of the next function, which the
 * shim has patched (and every entry starts with a rip-relative addq with an
 * imm8 after its disp32, which the shim moves):
 *
 *   13d0 <tc_c>:   48 83 05 b0 2c 00 00 01   addq   $0x1,0x2cb0(%rip)  # n_c
 *                  48 8d 44 7f 01            lea    0x1(%rdi,%rdi,2),%rax
 *                  c3                        ret
 *   13e0 <tc_b>:   48 83 05 a8 2c 00 00 01   addq   $0x1,0x2ca8(%rip)  # n_b
 *                  48 83 c7 01               add    $0x1,%rdi
 *                  eb e2                     jmp    13d0 <tc_c>
 *   13f0 <tc_a>:   48 83 05 a0 2c 00 00 01   addq   $0x1,0x2ca0(%rip)  # n_a
 *                  48 83 f7 05               xor    $0x5,%rdi
 *                  eb e2                     jmp    13e0 <tc_b>
 *   1400 <unhooked_hop>: 48 01 ff            add    %rdi,%rdi
 *                  eb cb                     jmp    13d0 <tc_c>
 *   1410 <tc_via>: 48 83 05 68 2c 00 00 01   addq   $0x1,0x2c68(%rip)  # n_via
 *                  48 83 ef 02               sub    $0x2,%rdi
 *                  eb e2                     jmp    1400 <unhooked_hop>
 *   1420 <tc_odd>: ...  1430: 48 83 ef 01    sub    $0x1,%rdi
 *                       1434: eb 0a          jmp    1440 <tc_even>
 *   1440 <tc_even>: ... 1458: 48 83 ef 01    sub    $0x1,%rdi
 *                       145c: eb c2          jmp    1420 <tc_odd>
 *
 * The test checks with objdump that tc_a and tc_b jump in every -O2 and
 * -O3 cell, gcc and clang; at -O0 these are calls, which must count the same.
 *
 * Evaluations: a tail-called function's activation is its own evaluation.
 * In the mutual recursion only the first activation of each function is an
 * evaluation; the others are re-entries while it is active ("recursive"),
 * whether the links are calls (-O0) or jumps (-O2).
 */
#include <pthread.h>
#include <stdio.h>

#include "matrix.h"

static unsigned long n_a, n_b, n_c, n_via, n_even, n_odd;

HOOKED long tc_c(long x)
{
	n_c++;
	return x * 3 + 1;
}

HOOKED long tc_b(long x)
{
	n_b++;
	return tc_c(x + 1);
}

HOOKED long tc_a(long x)
{
	n_a++;
	return tc_b(x ^ 5);
}

HOOKED long unhooked_hop(long x)
{
	return tc_c(x * 2);
}

HOOKED long tc_via(long x)
{
	n_via++;
	return unhooked_hop(x - 2);
}

long tc_odd(unsigned long n);

HOOKED long tc_even(unsigned long n)
{
	n_even++;
	if (n == 0)
		return 1;
	return tc_odd(n - 1);
}

HOOKED long tc_odd(unsigned long n)
{
	n_odd++;
	if (n == 0)
		return 0;
	return tc_even(n - 1);
}

static void *chain(void *arg)
{
	long *r = arg;

	*r = tc_even(200000);
	return NULL;
}

int main(void)
{
	unsigned long outer_even = 0, outer_odd = 0;
	long sum = 0, r = 0;

	for (long i = 0; i < 1000; i++)
		sum += tc_a(i) + tc_via(i) + tc_b(i);
	printf("sum %ld\n", sum);

	for (unsigned long n = 0; n < 50; n++) {
		sum += tc_even(n) + 2 * tc_odd(n);
		outer_even++;
		outer_odd++;
		/* the first activation of the other function: an evaluation too */
		outer_odd += n > 0;
		outer_even += n > 0;
	}
	printf("parity %ld\n", sum);

	/* at -O0 these are 200000 real frames: a big stack */
	if (matrix_deep(chain, &r, 128)) {
		printf("pthread failed\n");
		return 3;
	}
	outer_even++;
	outer_odd++;
	printf("tc_even(200000) = %ld\n", r);

	TRUTH("truth", "tc_a", n_a);
	TRUTH("truth", "tc_b", n_b);
	TRUTH("truth", "tc_c", n_c);
	TRUTH("truth", "tc_via", n_via);
	TRUTH_RECURSIVE("tc_even", outer_even, n_even);
	TRUTH_RECURSIVE("tc_odd", outer_odd, n_odd);
	return 0;
}
