// SPDX-License-Identifier: MIT
/*
 * window_exit: a thread that ends inside the window function, for
 * tests/integration/test_window.c.  With EXTPROF_WINDOW=win_body and
 * EXTPROF_COUNTER=var:we_units:
 *
 *   main     N calls of we_leaf(3)                      outside the window
 *   thread   win_body(): N calls of we_leaf(3), then    inside
 *            pthread_exit (MODE "exit") or a longjmp out of win_body back
 *            to the thread's start, which returns (MODE "longjmp")
 *   thread   N calls of we_leaf(3), after the first has ended  outside
 *   main     N calls of we_leaf(3)                      outside
 *
 *   window_exit exit|longjmp [N]
 *
 * stderr ends with "checker-truth: we_leaf COUNT" (every completed call).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

/* the counter: units of work, thread-local so that threads never race on it */
__thread uint64_t we_units;

static uint64_t leaf_calls;
static long n = 100;
static int use_longjmp;
static __thread jmp_buf *we_out;

HOOKED void we_leaf(uint64_t k)
{
	we_units += k;
	__atomic_add_fetch(&leaf_calls, 1, __ATOMIC_RELAXED);
}

static void leaves(void)
{
	for (long i = 0; i < n; i++)
		we_leaf(3);
}

/* The window function: its thread ends before it returns. */
HOOKED void win_body(void)
{
	leaves();
	if (use_longjmp)
		longjmp(*we_out, 1);
	pthread_exit(NULL);
}

static void *in_window(void *arg)
{
	jmp_buf out;

	(void)arg;
	we_out = &out;
	if (!setjmp(out))
		win_body();
	return NULL;
}

static void *after_window(void *arg)
{
	(void)arg;
	leaves();
	return NULL;
}

static int run_thread(void *(*fn)(void *))
{
	pthread_t th;

	if (pthread_create(&th, NULL, fn, NULL))
		return -1;
	return pthread_join(th, NULL) ? -1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "exit") && strcmp(argv[1], "longjmp"))) {
		fprintf(stderr, "usage: window_exit exit|longjmp [N]\n");
		return 2;
	}
	use_longjmp = !strcmp(argv[1], "longjmp");
	if (argc > 2)
		n = atol(argv[2]);
	leaves();
	if (run_thread(in_window) || run_thread(after_window)) {
		fprintf(stderr, "window_exit: cannot run a thread\n");
		return 1;
	}
	leaves();
	printf("done\n");
	TRUTH("truth", "we_leaf", leaf_calls);
	return 0;
}
