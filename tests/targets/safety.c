// SPDX-License-Identifier: MIT
/*
 * The program of the safety tests (tests/integration/test_safety.c): what a
 * program does that the shim must not get in the way of.
 *
 *   ./safety calls N          xs_work N times, xs_other and xs_third once
 *   ./safety sigmalloc N      N threads, then the main thread, each spinning
 *                             in malloc/free until a signal arrives; the
 *                             handler makes the thread's first hooked call
 *                             (xs_in_handler), likely while malloc holds
 *                             its lock
 *   ./safety chdir DIR        xs_work 10 times, chdir DIR, 10 times more
 *   ./safety daemon DATA LIB  close every descriptor but 0-2, open DATA
 *                             (descriptor 3) and put it on most descriptors
 *                             up to 1024, write to it, dlopen LIB and call
 *                             its xs_lib_work, write again
 *   ./safety popen            read `sh -c 'echo from the child' 2>&1`
 *                             through popen and print it
 *   ./safety spawn            xs_work 3 times; a fork child calls it 5 times
 *                             and exits; another child execs "safety calls 7"
 *   ./safety forklayout N     N rounds: 4 new threads each make their first
 *                             hooked call (their worker's dump is laid out)
 *                             while the main thread forks 5 children that
 *                             call xs_work 3 times and _exit; a child that
 *                             has not ended 5 s later is killed, the rounds
 *                             stop: status 6
 *   ./safety dlrace LIB N     N rounds: 4 new threads each make their first
 *                             hooked calls (xs_work 100 times, and
 *                             xs_lib_work once LIB is loaded), so their
 *                             worker's dump is laid out, while the main
 *                             thread dlopens LIB over and over (each dlopen
 *                             makes the shim look again for what its hooks
 *                             name; the first adds xs_lib_work) until the
 *                             four are done; they stay alive to the end, so
 *                             the next round's threads need new workers.
 *                             Then 300 short-lived threads one after
 *                             another, the same calls
 *   ./safety clone N          threads clone() makes without TLS of their
 *                             own (they run on the main thread's): the main
 *                             thread calls xs_work N times; a child calls
 *                             xs_work N times while the main thread calls
 *                             xs_other N times (xs_spawn starts it), then
 *                             waits for it inside xs_wait; the same again with a child whose
 *                             stack is an array on the main thread's; then
 *                             the main thread xs_work N times more
 *   ./safety vmexit N         a child clone() makes with CLONE_VM, a
 *                             process of its own on the same memory, calls
 *                             xs_work twice and exit(0); then the parent
 *                             calls it N times
 *   ./safety dlopen SHIM      dlopen SHIM (as /etc/ld.so.preload would load
 *                             it), then xs_work 4 times
 *   ./safety fill FILE [keep] xs_work 10 times; then fill FILE's filesystem
 *                             (write FILE until it is full), and call
 *                             xs_other, xs_third and xs_work 10 times more;
 *                             remove FILE before exit, unless "keep"
 *   ./safety cancelfirst N    N threads, each cancelled (deferred) before its
 *                             first hooked call, xs_work: the call returns,
 *                             and the cancellation acts at the next
 *                             cancellation point, pthread_testcancel
 *   ./safety cancelsleep N    N threads calling xs_nap, which sleeps (a
 *                             cancellation point inside a hooked function),
 *                             each with a cleanup handler; each cancelled
 *                             there: the handlers that ran are counted
 *   ./safety cancelasync N    N threads, one after another, in asynchronous
 *                             cancellation, calling xs_work without end,
 *                             each cancelled after a few ms; then a thread
 *                             calls xs_work 1000 times
 *   ./safety altstack SIZE    a thread whose first hooked call,
 *                             xs_in_handler, is made in a signal handler on
 *                             a sigaltstack of SIZE bytes
 *   ./safety smallstack FRAME a thread on the smallest stack a thread may
 *                             have (PTHREAD_STACK_MIN) calls xs_deep, whose
 *                             frame holds FRAME bytes, and which calls
 *                             xs_work from inside it
 *   ./safety stackuse         how deep below its caller's stack pointer a call
 *                             of xs_work writes: a thread's first call, and
 *                             one made in a signal handler on a sigaltstack,
 *                             and a later one (scripts/stack-use.sh)
 *   ./safety sandbox N [fork|together]
 *                             xs_work 10 times, then a seccomp filter (kill
 *                             on anything else than what the program itself
 *                             needs), then xs_work 10 times, xs_other once,
 *                             N threads calling xs_work 1000 times each, and
 *                             with "fork" a child calling it 5 times; with
 *                             "together" the N threads all alive at once
 *                             (each waits for the others after its first call)
 *
 * stdout is the same whatever the shim does; the hooked functions' own
 * counts go to stderr as "checker-truth: SYMBOL COUNT".
 */
