// SPDX-License-Identifier: MIT
/*
 * work: functions that do a known amount of work, for the measurement tests
 * (tests/integration/test_measure.c).
 *
 * One unit of work is one step of a dependent multiply-add chain (a few
 * cycles of real CPU work, for the tsc tests) and one increment of both
 * work_global and the thread-local work_tls (for EXTPROF_COUNTER=var:...,
 * where every figure is exact).  Per call:
 *
 *   leaf(k)      k units            twice(k)     2k units
 *   empty()      nothing at all     outer(n, k)  n calls of inner(k), and 1
 *   inner(k)     k units
 *   vary(i)      i % 100 units      rec(d)       1, and rec(d - 1) while d > 0
 *   pred(x)      x units, called by from_a() (x = 10) and from_b() (x = 30)
 *   search(b, k) the window: b calls of leaf(k) and of twice(k)
 *   search_mt()  a window whose work is done by other threads
 *   mul16() ... mul256()    16 ... 256 dependent multiplies, each waiting for
 *                           the one before (no units)
 *   add256() ... add1024()  256 ... 1024 adds in 4 independent chains, which
 *                           an out-of-order core runs side by side (no units)
 *
 * empty(), inner() and the mul and add functions count nothing themselves:
 * their callers count their calls, so that what is measured is only what
 * they say they do (an atomic add at the end of a callee would add its own
 * latency to the caller's figure once the callee is hooked: the fences
 * around a hooked call let nothing of the call overlap what follows it).
 *
 *   work [-n N] [-k K] [-d D] [-t T] SCENARIO
 *     basic    N calls each of leaf(K), twice(K) and empty()
 *     scale    N calls each of empty(), mul16 ... mul256 and add256 ... add1024
 *     nested   N calls of outer(D, K)
 *     vary     vary(i) for i in 0..N-1
 *     rec      N calls of rec(D)
 *     window   N calls of leaf(K) and empty(), then search(N, K), then N
 *              calls of leaf(K) and twice(K)
 *     window-mt
 *              N calls of leaf(K); then search_mt(), in which D threads
 *              make N calls of leaf(K) each; then D threads more do the same
 *     crowd    D threads alive at once, each making N calls of leaf(K)
 *     callers  N calls of from_a(), 2N of from_b()
 *     wait, segv, exit
 *              N calls of leaf(1), "calls N" on stdout (flushed), then
 *              sleep until killed, dereference NULL, or _exit(3)
 *   -t T runs the scenario in T threads at once (0: in the main thread).
 *
 * stdout is deterministic.  stderr ends with "checker-truth: SYMBOL COUNT"
 * lines (completed outermost calls) and "checker-total:" lines (every call,
 * recursive ones included).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"

uint64_t work_global;
__thread uint64_t work_tls;

/* The chain's result goes here, so the compiler must compute it. */
static __thread uint64_t work_sink;

enum {
	F_LEAF,
	F_TWICE,
	F_EMPTY,
	F_OUTER,
	F_INNER,
	F_VARY,
	F_REC,
	F_PRED,
	F_FROM_A,
	F_FROM_B,
	F_SEARCH,
	F_SEARCH_MT,
	F_MUL16,
	F_MUL32,
	F_MUL64,
	F_MUL128,
	F_MUL256,
	F_ADD256,
	F_ADD512,
	F_ADD1024,
	F_N
};
static const char *const fn_names[F_N] = {
	"leaf",	 "twice",  "empty",  "outer",  "inner",	    "vary",    "rec",
	"pred",	 "from_a", "from_b", "search", "search_mt", "mul16",   "mul32",
	"mul64", "mul128", "mul256", "add256", "add512",    "add1024",
};
static uint64_t truth[F_N];
static uint64_t rec_total;
static __thread int rec_depth;

static void count(int f)
{
	__atomic_add_fetch(&truth[f], 1, __ATOMIC_RELAXED);
}

static inline void charge(uint64_t k)
{
	uint64_t x = work_sink;

	for (uint64_t i = 0; i < k; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* keeps it a chain of k real steps: no closed form, no vectors */
		__asm__ volatile("" : "+r"(x));
	}
	work_sink = x;
	work_global += k;
	work_tls += k;
}

HOOKED void leaf(uint64_t k)
{
	charge(k);
	count(F_LEAF);
}

HOOKED void twice(uint64_t k)
{
	charge(2 * k);
	count(F_TWICE);
}

