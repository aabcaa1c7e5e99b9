// SPDX-License-Identifier: MIT
/*
 * steps: functions whose instruction counts are known exactly, for the
 * steps counter's tests (tests/integration/test_steps.c).  They are written
 * in assembly, so that the count is the same whatever the compiler does;
 * per call, every instruction from the first (endbr64 included) to ret:
 *
 *   st_straight()     7   endbr64, 5 straight-line instructions, ret
 *   st_loop(n)     3n+3   a loop of n trips (n >= 1), no endbr64
 *   st_outer(n)   10n+8   n calls of the hooked st_straight: its 7 and the
 *                         call, dec and jnz around it (st_straight's stub
 *                         and hook are not counted)
 *   st_branchy(x)  4 / 5  a jcc among the patched bytes (moved to the
 *                         stub): 4 when x != 0, 5 when x == 0
 *   st_callfirst() 7      a call as the patched bytes (moved too), of
 *                         st_leaf (3), then 3 more
 *   st_rep(n)      6      rep movsb of n bytes: one instruction
 *   st_sys()       4      endbr64, getpid by syscall: one instruction
 *   st_flags()     9      pushf and popf: returns the trap flag as the
 *                         program sees it in pushf's flags (0: unseen)
 *   st_tick()      3      called by the interval timer's handler
 *   st_e_int3()    4      an int3 to the program's own SIGTRAP handler
 *
 * and two in C: st_c_sum(), whose count the tests take from callgrind, and
 * st_c_copy(), a memcpy of 200 bytes through the PLT.
 *
 *   steps [-n N] [-t T] [-i USEC] [-l L] SCENARIO
 *     known    N calls of each of the above (st_branchy with x = i & 1,
 *              st_rep(1000), st_loop(10), st_outer(3)), in T threads
 *              at once, each holding a worker before any ends (0: in the
 *              main thread), with an interval timer
 *              firing every USEC microseconds (0: none) whose handler
 *              does some work and calls st_tick()
 *     c        N calls of st_c_sum() on the same data, and of st_c_copy()
 *     loop     N calls of st_loop(L) (-l L, default 1000), for the benchmark
 *              (scripts/bench-steps.sh), as is
 *     straight N calls of st_straight(), for the benchmark
 *     edge     in hooked functions (st_e_*): pthread_create, fork, raise
 *              (glibc blocks every signal around it), a longjmp out, an
 *              int3 to the program's own SIGTRAP handler, sigprocmask
 *              blocking SIGTRAP and reading it back, a recursion, the vDSO's
 *              clock_gettime; N rounds
 *
 * stdout is deterministic.  stderr ends with "checker-truth: SYMBOL COUNT"
 * lines: the calls made, outermost ones.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char st_buf_a[4096], st_buf_b[4096];

__asm__(".text\n"
	".globl st_straight\n.type st_straight,@function\n"
	"st_straight:\n"
	"	endbr64\n"
	"	mov $1, %eax\n"
	"	add $2, %eax\n"
	"	add $3, %eax\n"
	"	imul $3, %eax, %eax\n"
	"	sub $1, %eax\n"
	"	ret\n"
	".size st_straight, .-st_straight\n"

	".globl st_loop\n.type st_loop,@function\n"
	"st_loop:\n"
	"	mov %rdi, %rcx\n"
	"	xor %eax, %eax\n"
	"1:	add $1, %eax\n"
	"	dec %rcx\n"
	"	jnz 1b\n"
	"	ret\n"
	".size st_loop, .-st_loop\n"

	".globl st_outer\n.type st_outer,@function\n"
	"st_outer:\n"
	"	endbr64\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	mov %rdi, %rbx\n"
	"	xor %r12d, %r12d\n"
	"1:	call st_straight\n"
	"	dec %rbx\n"
	"	jnz 1b\n"
	"	pop %r12\n"
	"	pop %rbx\n"
	"	ret\n"
	".size st_outer, .-st_outer\n"

	".globl st_branchy\n.type st_branchy,@function\n"
	"st_branchy:\n"
	"	test %rdi, %rdi\n"
	"	je 1f\n"
	"	mov $7, %eax\n"
	"	ret\n"
	"1:	mov $9, %eax\n"
	"	add $1, %eax\n"
	"	ret\n"
	".size st_branchy, .-st_branchy\n"

	".globl st_callfirst\n.type st_callfirst,@function\n"
	"st_callfirst:\n"
	"	call st_leaf\n"
	"	add $1, %eax\n"
	"	add $1, %eax\n"
	"	ret\n"
	".size st_callfirst, .-st_callfirst\n"

	".globl st_leaf\n.type st_leaf,@function\n"
	"st_leaf:\n"
	"	mov $5, %eax\n"
	"	add $1, %eax\n"
	"	ret\n"
	".size st_leaf, .-st_leaf\n"

	".globl st_rep\n.type st_rep,@function\n"
	"st_rep:\n"
	"	mov %rdi, %rcx\n"
	"	lea st_buf_a(%rip), %rsi\n"
	"	lea st_buf_b(%rip), %rdi\n"
	"	rep movsb\n"
	"	mov %rcx, %rax\n"
	"	ret\n"
	".size st_rep, .-st_rep\n"

	".globl st_sys\n.type st_sys,@function\n"
	"st_sys:\n"
	"	endbr64\n"
	"	mov $39, %eax\n" /* getpid */
	"	syscall\n"
	"	ret\n"
	".size st_sys, .-st_sys\n"

	".globl st_flags\n.type st_flags,@function\n"
	"st_flags:\n"
	"	mov %rdi, %rdx\n"
	"	xor %eax, %eax\n"
	"	pushfq\n"
	"	popq %rax\n"
	"	andl $0x100, %eax\n"
	"	pushfq\n"
	"	popfq\n"
	"	nop\n"
	"	ret\n"
	".size st_flags, .-st_flags\n"

	/* an int3 to the program's own SIGTRAP handler: 4 */
	".globl st_e_int3\n.type st_e_int3,@function\n"
	"st_e_int3:\n"
	"	mov $1, %eax\n"
	"	int3\n"
	"	add $1, %eax\n"
	"	ret\n"
	".size st_e_int3, .-st_e_int3\n"

	".globl st_tick\n.type st_tick,@function\n"
	"st_tick:\n"
	"	mov $3, %eax\n"
	"	add $4, %eax\n"
	"	ret\n"
	".size st_tick, .-st_tick\n");

