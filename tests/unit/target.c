// SPDX-License-Identifier: MIT
/*
 * target: a small program for the tests that run the real shim (callers,
 * diff, run --repeat).  Every unit of work advances xt_work, the counter of
 * EXTPROF_COUNTER=var:xt_work, so every figure is exact:
 *
 *   pred(x)    x units; from_a() calls pred(10), from_b() calls pred(30)
 *   check(k)   k units, or 2k when built with -DXT_SLOW
 *
 *   target [N]   N calls of from_a(), 2N of from_b(), N of check(5)
 *
 * The calls are kept out of tail position, so each caller has a frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t xt_work;

#define KEEP() __asm__ volatile("" ::: "memory")

static void charge(uint64_t k)
{
	for (uint64_t i = 0; i < k; i++) {
		xt_work++;
		KEEP();
	}
}

__attribute__((noinline)) void pred(uint64_t x)
{
	charge(x);
}

__attribute__((noinline)) void from_a(void)
{
	pred(10);
	KEEP();
}

__attribute__((noinline)) void from_b(void)
{
	pred(30);
	KEEP();
}

__attribute__((noinline)) void check(uint64_t k)
{
#ifdef XT_SLOW
	charge(2 * k);
#else
	charge(k);
#endif
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;

	for (long i = 0; i < n; i++)
		from_a();
	for (long i = 0; i < 2 * n; i++)
		from_b();
	for (long i = 0; i < n; i++)
		check(5);
	printf("target %ld\n", n);
	return argc > 2 ? atoi(argv[2]) : 0;
}
