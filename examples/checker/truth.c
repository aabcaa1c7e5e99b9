// SPDX-License-Identifier: MIT
/* Folding and printing the ground-truth tallies; see truth.h. */
#include <pthread.h>

#include "truth.h"

#ifdef CHECKER_GROUND_TRUTH
#include <inttypes.h>

__thread uint64_t truth_calls[TRUTH_MAX];
__thread uint64_t truth_units[TRUTH_MAX];

static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t truth_total_calls[TRUTH_MAX];
static uint64_t truth_total_units[TRUTH_MAX];

void truth_retire(void)
{
	unsigned i;

	pthread_mutex_lock(&truth_lock);
	for (i = 0; i < TRUTH_MAX; i++) {
		truth_total_calls[i] += truth_calls[i];
		truth_total_units[i] += truth_units[i];
		truth_calls[i] = 0;
		truth_units[i] = 0;
	}
	pthread_mutex_unlock(&truth_lock);
}

void truth_print(FILE *out, const char *const names[], unsigned n)
{
	unsigned i;

	truth_retire();
	for (i = 0; i < n && i < TRUTH_MAX; i++)
		fprintf(out, "checker-truth: %s %" PRIu64 "\n", names[i], truth_total_calls[i]);
	for (i = 0; i < n && i < TRUTH_MAX; i++)
		fprintf(out, "checker-work: %s %" PRIu64 "\n", names[i], truth_total_units[i]);
	fflush(out);
}
#else
void truth_retire(void)
{
}

void truth_print(FILE *out, const char *const names[], unsigned n)
{
	(void)out;
	(void)names;
	(void)n;
}
#endif
