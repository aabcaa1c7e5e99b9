// SPDX-License-Identifier: MIT
/*
 * xlate: what the steps counter's code cache must run as the program would
 * (tests/integration/test_translate.c).  Functions in assembly have known
 * instruction counts, whatever the compiler:
 *
 *   xt_patched()     8   endbr64, 5 nops (the patch's), mov $imm32,%eax at
 *                        +9, ret: the program rewrites its imm32
 *                        (self-modifying code)
 *   xt_touch(p)      6   endbr64, two movs (the patch moves them to the stub),
 *                        mov (%rdx),%eax at xt_touch+10, add, ret: reads *p,
 *                        which faults the first time (SIGSEGV)
 *   xt_ten()         10  ten instructions, for the benchmark
 *
 *   xlate [-n N] SCENARIO
 *     selfmod   N rounds of: call xt_selfmod(i), a hooked function that
 *               calls xt_patched, makes its page writable, writes i into
 *               its imm32, makes it executable again, and calls it again
 *     segv      N calls of xt_segv(), which calls xt_touch on a page it
 *               protects first: the program's SIGSEGV handler prints the
 *               fault address and pc as offsets (from the page, from
 *               xt_touch), makes the page readable, and returns
 *     swap      N calls of xt_swap(), which swapcontext()s into a
 *               coroutine that counts and swaps back
 *     exec      xt_exec() runs /bin/echo through execv from a hooked
 *               function, in a forked child; the parent waits
 *     ten       N calls of xt_ten(), for the benchmark
 *
 * stdout is deterministic and the same without the shim.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

__asm__(".text\n"
	".p2align 12\n"
	".globl xt_patched\n.type xt_patched,@function\n"
	"xt_patched:\n"
	"	endbr64\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	nop\n"
	"	mov $1, %eax\n"
	"	ret\n"
	".size xt_patched, .-xt_patched\n"

	".globl xt_touch\n.type xt_touch,@function\n"
	"xt_touch:\n"
	"	endbr64\n"
	"	mov %rdi, %rax\n"
	"	mov %rax, %rdx\n"
	"	mov (%rdx), %eax\n"
	"	add $1, %eax\n"
	"	ret\n"
	".size xt_touch, .-xt_touch\n"

	".globl xt_ten\n.type xt_ten,@function\n"
	"xt_ten:\n"
	"	endbr64\n"
	"	mov $1, %eax\n"
	"	add $2, %eax\n"
	"	add $3, %eax\n"
	"	imul $3, %eax, %eax\n"
	"	sub $1, %eax\n"
	"	xor $5, %eax\n"
	"	add %eax, %eax\n"
	"	or $1, %eax\n"
	"	ret\n"
	".size xt_ten, .-xt_ten\n");

int xt_patched(void);
int xt_touch(const int *p);
int xt_ten(void);

/* ---- selfmod ------------------------------------------------------------------------------ */

__attribute__((noinline)) int xt_selfmod(int v)
{
	uint8_t *code = (uint8_t *)xt_patched;
	uintptr_t page = (uintptr_t)code & ~(uintptr_t)(getpagesize() - 1);
	int before = xt_patched(), after;

	if (mprotect((void *)page, (size_t)getpagesize(), PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	/* endbr64 (4 bytes), 5 nops, then b8 imm32 */
	memcpy(code + 10, &v, sizeof(v));
	mprotect((void *)page, (size_t)getpagesize(), PROT_READ | PROT_EXEC);
	after = xt_patched();
	return before * 1000 + after;
}

static int selfmod(long n)
{
	for (long i = 0; i < n; i++)
		printf("selfmod %ld: %d\n", i, xt_selfmod((int)i + 2));
	return 0;
}

/* ---- segv --------------------------------------------------------------------------------- */

static int *segv_page;

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	printf("SIGSEGV at page+%ld, pc xt_touch+%ld\n",
	       (long)((char *)si->si_addr - (char *)segv_page),
	       (long)(uc->uc_mcontext.gregs[REG_RIP] - (greg_t)(uintptr_t)xt_touch));
	mprotect(segv_page, (size_t)getpagesize(), PROT_READ | PROT_WRITE);
}

__attribute__((noinline)) int xt_segv(void)
{
	mprotect(segv_page, (size_t)getpagesize(), PROT_NONE);
	return xt_touch(segv_page + 3);
}

static int segv(long n)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	segv_page = mmap(NULL, (size_t)getpagesize(), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (segv_page == MAP_FAILED)
		return 1;
	segv_page[3] = 41;
	for (long i = 0; i < n; i++)
		printf("segv %ld: %d\n", i, xt_segv());
	return 0;
}

/* ---- swap --------------------------------------------------------------------------------- */

static ucontext_t swap_main, swap_co;
static char swap_stack[65536];
static volatile long swap_count;

static void swap_body(void)
{
	for (;;) {
		swap_count++;
		swapcontext(&swap_co, &swap_main);
	}
}

__attribute__((noinline)) long xt_swap(void)
{
	swapcontext(&swap_main, &swap_co);
	return swap_count;
}

static int swap(long n)
{
	getcontext(&swap_co);
	swap_co.uc_stack.ss_sp = swap_stack;
	swap_co.uc_stack.ss_size = sizeof(swap_stack);
	swap_co.uc_link = NULL;
	makecontext(&swap_co, swap_body, 0);
	for (long i = 0; i < n; i++)
		printf("swap %ld: %ld\n", i, xt_swap());
	return 0;
}

/* ---- exec --------------------------------------------------------------------------------- */

__attribute__((noinline)) int xt_exec(void)
{
	char *const argv[] = {"/bin/echo", "exec from a hooked function", NULL};
	pid_t p;
	int st;

	fflush(stdout);
	p = fork();
	if (!p) {
		execv(argv[0], argv);
		_exit(127);
	}
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	long n = 3, s = 0;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt == 'n')
			n = atol(optarg);
		else
			return 2;
	}
	if (optind >= argc)
		return 2;
	if (!strcmp(argv[optind], "selfmod"))
		return selfmod(n);
	if (!strcmp(argv[optind], "segv"))
		return segv(n);
	if (!strcmp(argv[optind], "swap"))
		return swap(n);
	if (!strcmp(argv[optind], "exec"))
		return printf("exec: %d\n", xt_exec()) < 0;
	if (!strcmp(argv[optind], "ten")) {
		for (long i = 0; i < n; i++)
			s += xt_ten();
		printf("ten: %ld calls, %ld\n", n, s);
		return 0;
	}
	return 2;
}
