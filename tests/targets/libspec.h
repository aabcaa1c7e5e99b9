/* SPDX-License-Identifier: MIT */
/* Matrix case "spec": the functions of libspec.so, hooked as KIND:lib_*@libspec.so. */
#ifndef EXTPROF_TESTS_LIBSPEC_H
#define EXTPROF_TESTS_LIBSPEC_H

long lib_add(long a, long b);
long lib_mul(long a, long b);
long lib_chain(long x);
/* How many times the function called @name ran (ground truth), or -1. */
long lib_truth(const char *name);

#endif
