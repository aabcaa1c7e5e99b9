// SPDX-License-Identifier: MIT
/*
 * call: what one call of a trivial function costs, for
 * scripts/bench-overhead.sh.
 *
 *   call plain M T    T threads each call bench_empty() M times
 *   call floor M T    the same, each call between two ordered reads of the
 *                     TSC, the delta summed: the least any hook that counts
 *                     what the call costs must do
 *   call pair M R     one thread, R rounds of four loops of M calls side by
 *                     side: bench_bare(), its twin that is never hooked;
 *                     bench_bare() between two ordered reads (the floor);
 *                     bench_bare() between two bare rdtsc (what the floor
 *                     was before the reads were ordered); and bench_empty()
 *                     (hooked, under the shim)
 *
 * The ordered reads are the shim's (preload/count/counter_read.h): lfence; rdtsc
 * before the call and lfence after it; lfence before the second rdtsc.
 *
 * Run "plain" and "pair" under the shim with bench_empty hooked to time the
 * hook.  plain and floor print the CPU time per call (every thread's, from
 * CLOCK_THREAD_CPUTIME_ID around its own loop, so start-up and exit are not
 * in it) and the wall time per call, in ns:
 *
 *   cpu_ns 3.12 wall_ns 3.15
 *
 * pair prints, per loop, the least and the median CPU ns per call over the
 * rounds.  Why rounds: on a VM the host's other work (another guest on the
 * same core's sibling thread) slows a long loop of short instructions for
 * seconds at a time, and the hook more than the floor, which waits on
 * rdtsc; loops taken in turn see the same machine.
 *
 *   bare_min 2.01 bare_med 2.10 floor_min 24.7 floor_med 25.2 raw_min 17.1 raw_med 17.3
 *   hook_min 31.0 hook_med 33.9
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
static __thread uint64_t bench_bare_calls;
static __thread uint64_t bench_ticks;

BENCH_FN void bench_empty(void)
{
	bench_calls++;
}

/* The same work on another variable, so that no compiler folds the two. */
BENCH_FN void bench_bare(void)
{
	bench_bare_calls++;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The read before a call: after everything before it, and the call after it. */
static inline uint64_t rdtsc_before(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* The read after a call: after everything the call did. */
static inline uint64_t rdtsc_after(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
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
			uint64_t t = rdtsc_before();

			bench_empty();
			bench_ticks += rdtsc_after() - t;
		}
	} else {
		for (uint64_t i = 0; i < j->m; i++)
			bench_empty();
	}
	j->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

static int pair_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The least and the median of @n per-call times, sorted in place. */
static void pair_print(const char *name, double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), pair_cmp);
	printf("%s_min %.2f %s_med %.2f ", name, v[0], name, v[n / 2]);
}

static int pair_run(uint64_t m, long rounds)
{
	double *bare = calloc((size_t)rounds * 4, sizeof(double)), *floor, *raw, *hook;

	if (!bare)
		return 3;
	floor = bare + rounds;
	raw = floor + rounds;
	hook = raw + rounds;
	for (long r = 0; r < rounds; r++) {
		double t0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t1, t2, t3, t4;

		for (uint64_t i = 0; i < m; i++)
			bench_bare();
		t1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (uint64_t i = 0; i < m; i++) {
			uint64_t t = rdtsc_before();

			bench_bare();
			bench_ticks += rdtsc_after() - t;
		}
		t2 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (uint64_t i = 0; i < m; i++) {
			uint64_t t = rdtsc();

			bench_bare();
			bench_ticks += rdtsc() - t;
		}
		t3 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (uint64_t i = 0; i < m; i++)
			bench_empty();
		t4 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		bare[r] = (t1 - t0) / (double)m;
		floor[r] = (t2 - t1) / (double)m;
		raw[r] = (t3 - t2) / (double)m;
		hook[r] = (t4 - t3) / (double)m;
	}
	pair_print("bare", bare, rounds);
	pair_print("floor", floor, rounds);
	pair_print("raw", raw, rounds);
	pair_print("hook", hook, rounds);
	printf("\n");
	free(bare);
	return 0;
}

int main(int argc, char **argv)
{
	struct job *jobs;
	double w0, cpu = 0;
	uint64_t m;
	long t;

	if (argc != 4 ||
	    (strcmp(argv[1], "plain") && strcmp(argv[1], "floor") && strcmp(argv[1], "pair"))) {
		fprintf(stderr, "usage: call plain|floor CALLS THREADS | call pair CALLS ROUNDS\n");
		return 2;
	}
	m = strtoull(argv[2], NULL, 0);
	t = strtol(argv[3], NULL, 0);
	if (!strcmp(argv[1], "pair"))
		return m && t > 0 ? pair_run(m, t) : 2;
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
