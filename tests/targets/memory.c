// SPDX-License-Identifier: MIT
/*
 * The program of the address-space tests (tests/integration/test_memory.c):
 * what a program does that needs its address space, under a limit.
 *
 *   ./memory big THREADS MIB   THREADS threads each call xm_work 1000 times
 *                              and xm_other once; then malloc MIB MiB and
 *                              touch every page of it: "malloc failed",
 *                              status 1, when it cannot
 *   ./memory tight             xm_work 10 times; then RLIMIT_AS set 1 MiB
 *                              above the address space in use, a thread on
 *                              a 64 KiB stack calls xm_other 100 times,
 *                              and xm_work 10 times more: natively nothing
 *                              of this needs more room
 *
 * stdout is the same whatever the shim does; the hooked functions' own
 * counts go to stderr as "checker-truth: SYMBOL COUNT", and the process's
 * VmPeak, from /proc/self/status, as "checker-vmpeak: kB KB".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "matrix.h"

static unsigned long n_work, n_other;

HOOKED long xm_work(long x)
{
	__atomic_add_fetch(&n_work, 1, __ATOMIC_RELAXED);
	return x * 3 + 1;
}

HOOKED long xm_other(long x)
{
	__atomic_add_fetch(&n_other, 1, __ATOMIC_RELAXED);
	return x ^ 5;
}

/* The kB of /proc/self/status's line @key ("VmPeak"), or 0. */
static unsigned long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long kb = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			kb = strtoul(line + strlen(key) + 1, NULL, 10);
	}
	if (f)
		fclose(f);
	return kb;
}

static void *big_thread(void *arg)
{
	long sum = xm_other((long)arg);

	for (long i = 0; i < 1000; i++)
		sum += xm_work(i);
	return (void *)sum;
}

static int big_mode(int threads, size_t mib)
{
	pthread_t t[64];
	long sum = 0;
	char *p;

	if (threads > 64)
		threads = 64;
	for (int i = 0; i < threads; i++) {
		if (pthread_create(&t[i], NULL, big_thread, (void *)(long)i)) {
			printf("pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (long)r;
	}
	p = malloc(mib << 20);
	if (!p) {
		printf("%d threads, sum %ld; malloc failed\n", threads, sum);
		return 1;
	}
	memset(p, 1, mib << 20);
	printf("%d threads, sum %ld; malloc of %zu MiB touched\n", threads, sum, mib);
	free(p);
	return 0;
}

static void *tight_thread(void *arg)
{
	long sum = 0;

	(void)arg;
	for (long i = 0; i < 100; i++)
		sum += xm_other(i);
	return (void *)sum;
}

static int tight_mode(void)
{
	struct rlimit rl;
	pthread_attr_t attr;
	pthread_t t;
	long sum = 0;
	void *r;

	for (long i = 0; i < 10; i++)
		sum += xm_work(i);
	rl.rlim_cur = rl.rlim_max = (status_kb("VmSize") << 10) + (1u << 20);
	if (setrlimit(RLIMIT_AS, &rl)) {
		printf("setrlimit failed\n");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	if (pthread_create(&t, &attr, tight_thread, NULL)) {
		printf("pthread_create failed\n");
		return 1;
	}
	pthread_join(t, &r);
	sum += (long)r;
	for (long i = 0; i < 10; i++)
		sum += xm_work(i);
	printf("sum %ld, within 1 MiB more address space\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 3 && !strcmp(argv[1], "big"))
		ret = big_mode(atoi(argv[2]), strtoul(argv[3], NULL, 10));
	else if (argc > 1 && !strcmp(argv[1], "tight"))
		ret = tight_mode();
	else
		fprintf(stderr, "usage: memory big THREADS MIB | tight\n");
	TRUTH("truth", "xm_work", n_work);
	TRUTH("truth", "xm_other", n_other);
	TRUTH("vmpeak", "kB", status_kb("VmPeak"));
	return ret;
}
