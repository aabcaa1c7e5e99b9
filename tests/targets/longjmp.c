// SPDX-License-Identifier: MIT
/*
 * Matrix case "longjmp": hooked activations left by longjmp and siglongjmp.
 * Each one left is "abandoned" in the report (docs/report.md: it never returned); the
 * program must behave exactly as without the shim, and the same functions
 * called normally afterwards count as evaluations again (not as recursive
 * re-entries of the activations that were left).
 *
 *   ./longjmp          longjmp out of lj_dive3 (lj_dive1 > lj_dive2 > lj_dive3),
 *                      siglongjmp out of a SIGUSR1 handler (lj_handler) that
 *                      interrupted lj_sig_work, each 100 times, each followed
 *                      by normal calls of the same functions from main
 *   ./longjmp deeper   after the longjmp, the normal calls come from a frame
 *                      deeper on the stack than the activations that were left
 *   ./longjmp altstack siglongjmp out of a handler running on a sigaltstack
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

enum { F_DIVE1, F_DIVE2, F_DIVE3, F_LEAF, F_SIGWORK, F_HANDLER, F_N };
static const char *const names[F_N] = {"lj_dive1", "lj_dive2",	  "lj_dive3",
				       "lj_leaf",  "lj_sig_work", "lj_handler"};
static unsigned long evals[F_N], left[F_N];

static jmp_buf env;
static sigjmp_buf senv;
static volatile sig_atomic_t jumping;

HOOKED long lj_leaf(long x)
{
	evals[F_LEAF]++;
	return x + 1;
}

HOOKED long lj_dive3(long x, int jump)
{
	if (jump) {
		left[F_DIVE3]++;
		left[F_DIVE2]++;
		left[F_DIVE1]++;
		longjmp(env, (int)x + 1);
	}
	evals[F_DIVE3]++;
	return x * 2;
}

HOOKED long lj_dive2(long x, int jump)
{
	long r = lj_leaf(x);

	r = lj_dive3(r, jump) + 1;
	evals[F_DIVE2]++;
	return r;
}

HOOKED long lj_dive1(long x, int jump)
{
	long r = lj_dive2(x, jump) + 1;

	evals[F_DIVE1]++;
	return r;
}

HOOKED void lj_handler(int sig)
{
	(void)sig;
	if (jumping) {
		left[F_HANDLER]++;
		left[F_SIGWORK]++;
		siglongjmp(senv, 1);
	}
	evals[F_HANDLER]++;
}

HOOKED long lj_sig_work(long x)
{
	raise(SIGUSR1);
	evals[F_SIGWORK]++;
	return x + 3;
}

/* A frame bigger than everything below main's own calls. */
static __attribute__((noinline)) long deeper_calls(long x)
{
	volatile char pad[16384];
	long r;

	memset((char *)pad, 1, sizeof(pad));
	r = lj_dive1(x, 0) + pad[x & 1023];
	return r + lj_sig_work(x);
}

static void handle_on(int onstack)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = lj_handler;
	sa.sa_flags = onstack ? SA_ONSTACK : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	int deeper = !strcmp(mode, "deeper"), altstack = !strcmp(mode, "altstack");
	volatile long sum = 0;
	static char altbuf[1 << 16];

	if (altstack) {
		stack_t ss = {.ss_sp = altbuf, .ss_size = sizeof(altbuf)};

		if (sigaltstack(&ss, NULL)) {
			perror("sigaltstack");
			return 3;
		}
	}
	handle_on(altstack);

	for (volatile int i = 0; i < 100; i++) {
		int v = setjmp(env);

		if (v == 0) {
			lj_dive1(i, 1);
			printf("not reached\n");
			return 1;
		}
		sum += v;
		/* the same functions again, returning normally */
		sum += deeper ? deeper_calls(i) : lj_dive1(i, 0);

		jumping = 1;
		if (sigsetjmp(senv, 1) == 0) {
			lj_sig_work(i);
			printf("not reached either\n");
			return 1;
		}
		jumping = 0;
		sum += deeper ? 0 : lj_sig_work(i);
	}
	printf("sum %ld\n", (long)sum);
	for (int f = 0; f < F_N; f++) {
		TRUTH("truth", names[f], evals[f]);
		TRUTH("abandoned", names[f], left[f]);
	}
	return 0;
}
