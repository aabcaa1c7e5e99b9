/* SPDX-License-Identifier: MIT */
/*
 * Ground truth for the profiler's tests: built with -DCHECKER_GROUND_TRUTH, each predicate
 * counts its own calls and work, and the totals are printed to stderr at exit. Without it the
 * counting compiles to nothing.
 */
#ifndef CHECKER_TRUTH_H
#define CHECKER_TRUTH_H

#include <stdint.h>
#include <stdio.h>

#define TRUTH_MAX 32

#ifdef CHECKER_GROUND_TRUTH
/* Per thread, so a predicate pays no atomic; folded into the totals when the thread ends. */
extern __thread uint64_t truth_calls[TRUTH_MAX];
extern __thread uint64_t truth_units[TRUTH_MAX];

static inline void truth_charge(unsigned id, uint64_t units)
{
	truth_calls[id]++;
	truth_units[id] += units;
}
#else
static inline void truth_charge(unsigned id, uint64_t units)
{
	(void)id;
	(void)units;
}
#endif

void truth_retire(void);
void truth_print(FILE *out, const char *const names[], unsigned n);

#endif /* CHECKER_TRUTH_H */
