// SPDX-License-Identifier: MIT
/*
 * call: what one call of a trivial function costs, for
 * scripts/bench-overhead.sh.
 *
 *   call plain M T    T threads each call bench_empty() M times
 *   call floor M T    the same, each call between two rdtsc, the delta
 *                     summed: the least any counting hook must do
 *
 * Run "plain" under the shim with bench_empty hooked to time the hook.
 * Prints the CPU time per call (every thread's, from
 * CLOCK_THREAD_CPUTIME_ID around its own loop, so start-up and exit are not
 * in it) and the wall time per call, in ns:
 *
 *   cpu_ns 3.12 wall_ns 3.15
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__clang__)
#define BENCH_FN __attribute__((noinline, used))
#else
#define BENCH_FN __attribute__((noinline, noipa, used))
#endif

/* Not empty: a function of one instruction is too short to patch. */
static __thread uint64_t bench_calls;
static __thread uint64_t bench_ticks;

BENCH_FN void bench_empty(void)
{
	bench_calls++;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

struct job {
	pthread_t th;
	int floor;
	uint64_t m;
	double cpu_ns;
};

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *job_run(void *arg)
{
	struct job *j = arg;
	double t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);

	if (j->floor) {
		for (uint64_t i = 0; i < j->m; i++) {
			uint64_t t = rdtsc();

			bench_empty();
			bench_ticks += rdtsc() - t;
		}
	} else {
		for (uint64_t i = 0; i < j->m; i++)
			bench_empty();
	}
	j->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	struct job *jobs;
	double w0, cpu = 0;
	uint64_t m;
	long t;

	if (argc != 4 || (strcmp(argv[1], "plain") && strcmp(argv[1], "floor"))) {
		fprintf(stderr, "usage: call plain|floor CALLS THREADS\n");
		return 2;
	}
	m = strtoull(argv[2], NULL, 0);
	t = strtol(argv[3], NULL, 0);
	if (!m || t < 1 || t > 1024)
		return 2;
	jobs = calloc((size_t)t, sizeof(*jobs));
	if (!jobs)
		return 3;
	w0 = now_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < t; i++) {
		jobs[i].floor = !strcmp(argv[1], "floor");
		jobs[i].m = m;
		if (pthread_create(&jobs[i].th, NULL, job_run, &jobs[i]))
			return 3;
	}
	for (long i = 0; i < t; i++) {
		pthread_join(jobs[i].th, NULL);
		cpu += jobs[i].cpu_ns;
	}
	printf("cpu_ns %.2f wall_ns %.2f\n", cpu / ((double)m * t),
	       (now_ns(CLOCK_MONOTONIC) - w0) / ((double)m * t));
	free(jobs);
	return 0;
}
