// SPDX-License-Identifier: MIT
/*
 * Matrix case "recursion": direct recursion (fib), mutual recursion
 * (is_even/is_odd) and recursion deeper than the shim's first shadow stack
 * (down: 80000 activations, on a thread with a big stack).
 *
 * extprof counts a re-entry of a declaration while it is active on the
 * same thread as "recursive", not as an evaluation.  So each function counts
 * its outermost activations ("checker-truth:", what the report's
 * evaluations must be) and all of them ("checker-total:"; recursive must be
 * total - outer).  The depth counters also keep every recursive call a real
 * call: the decrement after it stops the compiler from turning it into a
 * loop.
 */
#include <pthread.h>
#include <stdio.h>

#include "matrix.h"

static unsigned long outer_fib, total_fib, outer_even, total_even, outer_odd, total_odd;
static unsigned long outer_down, total_down;
static int depth_fib, depth_even, depth_odd, depth_down;

HOOKED long fib(int n)
{
	long r;

	total_fib++;
	if (depth_fib++ == 0)
		outer_fib++;
	r = n < 2 ? n : fib(n - 1) + fib(n - 2);
	depth_fib--;
	return r;
}

int is_odd(unsigned n);

HOOKED int is_even(unsigned n)
{
	int r;

	total_even++;
	if (depth_even++ == 0)
		outer_even++;
	r = n == 0 ? 1 : is_odd(n - 1);
	depth_even--;
	return r;
}

HOOKED int is_odd(unsigned n)
{
	int r;

	total_odd++;
	if (depth_odd++ == 0)
		outer_odd++;
	r = n == 0 ? 0 : is_even(n - 1);
	depth_odd--;
	return r;
}

HOOKED unsigned long down(unsigned long n)
{
	unsigned long r;

	total_down++;
	if (depth_down++ == 0)
		outer_down++;
	r = n == 0 ? 0 : down(n - 1) + (n & 3);
	depth_down--;
	return r;
}

static void *deep(void *arg)
{
	unsigned long *r = arg;

	*r = down(80000);
	return NULL;
}

int main(void)
{
	unsigned long deep_r = 0;

	for (int i = 0; i < 3; i++)
		printf("fib(%d) = %ld\n", 18 + i, fib(18 + i));
	printf("fib(1) = %ld\n", fib(1));
	printf("is_even(1000) = %d, is_odd(777) = %d, is_even(7) = %d, is_odd(0) = %d\n",
	       is_even(1000), is_odd(777), is_even(7), is_odd(0));

	/* 80000 frames: more than the shadow stack's first 65536 */
	if (matrix_deep(deep, &deep_r, 64)) {
		printf("pthread failed\n");
		return 3;
	}
	printf("down(80000) = %lu\n", deep_r);

	TRUTH_RECURSIVE("fib", outer_fib, total_fib);
	TRUTH_RECURSIVE("is_even", outer_even, total_even);
	TRUTH_RECURSIVE("is_odd", outer_odd, total_odd);
	TRUTH_RECURSIVE("down", outer_down, total_down);
	return 0;
}
