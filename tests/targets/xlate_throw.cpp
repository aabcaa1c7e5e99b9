// SPDX-License-Identifier: MIT
/*
 * xlate_throw: C++ exceptions through functions the steps counter's code
 * cache runs (tests/integration/test_translate.c):
 *
 *   xt_thrower(v)    throws for an odd v, else returns it
 *   xt_catcher(v)    calls xt_thrower and catches: the exception starts and
 *                    lands inside one evaluation
 *   xt_escape(v)     calls xt_thrower and does not catch: the exception
 *                    leaves the evaluation, main catches it
 *
 *   xlate_throw [N]  N rounds of both; stdout is deterministic
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" __attribute__((noinline)) int xt_thrower(int v)
{
	if (v & 1)
		throw std::runtime_error("odd");
	return v;
}

extern "C" __attribute__((noinline)) int xt_catcher(int v)
{
	try {
		return xt_thrower(v) * 2;
	} catch (const std::exception &) {
		return -v;
	}
}

extern "C" __attribute__((noinline)) int xt_escape(int v)
{
	return xt_thrower(v) + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 4;

	for (long i = 0; i < n; i++) {
		int a = xt_catcher((int)i), b;

		try {
			b = xt_escape((int)i);
		} catch (const std::exception &e) {
			b = -1000;
		}
		std::printf("round %ld: caught %d, escaped %d\n", i, a, b);
	}
	return 0;
}