#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "matrix.h"

static unsigned long n_work, n_other, n_third, n_nap, n_deep;
static volatile sig_atomic_t n_in_handler;

/* The units of work done, for EXTPROF_COUNTER=var:xs_units: xs_work does 3. */
unsigned long xs_units;

/*
 * Atomic: threads call it at once (dlrace), the cancellation cases' threads
 * asynchronously cancelled.
 */
HOOKED long xs_work(long x)
{
	__atomic_add_fetch(&n_work, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&xs_units, 3, __ATOMIC_RELAXED);
	return x * 3 + 1;
}

HOOKED long xs_other(long x)
{
	n_other++;
	return x ^ 5;
}

HOOKED long xs_third(long x)
{
	n_third++;
	return x - 2;
}

HOOKED long xs_in_handler(long x)
{
	n_in_handler++;
	return x + 1;
}

/* A cancellation point inside a hooked function: counted as it starts. */
HOOKED long xs_nap(long x)
{
	__atomic_add_fetch(&n_nap, 1, __ATOMIC_RELAXED);
	usleep(200);
	return x + 1;
}

/* @frame bytes of frame, and xs_work called from inside it. */
HOOKED long xs_deep(long frame)
{
	volatile char *buf = alloca((size_t)frame);

	n_deep++;
	memset((char *)buf, 1, (size_t)frame);
	return buf[frame / 2] + xs_work(frame);
}

static void truth(void)
{
	TRUTH("truth", "xs_work", n_work);
	TRUTH("truth", "xs_other", n_other);
	TRUTH("truth", "xs_third", n_third);
	TRUTH("truth", "xs_in_handler", n_in_handler);
	TRUTH("truth", "xs_nap", n_nap);
	TRUTH("truth", "xs_deep", n_deep);
}

static long calls(long n)
{
	long sum = xs_other(n) + xs_third(n);

	for (long i = 0; i < n; i++)
		sum += xs_work(i);
	return sum;
}

/* ---- fill ---------------------------------------------------------------- */

/* Write @path until its filesystem is full: what a program may do to a disk. */
static int fill(const char *path)
{
	static char block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0) {
		perror(path);
		return -1;
	}
	while (write(fd, block, sizeof(block)) > 0)
		;
	/* the last partial block too */
	while (write(fd, block, 1) > 0)
		;
	close(fd);
	return 0;
}

static int fill_mode(const char *path, bool keep)
{
	long sum = 0;

	for (long i = 0; i < 10; i++)
		sum += xs_work(i);
	if (fill(path))
		return 3;
	sum += calls(10);
	if (!keep)
		unlink(path);
	printf("sum %ld, the filesystem filled in between\n", sum);
	return 0;
}

/* ---- sigmalloc ---------------------------------------------------------- */

static volatile sig_atomic_t got_signal;
static volatile int spinning;
static volatile long handler_sum;

static void on_usr1(int sig)
{
	handler_sum += xs_in_handler(sig);
	got_signal = 1;
}

/* malloc and free, sizes past the thread cache: each takes the arena's lock */
static void spin_in_malloc(void)
{
	size_t size = 2048;

	spinning = 1;
	while (!got_signal) {
		void *p = malloc(size);

		if (p)
			*(volatile char *)p = 1;
		free(p);
		size = size * 7 % 30000 + 1100;
	}
}

static void *spin_thread(void *arg)
{
	(void)arg;
	spin_in_malloc();
	return NULL;
}

