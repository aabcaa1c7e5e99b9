// SPDX-License-Identifier: MIT
/*
 * A C++ target of the attach tests (test_attach.c): 2 threads call
 * at_throw, hooked, which throws one time in three; its caller catches.
 * The shim is not preloaded into it, so the exceptions go through the
 * unwinder's entries that attach redirects to the shim (attach.c).
 *
 *   ./attach-throw SECONDS [STOPFILE]
 *
 * Says "ready", runs, prints one line on stdout and exits 3; calls and
 * throws go to stderr as "checker-truth:" lines.
 */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <thread>
#include <unistd.h>

#include "matrix.h"

static std::atomic<bool> stop;
static std::atomic<unsigned long> calls, throws, wrong;

HOOKED long at_throw(long x)
{
	if (x % 3 == 0)
		throw std::runtime_error("one in three");
	return x * 2;
}

HOOKED long at_catch(long x)
{
	try {
		return at_throw(x);
	} catch (const std::runtime_error &) {
		throws++;
		return -1;
	}
}

static void work(long id)
{
	unsigned long mine = 0;

	while (!stop) {
		for (long i = 0; i < 1000; i++) {
			long r = at_catch(i + id);

			if (r != ((i + id) % 3 ? (i + id) * 2 : -1))
				wrong++;
		}
		mine += 1000;
	}
	calls += mine;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	const char *stopfile = argc > 2 ? argv[2] : nullptr;
	struct timespec start, now, ten_ms = {0, 10000000};

	clock_gettime(CLOCK_MONOTONIC, &start);
	std::thread a(work, 0), b(work, 1);
	printf("ready\n");
	fflush(stdout);
	do {
		nanosleep(&ten_ms, nullptr);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds &&
		 !(stopfile && access(stopfile, F_OK) == 0));
	stop = true;
	a.join();
	b.join();
	TRUTH("truth", "at_catch", calls.load());
	TRUTH("truth", "throws", throws.load());
	printf("attach-throw: %s\n",
	       wrong ? "wrong results" : "every result and exception as it should be");
	return wrong ? 1 : 3;
}