/*
 * Nothing but a 5-byte nop, the least a function can hold and still be
 * hooked (what -mnop-mcount or patchable_function_entry leave at an entry):
 * its callers count its calls (call_empty), not it.
 */
HOOKED void empty(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"); /* nopl 0(%rax,%rax,1) */
}

static void call_empty(void)
{
	empty();
	count(F_EMPTY);
}

/* In assembly, so that no compiler folds, vectorizes or reorders the work. */
#define MUL(n)                                                                                     \
	HOOKED uint64_t mul##n(uint64_t x)                                                         \
	{                                                                                          \
		__asm__ volatile(".rept " #n "\n\timulq %0, %0\n\t.endr" : "+r"(x));               \
		return x;                                                                          \
	}
#define ADD(n)                                                                                     \
	HOOKED void add##n(void)                                                                   \
	{                                                                                          \
		__asm__ volatile(".rept " #n " / 4\n\t"                                            \
				 "addq $1, %%r8\n\taddq $1, %%r9\n\t"                              \
				 "addq $1, %%r10\n\taddq $1, %%r11\n\t"                            \
				 ".endr" ::                                                        \
					 : "r8", "r9", "r10", "r11");                              \
	}
MUL(16)
MUL(32)
MUL(64)
MUL(128)
MUL(256)
ADD(256)
ADD(512)
ADD(1024)

/* scale: N calls of each, counted here */
static void scale(uint64_t n)
{
	uint64_t (*const muls[])(uint64_t) = {mul16, mul32, mul64, mul128, mul256};
	void (*const adds[])(void) = {add256, add512, add1024};
	uint64_t x = 3;

	for (uint64_t i = 0; i < n; i++) {
		call_empty();
		for (int f = 0; f < 5; f++) {
			x = muls[f](x);
			count(F_MUL16 + f);
		}
		for (int f = 0; f < 3; f++) {
			adds[f]();
			count(F_ADD256 + f);
		}
	}
	work_sink += x;
}

HOOKED void inner(uint64_t k)
{
	charge(k);
}

HOOKED void outer(uint64_t n, uint64_t k)
{
	for (uint64_t i = 0; i < n; i++)
		inner(k);
	charge(1);
	__atomic_add_fetch(&truth[F_INNER], n, __ATOMIC_RELAXED);
	count(F_OUTER);
}

HOOKED void vary(uint64_t i)
{
	charge(i % 100);
	count(F_VARY);
}

HOOKED void rec(uint64_t d)
{
	int outermost = rec_depth++ == 0;

	charge(1);
	if (d > 0)
		rec(d - 1);
	rec_depth--;
	__atomic_add_fetch(&rec_total, 1, __ATOMIC_RELAXED);
	if (outermost)
		count(F_REC);
}

HOOKED void pred(uint64_t x)
{
	charge(x);
	count(F_PRED);
}

HOOKED void from_a(void)
{
	pred(10);
	count(F_FROM_A);
}

HOOKED void from_b(void)
{
	pred(30);
	count(F_FROM_B);
}

HOOKED void search(uint64_t b, uint64_t k)
{
	for (uint64_t i = 0; i < b; i++) {
		leaf(k);
		twice(k);
	}
	count(F_SEARCH);
}

struct params {
	const char *scenario;
	uint64_t n, k, d;
};

static void *leaf_thread(void *arg)
{
	const struct params *p = arg;

	for (uint64_t i = 0; i < p->n; i++)
		leaf(p->k);
	return NULL;
}

/* D threads, each making N calls of leaf(K); 0 if they all ran */
static int leaf_threads(const struct params *p)
{
	pthread_t th[64];
	uint64_t i, n = p->d < 64 ? p->d : 64;

	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, leaf_thread, (void *)p))
			break;
	n = i;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return n == p->d ? 0 : -1;
}

/*
 * crowd: D threads alive at once (up to 2048, more than the shim's 1024
 * workers), each making N calls of leaf(K) between two barriers.
 */
#define CROWD_MAX 2048
static pthread_barrier_t crowd_in, crowd_out;

static void *crowd_thread(void *arg)
{
	pthread_barrier_wait(&crowd_in);
	leaf_thread(arg);
	pthread_barrier_wait(&crowd_out);
	return NULL;
}