static void signal_when_spinning(pthread_t t)
{
	struct timespec ms = {0, 1000000};

	while (!spinning)
		sched_yield();
	nanosleep(&ms, NULL);
	pthread_kill(t, SIGUSR1);
}

static void *signal_main(void *arg)
{
	signal_when_spinning(*(pthread_t *)arg);
	return NULL;
}

static int sigmalloc(int trials)
{
	struct sigaction sa;
	pthread_t t, main_thread = pthread_self();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < trials; i++) {
		got_signal = spinning = 0;
		pthread_create(&t, NULL, spin_thread, NULL);
		signal_when_spinning(t);
		pthread_join(t, NULL);
	}
	/* the main thread last: its first hooked call in a handler too */
	got_signal = spinning = 0;
	pthread_create(&t, NULL, signal_main, &main_thread);
	spin_in_malloc();
	pthread_join(t, NULL);
	printf("%d trials, %d signals handled\n", trials + 1, (int)n_in_handler);
	return 0;
}

/* ---- daemon ------------------------------------------------------------- */

static void put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		exit(5);
}

static int daemon_like(const char *data, const char *lib)
{
	struct rlimit rl;
	long (*lib_work)(long);
	int fd, top = 1024;
	void *h;

	for (int i = 3; i < 65536; i++)
		close(i);
	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 3) {
		fprintf(stderr, "safety: %s opened as %d\n", data, fd);
		return 4;
	}
	/* whatever number the shim's log had, it is the data file's now */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < (rlim_t)top)
		top = (int)rl.rlim_cur;
	for (int i = 4; i < top - 16; i++)
		dup2(fd, i);
	put(fd, "data 1\n");
	h = dlopen(lib, RTLD_NOW);
	lib_work = h ? (long (*)(long))dlsym(h, "xs_lib_work") : NULL;
	if (!lib_work) {
		fprintf(stderr, "safety: %s\n", dlerror());
		return 4;
	}
	printf("lib %ld\n", lib_work(20));
	put(fd, "data 2\n");
	for (int i = 3; i < top; i++)
		close(i);
	return 0;
}

/* ---- spawn -------------------------------------------------------------- */

static int spawn(const char *self)
{
	long sum = 0;
	pid_t c1, c2;
	int status;

	for (long i = 0; i < 3; i++)
		sum += xs_work(i);
	fflush(stdout);
	c1 = fork();
	if (c1 == 0) {
		for (long i = 0; i < 5; i++)
			sum += xs_work(i);
		exit(0);
	}
	c2 = fork();
	if (c2 == 0) {
		execl(self, self, "calls", "7", (char *)NULL);
		_exit(127);
	}
	waitpid(c1, &status, 0);
	waitpid(c2, &status, 0);
	printf("spawned, sum %ld\n", sum);
	return 0;
}

/* ---- cancellation ------------------------------------------------------- */

static pthread_barrier_t cancel_ready;
static volatile int cleanups;

/* Cancelled before it starts: its first hooked call must return, the
 * cancellation acts at pthread_testcancel (a barrier wait is none). */
static void *cancel_first_thread(void *arg)
{
	long sum;

	(void)arg;
	pthread_barrier_wait(&cancel_ready);
	pthread_barrier_wait(&cancel_ready);
	sum = xs_work(1);
	pthread_testcancel();
	return (void *)sum;
}

static void cleanup_ran(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&cleanups, 1, __ATOMIC_RELAXED);
}

static void *cancel_sleep_thread(void *arg)
{
	long sum = 0;

	(void)arg;
	pthread_cleanup_push(cleanup_ran, NULL);
	pthread_barrier_wait(&cancel_ready);
	for (;;)
		sum += xs_nap(sum);
	pthread_cleanup_pop(0);
	return (void *)sum;
}

/*
 * Asynchronous from after the barrier on: a cancellation inside
 * pthread_barrier_wait (no function of libc's but three may be cancelled
 * asynchronously) could end the thread before it leaves the barrier, and
 * pthread_barrier_destroy would wait for it for ever.
 */
static void *cancel_async_thread(void *arg)
{
	long sum = 0;

	(void)arg;
	pthread_barrier_wait(&cancel_ready);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	for (;;)
		sum += xs_work(sum);
	return (void *)sum;
}

