// SPDX-License-Identifier: MIT
/*
 * growth: functions whose cost grows with N in a known way, for the
 * doubling test (tests/integration/test_doubling.c).  Each advances the
 * global growth_work and the thread-local growth_work_tls by exactly its
 * cost, so that `--counter var:growth_work` reads the truth:
 *
 *   g_const(n)    3                  g_nlogn(n)   n log2 n
 *   g_log(n)      log2 n             g_square(n)  n²
 *   g_linear(n)   n                  g_cube(n)    n³
 *   g_exp(n)      2^n
 *   g_item(i)     1, called n times (cost grows by evaluations alone)
 *   g_row(i, n)   n, called n times (n² cost: half from each)
 *
 * (log2 n exact for powers of two.)  The work is real too: sums, walks
 * and subsets over an array of n numbers, so a time counter sees growth of
 * the same shape.
 *
 *   growth -n N [-f poly|exp] [-r R]
 *     poly   every function but g_exp, R times each (default 3), then
 *            g_item and g_row n times each
 *     exp    g_exp(n), R times
 *
 * stdout: one line with a checksum of the results (the same with or
 * without the shim).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"

uint64_t growth_work;
__thread uint64_t growth_work_tls;

static uint32_t *data;

static inline void charge(uint64_t k)
{
	growth_work += k;
	growth_work_tls += k;
}

HOOKED uint64_t g_const(uint64_t n)
{
	charge(3);
	return data[0] + data[n - 1] + data[n / 2];
}

HOOKED uint64_t g_log(uint64_t n)
{
	uint64_t lo = 0, hi = n, steps = 0;

	/* halve the range until one element is left: a binary search's walk */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (data[mid] & 1)
			lo = mid;
		else
			hi = mid;
		steps++;
	}
	charge(steps);
	return lo;
}

HOOKED uint64_t g_linear(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += data[i];
	charge(n);
	return s;
}

HOOKED uint64_t g_nlogn(uint64_t n)
{
	uint64_t s = 0, steps = 0;

	for (uint64_t i = 0; i < n; i++)
		for (uint64_t m = n; m > 1; m /= 2) {
			s += data[(i + m) % n];
			steps++;
		}
	charge(steps);
	return s;
}

HOOKED uint64_t g_square(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			s += data[i] ^ data[j];
	charge(n * n);
	return s;
}

HOOKED uint64_t g_cube(uint64_t n)
{
	uint64_t s = 0;

	/* n² real steps, each charged as the n it stands for: n³ stays quick */
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			s += (data[i] * data[j]) % 7 + 1;
	charge(n * n * n);
	return s;
}

/* Every subset of the first @k elements; not hooked: its recursion is g_exp's cost. */
static uint64_t subsets(uint64_t k, uint64_t sum)
{
	if (!k) {
		charge(1);
		return sum & 1;
	}
	return subsets(k - 1, sum) + subsets(k - 1, sum + data[k - 1]);
}

HOOKED uint64_t g_exp(uint64_t n)
{
	return subsets(n, 0);
}

HOOKED uint64_t g_item(uint64_t i)
{
	charge(1);
	return data[i];
}

HOOKED uint64_t g_row(uint64_t i, uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t j = 0; j < n; j++)
		s += data[i] < data[j];
	charge(n);
	return s;
}

static void usage(FILE *out)
{
	fputs("usage: growth -n N [-f poly|exp] [-r R]\n", out);
}

int main(int argc, char **argv)
{
	uint64_t n = 0, r = 3, sum = 0;
	const char *family = "poly";
	int c;

	while ((c = getopt(argc, argv, "n:f:r:h")) != -1) {
		switch (c) {
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 'f':
			family = optarg;
			break;
		case 'r':
			r = strtoull(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!n || n > (1u << 24) || (strcmp(family, "poly") && strcmp(family, "exp")) ||
	    (!strcmp(family, "exp") && n > 30)) {
		usage(stderr);
		return 2;
	}
	data = calloc(n, sizeof(*data));
	if (!data)
		return 1;
	for (uint64_t i = 0; i < n; i++)
		data[i] = (uint32_t)(i * 2654435761u >> 7);
	for (uint64_t k = 0; k < r; k++) {
		if (!strcmp(family, "exp")) {
			sum += g_exp(n);
			continue;
		}
		sum += g_const(n) + g_log(n) + g_linear(n) + g_nlogn(n) + g_square(n) + g_cube(n);
	}
	if (!strcmp(family, "poly"))
		for (uint64_t i = 0; i < n; i++)
			sum += g_item(i) + g_row(i, n);
	printf("growth %s n=%llu checksum %llu\n", family, (unsigned long long)n,
	       (unsigned long long)sum);
	free(data);
	return 0;
}