long st_straight(void);
long st_loop(long n);
long st_outer(long n);
long st_branchy(long x);
long st_callfirst(void);
long st_rep(long n);
long st_sys(void);
long st_flags(void);
long st_tick(void);
int st_e_int3(void);

enum {
	T_STRAIGHT,
	T_LOOP,
	T_OUTER,
	T_BRANCHY,
	T_CALLFIRST,
	T_LEAF,
	T_REP,
	T_SYS,
	T_FLAGS,
	T_TICK,
	T_C_SUM,
	T_C_COPY,
	T_E_CREATE,
	T_E_FORK,
	T_E_RAISE,
	T_E_INT3,
	T_E_MASK,
	T_E_REC,
	T_E_VDSO,
	T_N
};

static const char *const truth_names[T_N] = {
	"st_straight", "st_loop",   "st_outer",	   "st_branchy", "st_callfirst",
	"st_leaf",     "st_rep",    "st_sys",	   "st_flags",	 "st_tick",
	"st_c_sum",    "st_c_copy", "st_e_create", "st_e_fork",	 "st_e_raise",
	"st_e_int3",   "st_e_mask", "st_e_rec",	   "st_e_vdso",
};
static atomic_long truth[T_N];

static void truth_print(void)
{
	for (int i = 0; i < T_N; i++)
		fprintf(stderr, "checker-truth: %s %ld\n", truth_names[i], atomic_load(&truth[i]));
}

/* ---- known ---------------------------------------------------------------------------- */