static void *calls_thread(void *arg)
{
	long sum = 0;

	for (long i = 0; i < (long)arg; i++)
		sum += xs_work(i);
	return (void *)sum;
}

/* N threads through @fn, one at a time, each cancelled: how many ended cancelled. */
static int cancel_each(const char *mode, int n)
{
	struct timespec ms = {0, 1000000};
	int cancelled = 0;

	for (int i = 0; i < n; i++) {
		pthread_t t;
		void *ret;

		pthread_barrier_init(&cancel_ready, NULL, 2);
		if (!strcmp(mode, "first")) {
			pthread_create(&t, NULL, cancel_first_thread, NULL);
			pthread_barrier_wait(&cancel_ready);
			pthread_cancel(t);
			pthread_barrier_wait(&cancel_ready);
		} else {
			pthread_create(&t, NULL,
				       !strcmp(mode, "sleep") ? cancel_sleep_thread
							      : cancel_async_thread,
				       NULL);
			pthread_barrier_wait(&cancel_ready);
			nanosleep(&ms, NULL);
			pthread_cancel(t);
		}
		pthread_join(t, &ret);
		cancelled += ret == PTHREAD_CANCELED;
		pthread_barrier_destroy(&cancel_ready);
	}
	return cancelled;
}

static int cancel_mode(const char *mode, int n)
{
	pthread_t t;
	void *sum;
	int cancelled = cancel_each(mode, n);

	printf("%d threads, %d cancelled, %d cleanups ran\n", n, cancelled, cleanups);
	/* a worker the cancelled threads used, used again: its counts whole */
	pthread_create(&t, NULL, calls_thread, (void *)1000L);
	pthread_join(t, &sum);
	printf("then %ld\n", (long)sum);
	return cancelled == n ? 0 : 7;
}

/* ---- small stacks ---------------------------------------------------------- */

static volatile long handler_result;

static void on_usr2(int sig)
{
	handler_result = xs_in_handler(sig);
}

