// SPDX-License-Identifier: MIT
/*
 * The target of the attach tests (tests/integration/test_attach.c): a
 * program that runs for a while, knows nothing of extprof, and checks, as
 * it goes, everything an attachment must leave alone.
 *
 *   ./attach SECONDS [STOPFILE] [fork]
 *
 * runs SECONDS (or until STOPFILE exists), then prints one line on stdout
 * and exits with status 3.  Meanwhile:
 *
 *   4 workers     call at_work and at_other, hooked, and check every result;
 *                 their errno and signal mask are set to their own values and
 *                 checked after every batch
 *   regcheck      a loop in assembly holding known values in every general
 *                 register but rsp, xmm0-15 (and the upper halves of ymm0-15
 *                 with AVX), MXCSR, the x87 control word and the direction
 *                 flag, checking them all the time: the thread tests pick
 *                 for their remote calls (EXTPROF_TEST_ATTACH_PICK=user)
 *   signaller     sends SIGUSR1 to worker 0 every millisecond and waits for
 *                 its handler (which calls at_other) to have run: none lost,
 *                 none twice
 *   reader        reads the bytes main writes into a pipe, in order
 *   main          sleeps in nanosleep between its writes and the clock: a
 *                 sleep cut short by EINTR is an error (the tests pick main
 *                 for their calls with EXTPROF_TEST_ATTACH_PICK=syscall)
 *   fork          (with "fork") every 50 ms a child that calls at_work and
 *                 exits, every 150 ms one that execs this program ("child"
 *                 mode: at_work 500 times)
 *   exec          (with "exec") after SECONDS, main execs this program in
 *                 "linger" mode (at_work 500 times, then 2 s asleep, then
 *                 "attach-target: lingered" and status 4), threads running
 *
 * Any difference is said on stdout and the status is 1.  The totals of the
 * hooked functions (this process's, not its children's) go to stderr as
 * "checker-truth: at_work N" lines.  stdout is the same run after run.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "matrix.h"

#define WORKERS 4
#define BATCH	1000

static atomic_int stop;
/* The signaller stops first: worker 0 must outlive the last signal it was sent. */
static atomic_int stop_signals;
static atomic_ulong n_work, n_other;
static atomic_int failed;
static char failure[256];
static pthread_t workers[WORKERS];
static atomic_ulong usr1_handled;

static void fail(const char *fmt, long a, long b)
{
	if (atomic_exchange(&failed, 1))
		return;
	snprintf(failure, sizeof(failure), fmt, a, b);
}

/* the program's own unit of work, for --counter var:attach_units (3 and 1 a call) */
__thread unsigned long attach_units;

HOOKED long at_work(long x)
{
	attach_units += 3;
	return (x * 2654435761u) >> 7 ^ x;
}

