// SPDX-License-Identifier: MIT
/*
 * Matrix case "exit": the process ends from inside hooked functions.
 *
 *   ./exit MODE   calls xt_counted 10 times, then xt_outer > xt_inner, and
 *                 xt_inner ends the process: MODE is return (it returns, and
 *                 main returns 0), exit (exit(3)), _exit (_exit(4)), abort,
 *                 or kill (SIGKILL to itself)
 *
 * The exit status or signal must be the one the program gives without the
 * shim; the dump left behind holds the ten evaluations of xt_counted (it is
 * written through a shared mapping) and says whether the process finished
 * cleanly.  The truth lines are printed (and flushed) before the end.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"

static unsigned long n_counted;
static const char *mode = "return";

HOOKED long xt_counted(long x)
{
	n_counted++;
	return x * x;
}

static void truth(unsigned long outer)
{
	TRUTH("truth", "xt_counted", n_counted);
	TRUTH("truth", "xt_outer", outer);
	TRUTH("truth", "xt_inner", outer);
	TRUTH("abandoned", "xt_outer", 1 - outer);
	TRUTH("abandoned", "xt_inner", 1 - outer);
	fflush(stderr);
}

HOOKED long xt_inner(long x)
{
	/* stdout is a file in the tests: fully buffered, lost by _exit and abort */
	printf("inner %ld, mode %s\n", x, mode);
	if (!strcmp(mode, "return"))
		return x + 1;
	truth(0);
	if (!strcmp(mode, "exit"))
		exit(3);
	if (!strcmp(mode, "_exit"))
		_exit(4);
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "kill"))
		raise(SIGKILL);
	return -1;
}

HOOKED long xt_outer(long x)
{
	return xt_inner(x * 2) + 1;
}

int main(int argc, char **argv)
{
	long sum = 0;

	if (argc > 1)
		mode = argv[1];
	for (long i = 0; i < 10; i++)
		sum += xt_counted(i);
	printf("sum %ld\n", sum);
	sum += xt_outer(sum);
	printf("after %ld\n", sum);
	truth(1);
	return 0;
}