static long known_n;
static atomic_long flags_seen;
/* the threads of "known" each take a worker before any of them ends */
static pthread_barrier_t known_barrier;
static bool known_threads;

static void on_alarm(int sig)
{
	volatile long x = 0;

	(void)sig;
	for (int i = 0; i < 50; i++)
		x += i;
	st_tick();
	atomic_fetch_add(&truth[T_TICK], 1);
}

static void *known_run(void *arg)
{
	sigset_t alrm;
	long s = 0;

	(void)arg;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	for (long i = 0; i < known_n; i++) {
		s += st_straight() + st_loop(10) + st_outer(3) + st_branchy(i & 1) +
		     st_callfirst() + st_rep(1000) + st_sys();
		if (st_flags())
			atomic_fetch_add(&flags_seen, 1);
		/* the ticks from now: a thread's first hooked call takes it a worker, and a
		 * hooked call of a handler interrupting that passes uncounted */
		if (!i) {
			pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
			if (known_threads)
				pthread_barrier_wait(&known_barrier);
		}
	}
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	atomic_fetch_add(&truth[T_STRAIGHT], known_n * 4);
	atomic_fetch_add(&truth[T_LOOP], known_n);
	atomic_fetch_add(&truth[T_OUTER], known_n);
	atomic_fetch_add(&truth[T_BRANCHY], known_n);
	atomic_fetch_add(&truth[T_CALLFIRST], known_n);
	atomic_fetch_add(&truth[T_LEAF], known_n);
	atomic_fetch_add(&truth[T_REP], known_n);
	atomic_fetch_add(&truth[T_SYS], known_n);
	atomic_fetch_add(&truth[T_FLAGS], known_n);
	return (void *)(intptr_t)(s != 0);
}

static int known(long threads, long usec)
{
	pthread_t t[64];
	struct itimerval it = {{0, usec}, {0, usec}};
	sigset_t alrm;

	/* the threads unblock it once they have a worker; the main thread never does */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, NULL);
	if (usec) {
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	if (!threads) {
		known_run(NULL);
	} else {
		if (threads > 64)
			threads = 64;
		known_threads = true;
		pthread_barrier_init(&known_barrier, NULL, (unsigned)threads);
		for (long i = 0; i < threads && i < 64; i++)
			pthread_create(&t[i], NULL, known_run, NULL);
		for (long i = 0; i < threads && i < 64; i++)
			pthread_join(t[i], NULL);
	}
	printf("known: %ld rounds, the trap flag seen %ld times\n", known_n,
	       atomic_load(&flags_seen));
	return 0;
}

/* ---- c ---------------------------------------------------------------------------------- */

static uint32_t c_data[256];

__attribute__((noipa)) static uint32_t st_c_mix(uint32_t h, uint32_t v)
{
	h ^= v;
	h *= 16777619u;
	return h ^ (h >> 13);
}

/* Deterministic, branchy, no libc and no rep-prefixed instruction. */
__attribute__((noipa)) uint32_t st_c_sum(const uint32_t *v, unsigned n)
{
	uint32_t h = 2166136261u;

	for (unsigned i = 0; i < n; i++) {
		if (v[i] & 1)
			h = st_c_mix(h, v[i]);
		else
			h += v[i] >> 3;
	}
	return h;
}

/* memcpy through the PLT, of a size the compiler cannot see: libc's own code */
static volatile size_t c_copy_len = 200;
static char c_copy_src[256], c_copy_dst[256];

__attribute__((noipa)) size_t st_c_copy(void)
{
	memcpy(c_copy_dst, c_copy_src, c_copy_len);
	return c_copy_len;
}

static int c_sum(long n)
{
	uint32_t h = 0;

	for (unsigned i = 0; i < 256; i++)
		c_data[i] = i * 2654435761u;
	for (long i = 0; i < n; i++)
		h ^= st_c_sum(c_data, 256) + (uint32_t)st_c_copy();
	atomic_fetch_add(&truth[T_C_SUM], n);
	atomic_fetch_add(&truth[T_C_COPY], n);
	printf("c: %ld calls, %08x\n", n, h);
	return 0;
}

