// SPDX-License-Identifier: MIT
/*
 * attached: a program that times its own calls, for scripts/bench-attach.sh
 * (one copy started under extprof run, one attached to while it runs).
 *
 *   attached M STOPFILE
 *
 * Says "ready", then, until STOPFILE exists, takes rounds of two loops of
 * M calls each in turn: bench_bare(), never hooked, and bench_hooked(),
 * its twin, hooked under the shim (or not yet).  Every 250 ms of the
 * monotonic clock (a window, numbered from the clock's own zero, so that
 * two processes' windows line up) it prints the least CPU ns per call of
 * each loop over the window's rounds:
 *
 *   window 123456 bare 2.01 hooked 31.0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define BENCH_FN __attribute__((noinline, used))
#else
#define BENCH_FN __attribute__((noinline, noipa, used))
#endif

#define WINDOW_NS 250000000.0

/* Not empty: a function of one instruction is too short to patch. */
static __thread uint64_t hooked_calls, bare_calls;

BENCH_FN void bench_hooked(void)
{
	hooked_calls++;
}

BENCH_FN void bench_bare(void)
{
	bare_calls++;
}

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t m = argc > 1 ? strtoull(argv[1], NULL, 0) : 0;
	double bare = 1e30, hooked = 1e30;
	long window;

	if (argc != 3 || !m) {
		fprintf(stderr, "usage: attached CALLS STOPFILE\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	window = (long)(now_ns(CLOCK_MONOTONIC) / WINDOW_NS);
	while (access(argv[2], F_OK)) {
		double t0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t1, t2;
		long w;

		for (uint64_t i = 0; i < m; i++)
			bench_bare();
		t1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (uint64_t i = 0; i < m; i++)
			bench_hooked();
		t2 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		if ((t1 - t0) / (double)m < bare)
			bare = (t1 - t0) / (double)m;
		if ((t2 - t1) / (double)m < hooked)
			hooked = (t2 - t1) / (double)m;
		w = (long)(now_ns(CLOCK_MONOTONIC) / WINDOW_NS);
		if (w != window) {
			printf("window %ld bare %.3f hooked %.3f\n", window, bare, hooked);
			fflush(stdout);
			window = w;
			bare = hooked = 1e30;
		}
	}
	return 0;
}
