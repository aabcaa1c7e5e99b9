// SPDX-License-Identifier: MIT
/*
 * Matrix case "exceptions": C++ exceptions thrown through hooked frames.
 *
 *   ex_catcher > ex_middle > ex_thrower   thrown in ex_thrower, through
 *                                         ex_middle (a destructor runs on
 *                                         the way), caught in ex_catcher
 *   main > ex_thrower                     caught in main (unhooked)
 *   ex_inside                             thrown and caught in one hooked
 *                                         function: no hooked frame crossed
 *   ex_rethrow > ex_thrower               caught, then rethrown with throw;
 *
 * Activations an exception leaves are "abandoned"; the program's output
 * must be the same as without the shim.  The hooked functions are extern
 * "C" so that the hooks and the report use plain names.
 */
#include <cstdio>
#include <stdexcept>

#include "matrix.h"

enum { F_THROWER, F_MIDDLE, F_CATCHER, F_INSIDE, F_RETHROW, F_N };
static const char *const names[F_N] = {"ex_thrower", "ex_middle", "ex_catcher", "ex_inside",
				       "ex_rethrow"};
static unsigned long evals[F_N], left[F_N];
static long destroyed;

struct Guard {
	long v;
	explicit Guard(long x) : v(x) {}
	~Guard() { destroyed += v; }
};

extern "C" {

HOOKED int ex_thrower(int x)
{
	if (x % 3 == 0) {
		left[F_THROWER]++;
		throw std::runtime_error("multiple of three");
	}
	evals[F_THROWER]++;
	return x * 2;
}

HOOKED int ex_middle(int x)
{
	Guard g(x);
	int r = ex_thrower(x) + 1; /* an exception leaves through here */

	evals[F_MIDDLE]++;
	return r;
}

HOOKED int ex_catcher(int x)
{
	int r;

	try {
		r = ex_middle(x);
	} catch (const std::runtime_error &) {
		left[F_MIDDLE]++;
		r = -1;
	}
	evals[F_CATCHER]++;
	return r;
}

HOOKED int ex_inside(int x)
{
	int r;

	try {
		if (x & 1)
			throw x;
		r = x;
	} catch (int v) {
		r = -v;
	}
	evals[F_INSIDE]++;
	return r;
}

HOOKED int ex_rethrow(int x)
{
	try {
		return ex_thrower(x);
	} catch (...) {
		left[F_RETHROW]++;
		throw;
	}
}
}

int main()
{
	long sum = 0, caught = 0;

	for (int i = 0; i < 60; i++) {
		sum += ex_catcher(i);
		sum += ex_inside(i);
		try {
			sum += ex_thrower(i + 1);
		} catch (const std::exception &e) {
			caught++;
		}
		try {
			sum += ex_rethrow(i + 2);
			evals[F_RETHROW]++;
		} catch (const std::runtime_error &e) {
			caught += 10;
		}
	}
	std::printf("sum %ld caught %ld destroyed %ld\n", sum, caught, destroyed);
	for (int f = 0; f < F_N; f++) {
		TRUTH("truth", names[f], evals[f]);
		TRUTH("abandoned", names[f], left[f]);
	}
	return 0;
}