/* ---- edge ------------------------------------------------------------------------------- */

static jmp_buf edge_jb;
static volatile int edge_traps;

static void edge_on_trap(int sig)
{
	(void)sig;
	edge_traps++;
}

static void *edge_thread(void *arg)
{
	return arg;
}

__attribute__((noinline)) int st_e_create(void)
{
	pthread_t t;
	void *r;

	pthread_create(&t, NULL, edge_thread, (void *)7);
	pthread_join(t, &r);
	return (int)(intptr_t)r;
}

__attribute__((noinline)) int st_e_fork(void)
{
	pid_t p = fork();
	int st;

	if (!p)
		_exit(3);
	waitpid(p, &st, 0);
	return WEXITSTATUS(st);
}

__attribute__((noinline)) int st_e_raise(void)
{
	return raise(SIGUSR1) == 0;
}

__attribute__((noinline)) void st_e_jump(void)
{
	longjmp(edge_jb, 1);
}

/* Blocks SIGTRAP, reads the mask back, restores it: 1 when it reads SIGTRAP blocked. */
__attribute__((noinline)) int st_e_mask(void)
{
	sigset_t all, old, now;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return sigismember(&now, SIGTRAP);
}

/* The vDSO's clock: user-mode code, counted as the program's. */
__attribute__((noinline)) int st_e_vdso(void)
{
	struct timespec ts;

	return clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts.tv_sec > 0;
}

__attribute__((noinline)) int st_e_rec(int d)
{
	volatile int v = d;
	int r;

	if (v <= 0)
		return 0;
	r = st_e_rec(v - 1);
	/* a real recursion, not a loop the compiler makes of it */
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

static int edge(long n)
{
	sigset_t now;

	signal(SIGUSR1, SIG_IGN);
	signal(SIGTRAP, edge_on_trap);
	for (volatile long i = 0; i < n; i++) {
		int a = st_e_create(), b = st_e_fork(), c = st_e_raise(), d, e, f;

		if (!setjmp(edge_jb))
			st_e_jump();
		d = st_e_int3() + edge_traps;
		e = st_e_mask();
		f = st_e_rec(5);
		printf("edge %ld: create %d fork %d raise %d int3 %d mask %d rec %d vdso %d\n",
		       (long)i, a, b, c, d, e, f, st_e_vdso());
	}
	for (int t = T_E_CREATE; t <= T_E_VDSO; t++)
		atomic_fetch_add(&truth[t], n);
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("edge: SIGTRAP blocked at the end: %d\n", sigismember(&now, SIGTRAP));
	return 0;
}

/* ---- the benchmark's ------------------------------------------------------------------ */

static int bench_loop(long n, long len)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += st_loop(len);
	printf("loop: %ld calls of %ld trips, %ld\n", n, len, s);
	return 0;
}

static int bench_straight(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += st_straight();
	printf("straight: %ld calls, %ld\n", n, s);
	return 0;
}

int main(int argc, char **argv)
{
	long n = 10, threads = 0, usec = 0, len = 1000;
	int opt, ret = 2;

	while ((opt = getopt(argc, argv, "n:t:i:l:")) != -1) {
		if (opt == 'n')
			n = atol(optarg);
		else if (opt == 'l')
			len = atol(optarg);
		else if (opt == 't')
			threads = atol(optarg);
		else if (opt == 'i')
			usec = atol(optarg);
		else
			return 2;
	}
	if (optind >= argc)
		return 2;
	known_n = n;
	if (!strcmp(argv[optind], "known"))
		ret = known(threads, usec);
	else if (!strcmp(argv[optind], "c"))
		ret = c_sum(n);
	else if (!strcmp(argv[optind], "edge"))
		ret = edge(n);
	else if (!strcmp(argv[optind], "loop"))
		ret = bench_loop(n, len > 0 ? len : 1);
	else if (!strcmp(argv[optind], "straight"))
		ret = bench_straight(n);
	fflush(stdout);
	truth_print();
	return ret;
}
