// SPDX-License-Identifier: MIT
/*
 * target: a small program for the tests that run the real shim (callers,
 * diff, run --repeat).  Every unit of work advances xt_work, the counter of
 * EXTPROF_COUNTER=var:xt_work, so every figure is exact:
 *
 *   pred(x)    x units; from_a() calls pred(10), from_b() calls pred(30)
 *   check(k)   k units, or 2k when built with -DXT_SLOW
 *
 *   cold_00() ... cold_19() each call pred(1)
 *
 *   target [N [STATUS [cold]]]   with "cold", one call of each cold_NN()
 *                                first; then N calls of from_a(), 2N of
 *                                from_b(), N of check(5); exit STATUS
 *
 * The calls are kept out of tail position, so each caller has a frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Twenty callers of pred(1), each a chain of its own, to fill the shim's slots. */
#define COLD(n)                                                                                    \
	__attribute__((noinline)) void cold_##n(void)                                              \
	{                                                                                          \
		pred(1);                                                                           \
		KEEP();                                                                            \
	}
COLD(00)
COLD(01)
COLD(02)
COLD(03)
COLD(04)
COLD(05)
COLD(06)
COLD(07)
COLD(08)
COLD(09)
COLD(10)
COLD(11)
COLD(12)
COLD(13)
COLD(14)
COLD(15)
COLD(16)
COLD(17)
COLD(18)
COLD(19)

static void (*const colds[])(void) = {
	cold_00, cold_01, cold_02, cold_03, cold_04, cold_05, cold_06, cold_07, cold_08, cold_09,
	cold_10, cold_11, cold_12, cold_13, cold_14, cold_15, cold_16, cold_17, cold_18, cold_19,
};

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

	for (size_t i = 0; argc > 3 && !strcmp(argv[3], "cold") && i < 20; i++)
		colds[i]();
	for (long i = 0; i < n; i++)
		from_a();
	for (long i = 0; i < 2 * n; i++)
		from_b();
	for (long i = 0; i < n; i++)
		check(5);
	printf("target %ld\n", n);
	return argc > 2 ? atoi(argv[2]) : 0;
}