static int crowd(const struct params *p)
{
	static pthread_t th[CROWD_MAX];
	pthread_attr_t attr;
	uint64_t i;

	if (p->d < 1 || p->d > CROWD_MAX)
		return -1;
	pthread_barrier_init(&crowd_in, NULL, (unsigned)p->d);
	pthread_barrier_init(&crowd_out, NULL, (unsigned)p->d);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < p->d; i++)
		if (pthread_create(&th[i], &attr, crowd_thread, (void *)p))
			return -1; /* the others wait at the barrier: exit status 3 */
	for (i = 0; i < p->d; i++)
		pthread_join(th[i], NULL);
	return 0;
}

HOOKED int search_mt(const struct params *p)
{
	int err = leaf_threads(p);

	count(F_SEARCH_MT);
	return err;
}

static int run_scenario(const struct params *p)
{
	const char *s = p->scenario;

	if (!strcmp(s, "basic")) {
		for (uint64_t i = 0; i < p->n; i++) {
			leaf(p->k);
			twice(p->k);
			call_empty();
		}
	} else if (!strcmp(s, "scale")) {
		scale(p->n);
	} else if (!strcmp(s, "nested")) {
		for (uint64_t i = 0; i < p->n; i++)
			outer(p->d, p->k);
	} else if (!strcmp(s, "vary")) {
		for (uint64_t i = 0; i < p->n; i++)
			vary(i);
	} else if (!strcmp(s, "rec")) {
		for (uint64_t i = 0; i < p->n; i++)
			rec(p->d);
	} else if (!strcmp(s, "window")) {
		for (uint64_t i = 0; i < p->n; i++) {
			leaf(p->k);
			call_empty();
		}
		search(p->n, p->k);
		for (uint64_t i = 0; i < p->n; i++) {
			leaf(p->k);
			twice(p->k);
		}
	} else if (!strcmp(s, "window-mt")) {
		for (uint64_t i = 0; i < p->n; i++)
			leaf(p->k);
		if (search_mt(p) || leaf_threads(p))
			return -1;
	} else if (!strcmp(s, "crowd")) {
		return crowd(p);
	} else if (!strcmp(s, "callers")) {
		for (uint64_t i = 0; i < p->n; i++) {
			from_a();
			from_b();
			from_b();
		}
	} else {
		return -1;
	}
	return 0;
}

static const char *const scenarios[] = {
	"basic", "scale",   "nested", "vary", "rec",  "window", "window-mt",
	"crowd", "callers", "wait",   "segv", "exit", NULL,
};

static int known(const char *s)
{
	for (int i = 0; scenarios[i]; i++)
		if (!strcmp(s, scenarios[i]))
			return 1;
	return 0;
}

static void *thread_main(void *arg)
{
	run_scenario(arg);
	return NULL;
}

/* wait, segv, exit: what the tests of "nothing lost" kill or crash. */
static void run_ending(const struct params *p)
{
	for (uint64_t i = 0; i < p->n; i++)
		leaf(1);
	printf("calls %llu\n", (unsigned long long)p->n);
	fflush(stdout);
	if (!strcmp(p->scenario, "segv"))
		*(volatile int *)(uintptr_t)0 = 1;
	if (!strcmp(p->scenario, "exit"))
		_exit(3);
	for (;;)
		pause();
}

static void usage(void)
{
	fprintf(stderr,
		"usage: work [-n N] [-k K] [-d D] [-t T] "
		"basic|scale|nested|vary|rec|window|window-mt|crowd|callers|wait|segv|exit\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct params p = {NULL, 1000, 10, 3};
	pthread_t th[64];
	long threads = 0;
	int c;

	while ((c = getopt(argc, argv, "n:k:d:t:")) != -1) {
		switch (c) {
		case 'n':
			p.n = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			p.k = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			p.d = strtoull(optarg, NULL, 0);
			break;
		case 't':
			threads = strtol(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || threads < 0 || threads > 64)
		usage();
	p.scenario = argv[optind];
	if (!known(p.scenario))
		usage();
	if (!strcmp(p.scenario, "wait") || !strcmp(p.scenario, "segv") ||
	    !strcmp(p.scenario, "exit"))
		run_ending(&p);
	if (threads == 0 && run_scenario(&p))
		return 3;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, thread_main, &p))
			return 3;
	for (long i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("work %s: n=%llu k=%llu d=%llu threads=%ld\n", p.scenario, (unsigned long long)p.n,
	       (unsigned long long)p.k, (unsigned long long)p.d, threads);
	for (int f = 0; f < F_N; f++)
		TRUTH("truth", fn_names[f], truth[f]);
	TRUTH("total", "rec", rec_total);
	return 0;
}
