// SPDX-License-Identifier: MIT
/*
 * A program that calls into libc the ways real programs do, for the tests
 * of what may be hooked there (tests/integration/test_libc.c):
 *
 *   measure N    memcpy and strlen N times each inside measure(), and
 *                nothing else, so that EXTPROF_WINDOW=measure makes the
 *                counts exact
 *   old N        the same with memcpy@GLIBC_2.2.5, the version programs
 *                linked before glibc 2.14 call (bound here with .symver)
 *   chk N        memcpy, __memcpy_chk, mempcpy and __mempcpy_chk N times
 *                each inside measure_chk(), as a program built with
 *                -D_FORTIFY_SOURCE=2 calls them: glibc's __memcpy_chk_*
 *                falls through the padding into its __memcpy_*, and
 *                __mempcpy_* jumps into it past its first instruction
 *   fork N       memcpy and munmap N times each inside measure_fork(), then
 *                a fork child does the same and exits, as timeout(1) forks
 *                after its own calls: the shim's set-up of the child
 *                unmaps the parent's dumps, with munmap hooked
 *   twice        setjmp, _setjmp, sigsetjmp and getcontext return twice;
 *                vfork returns twice (the child execs /bin/true)
 *   caller       dlsym(RTLD_NEXT, "puts") must find libc's puts
 *   clock        clock_gettime, many times
 *
 * Built with -fno-builtin: every call goes to libc.  Each mode prints what
 * it saw, the same with or without the shim.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static char src[64] = "a string of some length, for strlen";
static char dst[64];
static volatile size_t sink;

__attribute__((noinline)) void measure(long n)
{
	for (long i = 0; i < n; i++) {
		memcpy(dst, src, sizeof(src));
		sink += strlen(dst);
	}
}

/* the old version of memcpy, as a program linked in 2010 binds it */
void *old_memcpy(void *d, const void *s, size_t n);
__asm__(".symver old_memcpy, memcpy@GLIBC_2.2.5");

__attribute__((noinline)) void measure_old(long n)
{
	for (long i = 0; i < n; i++) {
		old_memcpy(dst, src, sizeof(src));
		sink += strlen(dst);
	}
}

/* what a fortified memcpy or mempcpy calls when the destination's size is known */
void *__memcpy_chk(void *d, const void *s, size_t n, size_t dlen);
void *__mempcpy_chk(void *d, const void *s, size_t n, size_t dlen);

__attribute__((noinline)) void measure_chk(long n)
{
	for (long i = 0; i < n; i++) {
		size_t k = (size_t)(i % (long)sizeof(src)) + 1;

		memcpy(dst, src, k);
		__memcpy_chk(dst, src, k, sizeof(dst));
		sink += (size_t)((char *)mempcpy(dst, src, k) - dst);
		sink += (size_t)((char *)__mempcpy_chk(dst, src, k, sizeof(dst)) - dst);
	}
}

__attribute__((noinline)) void measure_fork(long n)
{
	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		memcpy(dst, src, sizeof(src));
		if (p != MAP_FAILED)
			sink += munmap(p, 4096) == 0;
	}
}

static int fork_loop(long n)
{
	int status;
	pid_t pid;

	measure_fork(n);
	pid = fork();
	if (pid == 0) {
		measure_fork(n);
		_exit(sink == 2 * (size_t)n ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return printf("fork failed\n"), 1;
	printf("fork: %zu munmap here, the child's status %d\n", (size_t)sink,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

static jmp_buf jb;
static sigjmp_buf sjb;

__attribute__((noinline)) static void jump_back(int which)
{
	if (which == 0)
		longjmp(jb, 7);
	_longjmp(jb, 8);
}

static int twice(void)
{
	volatile int n = 0, rounds = 0;
	ucontext_t uc;
	pid_t pid;
	int status;

	if (setjmp(jb) == 0)
		jump_back(0);
	n++;
	if (_setjmp(jb) == 0)
		jump_back(1);
	n++;
	if (sigsetjmp(sjb, 1) == 0)
		siglongjmp(sjb, 9);
	n++;
	getcontext(&uc);
	if (++rounds < 3)
		setcontext(&uc);
	n++;
	pid = vfork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return printf("vfork failed\n"), 1;
	n++;
	printf("twice: %d returns, %d rounds of getcontext, child status %d\n", n, rounds,
	       WEXITSTATUS(status));
	return 0;
}

static int caller(void)
{
	void *p = dlsym(RTLD_NEXT, "puts");

	printf("dlsym(RTLD_NEXT, \"puts\"): %s\n", p ? "found" : "NULL");
	return p ? 0 : 1;
}

static int clock_loop(void)
{
	struct timespec a, b;
	long back = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 100000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &b);
		back += b.tv_sec < a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec < a.tv_nsec);
		a = b;
	}
	printf("clock: %ld steps back\n", back);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "all";
	int err = 0;

	if (!strcmp(mode, "measure") || !strcmp(mode, "old")) {
		long n = argc > 2 ? atol(argv[2]) : 1000;

		if (!strcmp(mode, "old"))
			measure_old(n);
		else
			measure(n);
		printf("measure: %ld memcpy, %ld strlen, %zu bytes\n", n, n, (size_t)sink);
		return 0;
	}
	if (!strcmp(mode, "fork"))
		return fork_loop(argc > 2 ? atol(argv[2]) : 1000);
	if (!strcmp(mode, "chk")) {
		long n = argc > 2 ? atol(argv[2]) : 1000;

		measure_chk(n);
		printf("chk: %ld of each, %zu bytes, %.64s\n", n, (size_t)sink, dst);
		return 0;
	}
	if (!strcmp(mode, "all") || !strcmp(mode, "twice"))
		err |= twice();
	if (!strcmp(mode, "all") || !strcmp(mode, "caller"))
		err |= caller();
	if (!strcmp(mode, "all") || !strcmp(mode, "clock"))
		err |= clock_loop();
	return err;
}
