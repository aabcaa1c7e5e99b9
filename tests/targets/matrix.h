/* SPDX-License-Identifier: MIT */
/*
 * What the matrix targets share.  Each target is one small program whose
 * hooked functions count their own calls and print them at the end as
 * "checker-truth: SYMBOL COUNT" lines on stderr, the form the harness
 * parses; other facts use other tags ("checker-abandoned:",
 * "checker-total:", ...).  stdout is deterministic: the tests compare it
 * with an unhooked run's.
 *
 * HOOKED keeps a function a function at every -O level: never inlined,
 * never cloned into foo.constprop.0 or foo.isra.0 (the hooks name the
 * symbol, and a clone would take its calls).  The counters the functions
 * keep are what stops the compiler from folding or merging them.
 */
#ifndef EXTPROF_TESTS_MATRIX_H
#define EXTPROF_TESTS_MATRIX_H

#include <pthread.h>
#include <stdio.h>

#if defined(__clang__)
#define HOOKED __attribute__((noinline, used))
#else
#define HOOKED __attribute__((noinline, noclone, used))
#endif

#define TRUTH(tag, sym, n)                                                                         \
	fprintf(stderr, "checker-" tag ": %s %llu\n", (sym), (unsigned long long)(n))

/* A recursive function's counts: its outermost activations, and all of them. */
#define TRUTH_RECURSIVE(sym, outer, total)                                                         \
	do {                                                                                       \
		TRUTH("truth", sym, outer);                                                        \
		TRUTH("total", sym, total);                                                        \
	} while (0)

/* @fn(@arg) on a thread with a stack of @mb MiB, for deep recursion; 0 or -1. */
static inline int matrix_deep(void *(*fn)(void *), void *arg, unsigned mb)
{
	pthread_attr_t attr;
	pthread_t th;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)mb << 20);
	return pthread_create(&th, &attr, fn, arg) || pthread_join(th, NULL) ? -1 : 0;
}

/* An endbr64 before a function written in asm, in the cells built with CET. */
#if defined(__CET__) && (__CET__ & 1)
#define ASM_ENDBR  "endbr64\n\t"
#define MATRIX_CET 1
#else
#define ASM_ENDBR  ""
#define MATRIX_CET 0
#endif

#endif