/* A guard page right below it: an overflow is a SIGSEGV, never a write into the heap. */
static void *altstack_thread(void *arg)
{
	size_t size = (size_t)arg, page = (size_t)getpagesize();
	char *map =
		mmap(NULL, page + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t ss = {.ss_sp = map + page, .ss_size = size};
	struct sigaction sa;
	long sum = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	/* one the kernel refuses (below MINSIGSTKSZ) is a failure: status 3 */
	if (map == MAP_FAILED || mprotect(map, page, PROT_NONE) || sigaltstack(&ss, NULL) ||
	    sigaction(SIGUSR2, &sa, NULL))
		return (void *)-1L;
	/* the thread's first hooked call, on the sigaltstack */
	pthread_kill(pthread_self(), SIGUSR2);
	for (long i = 0; i < 10; i++)
		sum += xs_work(i);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	return (void *)(sum + handler_result);
}

static void *smallstack_thread(void *arg)
{
	long sum = 0;

	for (int i = 0; i < 3; i++)
		sum += xs_deep((long)arg);
	return (void *)sum;
}

/* @fn(@arg) on a thread whose stack is @stack bytes (0: the default): its result. */
static long on_thread(void *(*fn)(void *), void *arg, size_t stack)
{
	pthread_attr_t attr;
	pthread_t t;
	void *ret = NULL;

	pthread_attr_init(&attr);
	if (stack)
		pthread_attr_setstacksize(&attr, stack);
	if (pthread_create(&t, &attr, fn, arg))
		return -1;
	pthread_join(t, &ret);
	return (long)ret;
}

/* ---- stack use -------------------------------------------------------------- */

#define PAINT_BYTES 24576
#define PAINT	    0xa5

static __attribute__((noinline)) void paint_below(void)
{
	char buf[PAINT_BYTES];

	memset(buf, PAINT, sizeof(buf));
	__asm__ volatile("" : : "r"(buf) : "memory");
}

/*
 * The bytes below this frame's stack pointer a call of xs_work wrote: the
 * region painted first, then scanned from its bottom up for the first byte
 * changed (nothing else is called in between).
 */
static __attribute__((noinline)) long stack_used_by_call(void)
{
	volatile char *sp = __builtin_alloca(16), *p;

	paint_below();
	xs_work(1);
	for (p = sp - PAINT_BYTES; p < sp && *p == (char)PAINT; p++)
		;
	return (long)(sp - p);
}

static volatile long stack_in_handler;

static void on_usr1_measure(int sig)
{
	(void)sig;
	stack_in_handler = stack_used_by_call();
}

static void *stackuse_first_thread(void *arg)
{
	(void)arg;
	printf("first call: %ld bytes\n", stack_used_by_call());
	return NULL;
}

static void *stackuse_thread(void *arg)
{
	size_t size = 65536;
	stack_t ss = {.ss_sp = malloc(size), .ss_size = size};
	struct sigaction sa;
	long later;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1_measure;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (!ss.ss_sp || sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
		return NULL;
	pthread_kill(pthread_self(), SIGUSR1);
	later = stack_used_by_call();
	printf("first call, in a handler on a sigaltstack: %ld bytes\n", stack_in_handler);
	printf("a later call: %ld bytes\n", later);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	return NULL;
}

/* ---- sandbox --------------------------------------------------------------- */

/*
 * What the program itself needs from here on, and nothing else allowed:
 * the process killed on any other system call.
 */
static int sandbox_load(void)
{
	static const int allowed[] = {
		SCMP_SYS(write),
		SCMP_SYS(exit_group),
		SCMP_SYS(exit),
		SCMP_SYS(futex),
		SCMP_SYS(mmap),
		SCMP_SYS(munmap),
		SCMP_SYS(mprotect),
		SCMP_SYS(brk),
		SCMP_SYS(clone),
		SCMP_SYS(clone3),
		SCMP_SYS(rt_sigprocmask),
		SCMP_SYS(rt_sigaction),
		SCMP_SYS(set_robust_list),
		SCMP_SYS(rseq),
		SCMP_SYS(madvise),
		SCMP_SYS(wait4),
	};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int err = ctx ? 0 : -1;

	for (size_t i = 0; !err && i < sizeof(allowed) / sizeof(allowed[0]); i++)
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
	if (!err)
		err = seccomp_load(ctx);
	seccomp_release(ctx);
	return err;
}

static pthread_barrier_t sandbox_all;

/* One call, then the others' first calls awaited, then 999 more. */
static void *sandbox_together_thread(void *arg)
{
	long sum = xs_work(0);

	(void)arg;
	pthread_barrier_wait(&sandbox_all);
	for (long i = 1; i < 1000; i++)
		sum += xs_work(i);
	return (void *)sum;
}

static int sandbox_mode(int threads, bool child, bool together)
{
	pthread_t t[16];
	long sum = 0;
	int err;

	if (threads > 16)
		threads = 16;
	if (together)
		pthread_barrier_init(&sandbox_all, NULL, (unsigned)threads);
	for (long i = 0; i < 10; i++)
		sum += xs_work(i);
	printf("before the filter %ld\n", sum);
	fflush(stdout);
	err = sandbox_load();
	if (err) {
		fprintf(stderr, "safety: seccomp: %s\n", strerror(-err));
		return 3;
	}
	for (long i = 0; i < 10; i++)
		sum += xs_work(i);
	sum += xs_other(7);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, together ? sandbox_together_thread : calls_thread,
			       (void *)1000L);
	for (int i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (long)r;
	}
	if (child) {
		int status;
		pid_t pid = fork();

		if (!pid) {
			for (long i = 0; i < 5; i++)
				sum += xs_work(i);
			_exit(0);
		}
		waitpid(pid, &status, 0);
		printf("the child ended with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	printf("after it %ld\n", sum);
	return 0;
}

/* ---- forklayout ---------------------------------------------------------- */

#define FL_THREADS  4
#define FL_CHILDREN 5

static pthread_mutex_t fl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fl_done = PTHREAD_COND_INITIALIZER;
static bool fl_over;

/* Its first hooked call, then alive to the end: the next round's threads need new workers. */
static void *fl_thread(void *arg)
{
	(void)arg;
	xs_other(1);
	pthread_mutex_lock(&fl_lock);
	while (!fl_over)
		pthread_cond_wait(&fl_done, &fl_lock);
	pthread_mutex_unlock(&fl_lock);
	return NULL;
}

/* Wait for @pid for 5 s at most; kill it then.  Whether it ended by itself, with status 0. */
static bool fl_reap(pid_t pid)
{
	struct timespec ms = {0, 1000000};
	int status;

	for (int i = 0; i < 5000; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (r < 0)
			return false;
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return false;
}

static int forklayout(int rounds)
{
	pthread_t *t = calloc((size_t)rounds * FL_THREADS, sizeof(*t));
	int stuck = 0, ret = 0;

	if (!t)
		return 3;
	for (int r = 0; r < rounds && !stuck; r++) {
		pid_t kids[FL_CHILDREN];

		for (int i = 0; i < FL_THREADS; i++)
			pthread_create(&t[r * FL_THREADS + i], NULL, fl_thread, NULL);
		for (int k = 0; k < FL_CHILDREN; k++) {
			kids[k] = fork();
			if (kids[k] == 0) {
				long sum = 0;

				for (long i = 0; i < 3; i++)
					sum += xs_work(i);
				_exit(sum == 12 ? 0 : 1);
			}
		}
		for (int k = 0; k < FL_CHILDREN; k++)
			if (kids[k] < 0 || !fl_reap(kids[k]))
				stuck++;
	}
	pthread_mutex_lock(&fl_lock);
	fl_over = true;
	pthread_cond_broadcast(&fl_done);
	pthread_mutex_unlock(&fl_lock);
	for (int i = 0; i < rounds * FL_THREADS; i++)
		if (t[i])
			pthread_join(t[i], NULL);
	free(t);
	if (stuck) {
		printf("forklayout: a child stuck or failed (%d)\n", stuck);
		ret = 6;
	}
	printf("forklayout: %d rounds\n", rounds);
	return ret;
}

/* ---- dlrace ------------------------------------------------------------- */

#define DR_THREADS 4

static long (*dr_lib_work)(long);
static unsigned long n_lib_work;
static int dr_go, dr_done;
static pthread_mutex_t dr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dr_end = PTHREAD_COND_INITIALIZER;
static bool dr_over;

static long dr_calls(void)
{
	long (*lib_work)(long) = __atomic_load_n(&dr_lib_work, __ATOMIC_ACQUIRE);
	long sum = 0;

	for (long i = 0; i < 100; i++)
		sum += xs_work(i);
	if (lib_work) {
		sum += lib_work(sum);
		__atomic_add_fetch(&n_lib_work, 1, __ATOMIC_RELAXED);
	}
	return sum;
}

/* Its first hooked calls once the main thread dlopens, then alive to the end. */
static void *dr_thread(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&dr_go, __ATOMIC_ACQUIRE))
		sched_yield();
	dr_calls();
	__atomic_add_fetch(&dr_done, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&dr_lock);
	while (!dr_over)
		pthread_cond_wait(&dr_end, &dr_lock);
	pthread_mutex_unlock(&dr_lock);
	return NULL;
}

static void *dr_short(void *arg)
{
	(void)arg;
	dr_calls();
	return NULL;
}

/*
 * Every new worker's dump laid out while a dlopen is in progress, by
 * construction: the threads start their calls when the main thread is
 * about to dlopen, and it dlopens until they are all done.
 */
static int dlrace(const char *lib, int rounds)
{
	pthread_t *t = calloc((size_t)rounds * DR_THREADS, sizeof(*t));
	void *keep = NULL;
	long dlopens = 0;

	if (!t)
		return 3;
	for (int r = 0; r < rounds; r++) {
		__atomic_store_n(&dr_go, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&dr_done, 0, __ATOMIC_RELAXED);
		for (int i = 0; i < DR_THREADS; i++)
			pthread_create(&t[r * DR_THREADS + i], NULL, dr_thread, NULL);
		__atomic_store_n(&dr_go, 1, __ATOMIC_RELEASE);
		do {
			void *h = dlopen(lib, RTLD_NOW);

			if (!h) {
				fprintf(stderr, "safety: %s\n", dlerror());
				return 4;
			}
			dlopens++;
			if (!keep) {
				keep = h;
				__atomic_store_n(&dr_lib_work,
						 (long (*)(long))dlsym(h, "xs_lib_work"),
						 __ATOMIC_RELEASE);
			} else {
				dlclose(h);
			}
		} while (__atomic_load_n(&dr_done, __ATOMIC_ACQUIRE) < DR_THREADS);
	}
	pthread_mutex_lock(&dr_lock);
	dr_over = true;
	pthread_cond_broadcast(&dr_end);
	pthread_mutex_unlock(&dr_lock);
	for (int i = 0; i < rounds * DR_THREADS; i++)
		pthread_join(t[i], NULL);
	free(t);
	for (int i = 0; i < 300; i++) {
		pthread_t s;

		pthread_create(&s, NULL, dr_short, NULL);
		pthread_join(s, NULL);
	}
	fprintf(stderr, "safety: %ld dlopens during the threads' first calls\n", dlopens);
	TRUTH("truth", "xs_lib_work", n_lib_work);
	printf("dlrace: %d rounds of %d threads, then 300 threads\n", rounds, DR_THREADS);
	return 0;
}

/* ---- clone, vmexit ------------------------------------------------------ */

#define CL_STACK (256 * 1024)

static int cl_go;
static unsigned long n_wait, n_spawn;

/* No TLS of its own: errno, stdio and malloc are the main thread's; none used. */
static int cl_child(void *arg)
{
	long n = (long)arg, sum = 0;

	while (!__atomic_load_n(&cl_go, __ATOMIC_ACQUIRE))
		;
	for (long i = 0; i < n; i++)
		sum += xs_work(i);
	return sum == 0;
}

/* Wait, inside a hooked function, until the child clone() made on *@ctid has ended. */
HOOKED long xs_wait(volatile pid_t *ctid)
{
	pid_t tid;

	__atomic_add_fetch(&n_wait, 1, __ATOMIC_RELAXED);
	while ((tid = *ctid) != 0)
		syscall(SYS_futex, ctid, FUTEX_WAIT, tid, NULL, NULL, 0);
	return 0;
}

/*
 * Start the child on @stack_top (its thread id in *@ctid until it ends),
 * inside a hooked function: with steps, its first evaluation is stepped,
 * and the child starts with the trap flag set.
 */
HOOKED int xs_spawn(char *stack_top, long n, volatile pid_t *ctid)
{
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;

	__atomic_add_fetch(&n_spawn, 1, __ATOMIC_RELAXED);
	return clone(cl_child, stack_top, flags, (void *)n, ctid, NULL, ctid);
}

/* A child on @stack_top calls xs_work @n times while this thread calls xs_other @n times. */
static long cl_both_at_once(char *stack_top, long n)
{
	volatile pid_t ctid = 0;
	long sum = 0;

	__atomic_store_n(&cl_go, 0, __ATOMIC_RELAXED);
	if (xs_spawn(stack_top, n, &ctid) < 0) {
		perror("clone");
		exit(3);
	}
	__atomic_store_n(&cl_go, 1, __ATOMIC_RELEASE);
	for (long i = 0; i < n; i++)
		sum += xs_other(i);
	return sum + xs_wait(&ctid);
}

/* The child's stack an array of this frame: on the main thread's stack. */
static __attribute__((noinline)) long cl_on_my_stack(long n)
{
	char stack[CL_STACK] __attribute__((aligned(16)));

	return cl_both_at_once(stack + sizeof(stack), n);
}

static int clone_mode(long n)
{
	char *stack = mmap(NULL, CL_STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	long sum = 0;

	if (stack == MAP_FAILED)
		return 3;
	for (long i = 0; i < n; i++)
		sum += xs_work(i);
	sum += cl_both_at_once(stack + CL_STACK, n);
	sum += cl_on_my_stack(n);
	for (long i = 0; i < n; i++)
		sum += xs_work(i);
	munmap(stack, CL_STACK);
	TRUTH("truth", "xs_wait", n_wait);
	TRUTH("truth", "xs_spawn", n_spawn);
	printf("clone: sum %ld\n", sum);
	return 0;
}

static int vm_child(void *arg)
{
	(void)arg;
	xs_work(1);
	xs_work(2);
	exit(0);
}

static int vmexit(long n)
{
	char *stack = mmap(NULL, CL_STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	long sum = 0;
	int status;
	pid_t pid;

	if (stack == MAP_FAILED)
		return 3;
	fflush(stdout);
	pid = clone(vm_child, stack + CL_STACK, CLONE_VM | SIGCHLD, NULL);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 3;
	for (long i = 0; i < n; i++)
		sum += xs_work(i);
	printf("vmexit: child status %d, sum %ld\n", status, sum);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int ret = 0;

	if (!strcmp(mode, "calls") && argc > 2) {
		printf("sum %ld\n", calls(atol(argv[2])));
	} else if (!strcmp(mode, "sigmalloc") && argc > 2) {
		ret = sigmalloc(atoi(argv[2]));
	} else if (!strcmp(mode, "chdir") && argc > 2) {
		long sum = calls(10);

		if (chdir(argv[2])) {
			perror(argv[2]);
			return 3;
		}
		printf("sum %ld\n", sum + calls(10));
	} else if (!strcmp(mode, "daemon") && argc > 3) {
		ret = daemon_like(argv[2], argv[3]);
	} else if (!strcmp(mode, "popen")) {
		char line[256];
		FILE *p = popen("sh -c 'echo from the child' 2>&1", "r");

		if (!p)
			return 3;
		while (fgets(line, sizeof(line), p))
			printf("child said: %s", line);
		printf("child status %d, sum %ld\n", pclose(p), calls(3));
	} else if (!strcmp(mode, "spawn")) {
		ret = spawn(argv[0]);
	} else if (!strcmp(mode, "forklayout") && argc > 2) {
		ret = forklayout(atoi(argv[2]));
	} else if (!strcmp(mode, "fill") && argc > 2) {
		ret = fill_mode(argv[2], argc > 3 && !strcmp(argv[3], "keep"));
	} else if (!strcmp(mode, "clone") && argc > 2) {
		ret = clone_mode(atol(argv[2]));
	} else if (!strcmp(mode, "vmexit") && argc > 2) {
		ret = vmexit(atol(argv[2]));
	} else if (!strcmp(mode, "dlrace") && argc > 3) {
		ret = dlrace(argv[2], atoi(argv[3]));
	} else if (!strncmp(mode, "cancel", 6) && argc > 2) {
		ret = cancel_mode(mode + 6, atoi(argv[2]));
	} else if (!strcmp(mode, "altstack") && argc > 2) {
		long handled = on_thread(altstack_thread, (void *)strtoul(argv[2], NULL, 0), 0);

		printf("handled %ld\n", handled);
		ret = handled < 0 ? 3 : 0;
	} else if (!strcmp(mode, "smallstack") && argc > 2) {
		printf("deep %ld\n", on_thread(smallstack_thread, (void *)strtol(argv[2], NULL, 0),
					       PTHREAD_STACK_MIN));
	} else if (!strcmp(mode, "stackuse")) {
		on_thread(stackuse_first_thread, NULL, 0);
		on_thread(stackuse_thread, NULL, 0);
	} else if (!strcmp(mode, "sandbox") && argc > 2) {
		ret = sandbox_mode(atoi(argv[2]), argc > 3 && !strcmp(argv[3], "fork"),
				   argc > 3 && !strcmp(argv[3], "together"));
	} else if (!strcmp(mode, "dlopen") && argc > 2) {
		if (!dlopen(argv[2], RTLD_NOW)) {
			fprintf(stderr, "safety: %s\n", dlerror());
			return 3;
		}
		printf("sum %ld\n", calls(4));
	} else {
		fprintf(stderr, "usage: safety calls N | sigmalloc N | chdir DIR | daemon DATA LIB "
				"| popen | spawn | forklayout N | clone N | vmexit N | dlrace LIB "
				"N | dlopen SHIM | fill FILE [keep] "
				"| cancelfirst N | cancelsleep N | cancelasync N | altstack SIZE "
				"| smallstack FRAME | stackuse | sandbox N [fork]\n");
		return 2;
	}
	fflush(stdout);
	truth();
	return ret;
}
