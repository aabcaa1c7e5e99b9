// SPDX-License-Identifier: MIT
/*
 * A program with many functions, of which its threads call a few: what a
 * large library looks like to the shim when `function:many_*` hooks them
 * all (tests/integration/test_rows.c).
 *
 *   ./many THREADS [hold]
 *
 * many_0000 ... many_3777 (octal: 2048 functions) each add (n % 7) + 1 to
 * the thread-local many_work; thread t (of THREADS) calls many_0000 500
 * times, many_{10t+1}, many_{10t+2}, many_{10t+3} 1000 times each, and
 * many_vary(k) once for each k from 1 to 100 (k units).  With "hold", the
 * program prints "ready" once its threads are done and waits for SIGUSR1
 * before it exits: the test looks at the live dumps meanwhile.  The calls
 * are counted on stderr as "checker-truth: SYMBOL COUNT".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

__thread unsigned long long many_work;

#define F(n)                                                                                       \
	HOOKED void many_##n(void)                                                                 \
	{                                                                                          \
		many_work += (0##n) % 7 + 1;                                                       \
	}
#define F8(p)	F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7)
#define F64(p)	F8(p##0) F8(p##1) F8(p##2) F8(p##3) F8(p##4) F8(p##5) F8(p##6) F8(p##7)
#define F512(p) F64(p##0) F64(p##1) F64(p##2) F64(p##3) F64(p##4) F64(p##5) F64(p##6) F64(p##7)
/* macros that expand to functions and a table: clang-format reads them as statements */
/* clang-format off */
F512(0) F512(1) F512(2) F512(3)

#define P(n)	many_##n,
#define P8(p)	P(p##0) P(p##1) P(p##2) P(p##3) P(p##4) P(p##5) P(p##6) P(p##7)
#define P64(p)	P8(p##0) P8(p##1) P8(p##2) P8(p##3) P8(p##4) P8(p##5) P8(p##6) P8(p##7)
#define P512(p) P64(p##0) P64(p##1) P64(p##2) P64(p##3) P64(p##4) P64(p##5) P64(p##6) P64(p##7)
static void (*const many[2048])(void) = {P512(0) P512(1) P512(2) P512(3)};
/* clang-format on */

static unsigned long n_vary;
/* all threads alive at once, from before their first call to after their last: a worker each */
static pthread_barrier_t start, end;

HOOKED void many_vary(unsigned k)
{
	many_work += k;
	__atomic_add_fetch(&n_vary, 1, __ATOMIC_RELAXED);
}

static void *thread_main(void *arg)
{
	unsigned t = (unsigned)(unsigned long)arg;

	pthread_barrier_wait(&start);
	for (int i = 0; i < 500; i++)
		many[0]();
	for (unsigned k = 0; k < 3; k++)
		for (int i = 0; i < 1000; i++)
			many[10 * t + k + 1]();
	for (unsigned k = 1; k <= 100; k++)
		many_vary(k);
	pthread_barrier_wait(&end);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
	pthread_t th[64];
	sigset_t usr1;

	if (n < 1 || n > 64)
		return 2;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_barrier_init(&start, NULL, n);
	pthread_barrier_init(&end, NULL, n);
	for (unsigned t = 0; t < n; t++)
		pthread_create(&th[t], NULL, thread_main, (void *)(unsigned long)t);
	for (unsigned t = 0; t < n; t++)
		pthread_join(th[t], NULL);
	printf("%u threads called %u of %zu functions\n", n, 3 * n + 2,
	       sizeof(many) / sizeof(many[0]) + 1);
	if (argc > 2 && !strcmp(argv[2], "hold")) {
		int sig;

		printf("ready\n");
		fflush(stdout);
		sigwait(&usr1, &sig);
	}
	TRUTH("truth", "many_0000", 500ull * n);
	for (unsigned t = 0; t < n; t++)
		for (unsigned k = 0; k < 3; k++) {
			char name[16];

			snprintf(name, sizeof(name), "many_%04o", 10 * t + k + 1);
			TRUTH("truth", name, 1000);
		}
	TRUTH("truth", "many_vary", n_vary);
	return 0;
}
