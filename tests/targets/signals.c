// SPDX-License-Identifier: MIT
/*
 * Matrix case "signals": signal handlers that call hooked functions while
 * another hooked function is active on the same thread.
 *
 *   ./signals raise      sg_work raises SIGUSR1 (handler on the thread's
 *                        stack) and SIGUSR2 (handler on a sigaltstack); each
 *                        handler calls sg_in_handler
 *   ./signals timer      an interval timer (SIGALRM every 20 us) interrupts a
 *                        loop of a million sg_tick calls anywhere, hook code
 *                        included; the handler calls sg_alarm (on a VM a
 *                        signal takes most of the 20 us, so the loop's run
 *                        time grows many times faster than its calls' cost:
 *                        a longer loop adds minutes, not cases).  The timer
 *                        starts after the thread's first evaluation: a
 *                        handler's call during the shim's slow path (the
 *                        first evaluation of a thread) passes uncounted
 *   ./signals timer-alt  the same with the handler on a sigaltstack
 *   ./signals first      1024 threads, 32 at a time, each making one call of
 *                        sg_first under a timer of its own (SIGUSR1 every
 *                        20 us) whose handler calls sg_first_handler: a
 *                        thread's first evaluation interrupted anywhere by a
 *                        handler's, which may be the thread's first.  Every
 *                        thread takes one worker ("checker-threads:"); the
 *                        handler's calls that land while the shim takes it
 *                        pass uncounted, so their number goes out as
 *                        "checker-handled:", not a truth
 *
 * The handlers count what they do; the number of timer signals varies from
 * run to run, so it goes to stderr only.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "matrix.h"

static volatile sig_atomic_t n_in_handler, n_alarm;
static unsigned long n_work, n_tick;
static volatile long handler_sum;

HOOKED long sg_in_handler(long x)
{
	n_in_handler++;
	return x * 7;
}

HOOKED long sg_alarm(long x)
{
	n_alarm++;
	return x + 11;
}

static void on_usr(int sig)
{
	handler_sum += sg_in_handler(sig);
}

static void on_alarm(int sig)
{
	handler_sum += sg_alarm(sig);
}

HOOKED long sg_work(long i)
{
	n_work++;
	if (i % 3 == 0)
		raise(SIGUSR1);
	if (i % 5 == 0)
		raise(SIGUSR2);
	return i * 2;
}

HOOKED long sg_tick(long i)
{
	n_tick++;
	return i ^ (i >> 3);
}

static void handle(int sig, void (*fn)(int), int onstack);

#define FIRST_THREADS 1024
#define FIRST_AT_ONCE 32

static _Atomic unsigned long n_first, n_first_handler;
static __thread volatile sig_atomic_t first_armed;

HOOKED long sg_first(long x)
{
	atomic_fetch_add(&n_first, 1);
	return x + 5;
}

HOOKED long sg_first_handler(long x)
{
	atomic_fetch_add(&n_first_handler, 1);
	return x + 3;
}

static void on_first(int sig)
{
	if (first_armed)
		handler_sum += sg_first_handler(sig);
}

/*
 * One call of sg_first under a timer of the thread's own, SIGUSR1 every
 * 20 us, so that a signal may land anywhere in it.
 */
static void *first_thread(void *arg)
{
	struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1};
	struct itimerspec it = {{0, 20000}, {0, 20000}};
	timer_t timer;
	long s;

	/* SIGEV_THREAD_ID's thread: sigev_notify_thread_id is not in every glibc's header */
	ev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) || timer_settime(timer, 0, &it, NULL)) {
		perror("timer");
		exit(3);
	}
	first_armed = 1;
	s = sg_first((long)arg);
	first_armed = 0;
	timer_delete(timer);
	return (void *)s;
}

/* FIRST_THREADS threads, FIRST_AT_ONCE at a time, each making one call. */
static long first_run(void)
{
	pthread_t th[FIRST_AT_ONCE];
	long sum = 0;

	handle(SIGUSR1, on_first, 0);
	for (long i = 0; i < FIRST_THREADS; i += FIRST_AT_ONCE) {
		for (int k = 0; k < FIRST_AT_ONCE; k++) {
			if (pthread_create(&th[k], NULL, first_thread, (void *)(i + k))) {
				perror("pthread_create");
				exit(3);
			}
		}
		for (int k = 0; k < FIRST_AT_ONCE; k++) {
			void *ret;

			pthread_join(th[k], &ret);
			sum += (long)ret;
		}
	}
	return sum;
}

static void handle(int sig, void (*fn)(int), int onstack)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = onstack ? SA_ONSTACK : 0;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL)) {
		perror("sigaction");
		exit(3);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "raise";
	static char altbuf[1 << 16];
	stack_t ss = {.ss_sp = altbuf, .ss_size = sizeof(altbuf)};
	long sum = 0;

	if (sigaltstack(&ss, NULL)) {
		perror("sigaltstack");
		return 3;
	}
	if (!strcmp(mode, "raise")) {
		handle(SIGUSR1, on_usr, 0);
		handle(SIGUSR2, on_usr, 1);
		for (long i = 0; i < 3000; i++)
			sum += sg_work(i);
		printf("sum %ld handler_sum %ld\n", sum, (long)handler_sum);
	} else if (!strcmp(mode, "timer") || !strcmp(mode, "timer-alt")) {
		struct itimerval it = {{0, 20}, {0, 20}}, off = {{0, 0}, {0, 0}};

		handle(SIGALRM, on_alarm, !strcmp(mode, "timer-alt"));
		/* the thread's first evaluation (the shim's slow path) before the timer */
		sum += sg_tick(-1);
		setitimer(ITIMER_REAL, &it, NULL);
		for (long i = 0; i < 1000000; i++)
			sum += sg_tick(i);
		setitimer(ITIMER_REAL, &off, NULL);
		printf("sum %ld\n", sum);
		fprintf(stderr, "signals: %d timer signals\n", (int)n_alarm);
	} else if (!strcmp(mode, "first")) {
		sum = first_run();
		printf("sum %ld of %d threads\n", sum, FIRST_THREADS);
		TRUTH("handled", "sg_first_handler", atomic_load(&n_first_handler));
		TRUTH("threads", "sg_first", FIRST_THREADS);
	} else {
		fprintf(stderr, "usage: signals raise|timer|timer-alt|first\n");
		return 2;
	}
	TRUTH("truth", "sg_work", n_work);
	TRUTH("truth", "sg_in_handler", n_in_handler);
	TRUTH("truth", "sg_tick", n_tick);
	TRUTH("truth", "sg_alarm", n_alarm);
	TRUTH("truth", "sg_first", atomic_load(&n_first));
	return 0;
}
