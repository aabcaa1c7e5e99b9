// SPDX-License-Identifier: MIT
/*
 * A process for the refusals of the attach tests (test_attach.c): it says
 * "ready", calls sl_tick every 10 ms for SECONDS, and exits 0.  Built as
 * it is (glibc, dynamic), static, with musl, and given the set-user-ID
 * bit by the tests; the i386 one is sleeper32.S.  With SLEEPER_DLOPEN set,
 * it dlopens that library first (tlshog.c: the static TLS used up); with
 * SLEEPER_MAIN_EXITS=1, the ticks run in a thread and main calls
 * pthread_exit (the process then has a zombie leader).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__) && !defined(SLEEPER_STATIC)
#include <dlfcn.h>
#endif
#include <time.h>

#include "matrix.h"

static unsigned long ticks;

HOOKED void sl_tick(void)
{
	ticks++;
}

static double seconds;

static void *ticks_run(void *arg)
{
	struct timespec ten_ms = {0, 10000000};

	for (long i = 0; i < (long)(seconds * 100); i++) {
		sl_tick();
		nanosleep(&ten_ms, NULL);
	}
	printf("sleeper: %lu ticks\n", ticks);
	exit(0);
	return arg;
}

int main(int argc, char **argv)
{
	const char *main_exits = getenv("SLEEPER_MAIN_EXITS");
	pthread_t th;

	seconds = argc > 1 ? atof(argv[1]) : 30;
#if defined(__GLIBC__) && !defined(SLEEPER_STATIC)
	const char *lib = getenv("SLEEPER_DLOPEN");

	if (lib && *lib && !dlopen(lib, RTLD_NOW)) {
		printf("sleeper: %s\n", dlerror());
		return 1;
	}
#endif
	printf("ready\n");
	fflush(stdout);
	if (main_exits && !strcmp(main_exits, "1")) {
		if (pthread_create(&th, NULL, ticks_run, NULL))
			return 1;
		pthread_exit(NULL);
	}
	ticks_run(NULL);
	return 0;
}
