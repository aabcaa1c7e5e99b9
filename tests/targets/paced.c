// SPDX-License-Identifier: MIT
/*
 * paced COUNT MS: calls pc_step COUNT times, one call every MS
 * milliseconds, then prints "paced: COUNT" and exits 0.  A function called
 * more slowly than extprof top draws its frames (test_top.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "matrix.h"

static volatile unsigned long steps;

HOOKED void pc_step(void)
{
	steps++;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 10, ms = argc > 2 ? atol(argv[2]) : 100;
	struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};

	for (long i = 0; i < count; i++) {
		pc_step();
		nanosleep(&pause, NULL);
	}
	printf("paced: %lu\n", steps);
	return 0;
}
