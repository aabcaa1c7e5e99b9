// SPDX-License-Identifier: MIT
/*
 * Matrix case "threads": threads, processes and images.
 *
 *   ./threads wide     64 threads at once (a barrier lines them up), each
 *                      calling th_work 2000 times and th_other 100 times
 *   ./threads churn    2400 threads, 8 alive at a time: the pool's dumps
 *                      stay at the peak (8 threads + main), not the total
 *   ./threads fork     th_work 5 times, then th_forker forks (from inside a
 *                      hooked function); the child calls th_work 7 times and
 *                      exits; the parent waits and calls th_work 3 more times.
 *                      The child's counts are its own and start from zero
 *   ./threads exec     th_work 4 times, then th_execer execs the program
 *                      itself ("exec2"), which calls th_work 6 times
 *   ./threads vfork    th_work 2 times; vfork + exec of "spawned" (th_work
 *                      3 times) from inside th_spawner; then th_work 2 times
 *   ./threads spawn    the same through posix_spawn
 *
 * Truth lines: "checker-truth:" the whole run's evaluations (every process
 * of it), "checker-child-truth:" the fork child's own, printed by the parent,
 * "checker-abandoned:" activations that never returned.  Every process ends
 * with exit or a return from main: the dumps must all say "complete".
 */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "matrix.h"

extern char **environ;

static __thread unsigned long my_work, my_other;
static unsigned long n_work, n_other; /* folded under the lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;

HOOKED long th_work(long x)
{
	my_work++;
	return (x * 2654435761u) >> 7;
}

HOOKED long th_other(long x)
{
	my_other++;
	return x ^ 0x55;
}

static void fold(void)
{
	pthread_mutex_lock(&lock);
	n_work += my_work;
	n_other += my_other;
	my_work = my_other = 0;
	pthread_mutex_unlock(&lock);
}

static void *wide_thread(void *arg)
{
	long s = (long)arg;

	pthread_barrier_wait(&barrier);
	for (long i = 0; i < 2000; i++) {
		s += th_work(i);
		if (i % 20 == 0)
			s += th_other(i);
	}
	fold();
	return (void *)(s & 1);
}

static void *churn_thread(void *arg)
{
	long s = (long)arg;

	for (long i = 0; i < 10; i++)
		s += th_work(i + s);
	fold();
	return NULL;
}

static int run_threads(void *(*fn)(void *), int at_once, int rounds)
{
	pthread_t *th = calloc((size_t)at_once, sizeof(*th));

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < at_once; i++) {
			if (pthread_create(&th[i], NULL, fn, (void *)(long)i)) {
				printf("pthread_create failed\n");
				return 3;
			}
		}
		for (int i = 0; i < at_once; i++)
			pthread_join(th[i], NULL);
	}
	free(th);
	return 0;
}

static void work(int n)
{
	for (int i = 0; i < n; i++)
		th_work(i);
}

HOOKED pid_t th_forker(void)
{
	return fork();
}

HOOKED void th_execer(const char *self)
{
	char *const argv[] = {(char *)self, (char *)"exec2", NULL};

	fold();
	/* the truth of the whole run, printed by the image that finishes it */
	execv(self, argv);
	perror("execv");
	exit(3);
}

HOOKED pid_t th_spawner(const char *self, int use_vfork)
{
	char *const argv[] = {(char *)self, (char *)"spawned", NULL};
	pid_t pid;

	if (!use_vfork) {
		if (posix_spawn(&pid, self, NULL, NULL, argv, environ))
			return -1;
		return pid;
	}
	pid = vfork();
	if (pid == 0) {
		execv(self, argv);
		_exit(127);
	}
	return pid;
}

static int wait_ok(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		printf("child failed\n");
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "wide";
	unsigned long work_total = 0, other_total = 0;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 3;
	self[n] = '\0';

	if (!strcmp(mode, "wide")) {
		pthread_barrier_init(&barrier, NULL, 64);
		if (run_threads(wide_thread, 64, 1))
			return 3;
		work_total = 64 * 2000;
		other_total = 64 * 100;
	} else if (!strcmp(mode, "churn")) {
		work(1);
		if (run_threads(churn_thread, 8, 300))
			return 3;
		work_total = 1 + 8 * 300 * 10;
	} else if (!strcmp(mode, "fork")) {
		pid_t pid;

		work(5);
		fflush(stdout);
		pid = th_forker();
		if (pid == 0) {
			work(7);
			/* exit, not _exit: the child finishes cleanly (its dumps say so) */
			exit(my_work == 12 ? 0 : 1); /* 5 inherited + 7 */
		}
		if (!wait_ok(pid))
			return 1;
		fprintf(stderr, "checker-pid: child %d\n", (int)pid);
		work(3);
		work_total = 5 + 7 + 3;
		TRUTH("child-truth", "th_work", 7);
		TRUTH("child-truth", "th_forker", 0);
		TRUTH("truth", "th_forker", 1);
	} else if (!strcmp(mode, "exec")) {
		work(4);
		fflush(stdout);
		printf("exec\n");
		fflush(stdout);
		th_execer(self);
	} else if (!strcmp(mode, "exec2")) {
		work(6);
		work_total = 4 + 6;
		/* the first image's th_execer never returned: the exec ended it */
		TRUTH("truth", "th_execer", 0);
		TRUTH("abandoned", "th_execer", 1);
	} else if (!strcmp(mode, "vfork") || !strcmp(mode, "spawn")) {
		work(2);
		fflush(stdout);
		if (!wait_ok(th_spawner(self, !strcmp(mode, "vfork"))))
			return 1;
		work(2);
		work_total = 2 + 3 + 2;
		TRUTH("truth", "th_spawner", 1);
	} else if (!strcmp(mode, "spawned")) {
		work(3);
		return my_work == 3 ? 0 : 1;
	} else {
		fprintf(stderr, "usage: threads wide|churn|fork|exec|vfork|spawn\n");
		return 2;
	}
	fold();
	printf("%s done\n", mode);
	TRUTH("truth", "th_work", work_total);
	TRUTH("truth", "th_other", other_total);
	if (n_work + (!strcmp(mode, "fork") ? 7 : 0) + (!strcmp(mode, "exec2") ? 4 : 0) +
		    (!strcmp(mode, "vfork") || !strcmp(mode, "spawn") ? 3 : 0) !=
	    work_total) {
		printf("th_work ran %lu times in this process, not the expected\n", n_work);
		return 1;
	}
	return 0;
}