HOOKED long at_other(long x)
{
	attach_units += 1;
	return x * 3 + 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_usr1(int sig)
{
	int saved = errno;

	(void)sig;
	if (at_other(41) != 124)
		fail("at_other in a signal handler returned wrong", 0, 0);
	atomic_fetch_add(&usr1_handled, 1);
	errno = saved;
}

static void *worker(void *arg)
{
	long id = (long)arg, s = 0;
	unsigned long mine_work = 0, mine_other = 0;
	sigset_t want, now;

	/* each worker its own mask: SIGUSR2, and SIGWINCH for odd ones */
	sigemptyset(&want);
	sigaddset(&want, SIGUSR2);
	if (id & 1)
		sigaddset(&want, SIGWINCH);
	pthread_sigmask(SIG_SETMASK, &want, NULL);
	while (!atomic_load(&stop)) {
		errno = 1000 + (int)id;
		for (long i = 0; i < BATCH; i++) {
			long x = i + id * 7919;

			if (at_work(x) != ((x * 2654435761u) >> 7 ^ x))
				fail("worker %ld: at_work(%ld) returned wrong", id, x);
			if (i % 10 == 0 && at_other(x) != x * 3 + 1)
				fail("worker %ld: at_other(%ld) returned wrong", id, x);
			s += x;
		}
		mine_work += BATCH;
		mine_other += BATCH / 10;
		if (errno != 1000 + (int)id)
			fail("worker %ld: errno became %ld", id, errno);
		pthread_sigmask(SIG_BLOCK, NULL, &now);
		if (sigismember(&now, SIGUSR2) != 1 ||
		    sigismember(&now, SIGWINCH) != (int)(id & 1) || sigismember(&now, SIGUSR1) != 0)
			fail("worker %ld: its signal mask changed", id, 0);
	}
	atomic_fetch_add(&n_work, mine_work);
	atomic_fetch_add(&n_other, mine_other);
	return (void *)(s & 1);
}

/*
 * The register check, in assembly: returns 0 when every register kept its
 * value until *stop, else which one changed (1..).  The values are 31-bit,
 * so that cmp with an immediate checks them without a spare register.
 */
long regcheck_run(const atomic_int *stop, long avx);
__asm__(".text\n"
	".globl regcheck_run\n"
	".type regcheck_run, @function\n"
	"regcheck_run:\n\t" ASM_ENDBR "push %rbp\n\t"
	"push %rbx\n\t"
	"push %r12\n\t"
	"push %r13\n\t"
	"push %r14\n\t"
	"push %r15\n\t"
	"sub $56, %rsp\n\t"
	"stmxcsr 32(%rsp)\n\t"
	"fnstcw 40(%rsp)\n\t"
	"movl $0x7f80, 48(%rsp)\n\t" /* rounding toward zero */
	"ldmxcsr 48(%rsp)\n\t"
	"movw $0x27f, 48(%rsp)\n\t" /* x87 precision 53 bits */
	"fldcw 48(%rsp)\n\t"
	"mov %rsi, 24(%rsp)\n\t"
	".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
	"movq $(0x30303030+\\k), (%rsp)\n\t"
	"movq $(0x40404040+\\k), 8(%rsp)\n\t"
	"movdqu (%rsp), %xmm\\k\n\t"
	".endr\n\t"
	"cmpq $0, 24(%rsp)\n\t"
	"je 2f\n\t"
	".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
	"movq $(0x50505050+\\k), (%rsp)\n\t"
	"movq $(0x60606060+\\k), 8(%rsp)\n\t"
	"vinsertf128 $1, (%rsp), %ymm\\k, %ymm\\k\n\t"
	".endr\n"
	"2:\n\t"
	"mov $0x1a1a1a1a, %rax\n\t"
	"mov $0x1b1b1b1b, %rbx\n\t"
	"mov $0x1c1c1c1c, %rcx\n\t"
	"mov $0x1d1d1d1d, %rdx\n\t"
	"mov $0x1e1e1e1e, %rsi\n\t"
	"mov $0x1f1f1f1f, %rbp\n\t"
	"mov $0x28282828, %r8\n\t"
	"mov $0x29292929, %r9\n\t"
	"mov $0x2a2a2a2a, %r10\n\t"
	"mov $0x2b2b2b2b, %r11\n\t"
	"mov $0x2c2c2c2c, %r12\n\t"
	"mov $0x2d2d2d2d, %r13\n\t"
	"mov $0x2e2e2e2e, %r14\n\t"
	"mov $0x2f2f2f2f, %r15\n\t"
	"std\n"
	"1:\n\t"
	"cmp $0x1a1a1a1a, %rax\n\tjne 90f\n\t"
	"cmp $0x1b1b1b1b, %rbx\n\tjne 91f\n\t"
	"cmp $0x1c1c1c1c, %rcx\n\tjne 92f\n\t"
	"cmp $0x1d1d1d1d, %rdx\n\tjne 93f\n\t"
	"cmp $0x1e1e1e1e, %rsi\n\tjne 94f\n\t"
	"cmp $0x1f1f1f1f, %rbp\n\tjne 95f\n\t"
	"cmp $0x28282828, %r8\n\tjne 96f\n\t"
	"cmp $0x29292929, %r9\n\tjne 96f\n\t"
	"cmp $0x2a2a2a2a, %r10\n\tjne 96f\n\t"
	"cmp $0x2b2b2b2b, %r11\n\tjne 96f\n\t"
	"cmp $0x2c2c2c2c, %r12\n\tjne 96f\n\t"
	"cmp $0x2d2d2d2d, %r13\n\tjne 96f\n\t"
	"cmp $0x2e2e2e2e, %r14\n\tjne 96f\n\t"
	"cmp $0x2f2f2f2f, %r15\n\tjne 96f\n\t"
	".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
	"movdqu %xmm\\k, (%rsp)\n\t"
	"cmpq $(0x30303030+\\k), (%rsp)\n\tjne 97f\n\t"
	"cmpq $(0x40404040+\\k), 8(%rsp)\n\tjne 97f\n\t"
	".endr\n\t"
	"cmpq $0, 24(%rsp)\n\t"
	"je 3f\n\t"
	".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
	"vextractf128 $1, %ymm\\k, (%rsp)\n\t"
	"cmpq $(0x50505050+\\k), (%rsp)\n\tjne 98f\n\t"
	"cmpq $(0x60606060+\\k), 8(%rsp)\n\tjne 98f\n\t"
	".endr\n"
	"3:\n\t"
	"stmxcsr (%rsp)\n\t"
	"cmpl $0x7f80, (%rsp)\n\tjne 99f\n\t"
	"fnstcw (%rsp)\n\t"
	"cmpw $0x27f, (%rsp)\n\tjne 99f\n\t"
	"pushfq\n\t"
	"btq $10, (%rsp)\n\t" /* DF */
	"lea 8(%rsp), %rsp\n\t"
	"jnc 89f\n\t"
	"cmpl $0, (%rdi)\n\t"
	"je 1b\n\t"
	"xor %eax, %eax\n\t"
	"jmp 80f\n"
	"89:\n\tmov $16, %eax\n\tjmp 80f\n"
	"90:\n\tmov $1, %eax\n\tjmp 80f\n"
	"91:\n\tmov $2, %eax\n\tjmp 80f\n"
	"92:\n\tmov $3, %eax\n\tjmp 80f\n"
	"93:\n\tmov $4, %eax\n\tjmp 80f\n"
	"94:\n\tmov $5, %eax\n\tjmp 80f\n"
	"95:\n\tmov $6, %eax\n\tjmp 80f\n"
	"96:\n\tmov $7, %eax\n\tjmp 80f\n"
	"97:\n\tmov $8, %eax\n\tjmp 80f\n"
	"98:\n\tmov $9, %eax\n\tjmp 80f\n"
	"99:\n\tmov $10, %eax\n"
	"80:\n\t"
	"cld\n\t"
	"ldmxcsr 32(%rsp)\n\t"
	"fldcw 40(%rsp)\n\t"
	"cmpq $0, 24(%rsp)\n\t"
	"je 4f\n\t"
	"vzeroupper\n"
	"4:\n\t"
	"add $56, %rsp\n\t"
	"pop %r15\n\t"
	"pop %r14\n\t"
	"pop %r13\n\t"
	"pop %r12\n\t"
	"pop %rbx\n\t"
	"pop %rbp\n\t"
	"ret\n\t"
	".size regcheck_run, .-regcheck_run\n");

static void *regcheck(void *arg)
{
	long r;

	(void)arg;
	r = regcheck_run(&stop, __builtin_cpu_supports("avx"));
	if (r)
		fail("regcheck: register %ld changed under it", r, 0);
	return NULL;
}

static void *signaller(void *arg)
{
	unsigned long sent = 0;

	(void)arg;
	while (!atomic_load(&stop_signals)) {
		struct timespec ms = {0, 1000000};
		double until = now_s() + 10;

		pthread_kill(workers[0], SIGUSR1);
		sent++;
		while (atomic_load(&usr1_handled) < sent && now_s() < until)
			sched_yield();
		if (atomic_load(&usr1_handled) != sent) {
			fail("signaller: SIGUSR1 %ld was not handled (%ld handled)", (long)sent,
			     (long)atomic_load(&usr1_handled));
			break;
		}
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static int pipefd[2];

static void *reader(void *arg)
{
	unsigned char want = 0, got;

	(void)arg;
	for (;;) {
		ssize_t n = read(pipefd[0], &got, 1);

		if (n == 0)
			return NULL;
		if (n != 1) {
			fail("reader: read returned %ld (errno %ld)", (long)n, errno);
			return NULL;
		}
		if (got != want)
			fail("reader: byte %ld where %ld was written", got, want);
		want = (unsigned char)(got + 1);
	}
}

static void child_work(int n)
{
	for (long i = 0; i < n; i++)
		if (at_work(i) != ((i * 2654435761u) >> 7 ^ i))
			_exit(1);
}

static int forks, execs;

static void fork_one(const char *self, bool exec_it)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (exec_it) {
			execl(self, self, "child", (char *)NULL);
			_exit(126);
		}
		child_work(1000);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("a fork child failed (status %ld, exec %ld)", pid < 0 ? -1 : status, exec_it);
	if (exec_it)
		execs++;
	else
		forks++;
}

int main(int argc, char **argv)
{
	pthread_t helpers[3];
	double seconds, start = now_s(), next_fork = start, next_exec = start;
	const char *stopfile = argc > 2 && strcmp(argv[2], "-") ? argv[2] : NULL;
	bool with_forks = argc > 3 && !strcmp(argv[3], "fork");
	bool with_exec = argc > 3 && !strcmp(argv[3], "exec");
	struct sigaction sa;
	sigset_t usr1;
	unsigned char byte = 0;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		child_work(500);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "linger")) {
		struct timespec two = {2, 0};

		child_work(500);
		nanosleep(&two, NULL);
		printf("attach-target: lingered\n");
		return 4;
	}
	if (argc < 2 || (seconds = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: attach SECONDS [STOPFILE|-] [fork]\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	/* SIGUSR1 is worker 0's: every other thread blocks it */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (pipe(pipefd))
		return 1;
	pthread_create(&helpers[0], NULL, regcheck, NULL);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	pthread_create(&helpers[1], NULL, reader, NULL);
	for (long i = 0; i < WORKERS; i++) {
		if (i == 0)
			pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
		pthread_create(&workers[i], NULL, worker, (void *)i);
		if (i == 0)
			pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	}
	pthread_create(&helpers[2], NULL, signaller, NULL);
	printf("ready\n");
	fflush(stdout);
	while (now_s() - start < seconds && !atomic_load(&failed)) {
		struct timespec ten_ms = {0, 10000000}, before, after;

		if (stopfile && access(stopfile, F_OK) == 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &before);
		if (nanosleep(&ten_ms, NULL))
			fail("main: nanosleep failed (errno %ld)", errno, 0);
		clock_gettime(CLOCK_MONOTONIC, &after);
		if ((after.tv_sec - before.tv_sec) * 1000000000L + after.tv_nsec - before.tv_nsec <
		    10000000L)
			fail("main: nanosleep of 10 ms came back early", 0, 0);
		if (write(pipefd[1], &byte, 1) != 1)
			fail("main: write to the pipe failed (errno %ld)", errno, 0);
		byte++;
		if (with_forks && now_s() >= next_fork) {
			fork_one(argv[0], false);
			next_fork = now_s() + 0.05;
		}
		if (with_forks && now_s() >= next_exec) {
			fork_one(argv[0], true);
			next_exec = now_s() + 0.15;
		}
	}
	if (with_exec) {
		fflush(stdout);
		execl(argv[0], argv[0], "linger", (char *)NULL);
		return 1;
	}
	atomic_store(&stop_signals, 1);
	pthread_join(helpers[2], NULL);
	atomic_store(&stop, 1);
	close(pipefd[1]);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(workers[i], NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(helpers[i], NULL);
	TRUTH("truth", "at_work", atomic_load(&n_work));
	TRUTH("truth", "at_other", atomic_load(&n_other) + atomic_load(&usr1_handled));
	if (with_forks)
		fprintf(stderr, "attach-target: %d forks, %d execs\n", forks, execs);
	if (atomic_load(&failed)) {
		printf("attach-target: %s\n", failure);
		return 1;
	}
	printf("attach-target: %d workers, results, errno, signal masks, registers, signals, "
	       "sleeps and pipe as they should be%s\n",
	       WORKERS, with_forks ? "; fork and exec children ok" : "");
	return 3;
}
