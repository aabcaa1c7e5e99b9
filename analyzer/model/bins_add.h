/* SPDX-License-Identifier: MIT */
/*
 * bins_add: one sorted list of (key, count) bins added into another in
 * place, for the two kinds the analyzer keeps: histogram buckets (acc.c)
 * and calibrated values (finalize.c).  Counts of shared keys add; new keys
 * are merged in from the back after one realloc.  Workers of a process
 * mostly share their keys, so mostly nothing is allocated at all.
 */
#ifndef EXTPROF_ANALYZER_BINS_ADD_H
#define EXTPROF_ANALYZER_BINS_ADD_H

#include <errno.h>
#include <stdlib.h>

#include "util/num.h"

/* int NAME(LIST *dst, const LIST *src): LIST has bins (of BIN) and n; BIN has KEY and count. */
#define XP_DEFINE_BINS_ADD(NAME, LIST, BIN, KEY)                                                   \
	int NAME(LIST *dst, const LIST *src)                                                       \
	{                                                                                          \
		size_t i = 0, j = 0, fresh = 0, k;                                                 \
		BIN *bins;                                                                         \
                                                                                                   \
		while (j < src->n) {                                                               \
			if (i < dst->n && dst->bins[i].KEY < src->bins[j].KEY) {                   \
				i++;                                                               \
			} else if (i < dst->n && dst->bins[i].KEY == src->bins[j].KEY) {           \
				dst->bins[i].count =                                               \
					xp_sat_add(dst->bins[i].count, src->bins[j].count);        \
				i++, j++;                                                          \
			} else {                                                                   \
				fresh++;                                                           \
				j++;                                                               \
			}                                                                          \
		}                                                                                  \
		if (!fresh)                                                                        \
			return 0;                                                                  \
		bins = realloc(dst->bins, (dst->n + fresh) * sizeof(*bins));                       \
		if (!bins)                                                                         \
			return -ENOMEM;                                                            \
		dst->bins = bins;                                                                  \
		i = dst->n;                                                                        \
		j = src->n;                                                                        \
		k = dst->n + fresh;                                                                \
		while (j > 0) {                                                                    \
			if (i > 0 && bins[i - 1].KEY > src->bins[j - 1].KEY) {                     \
				bins[--k] = bins[--i];                                             \
			} else if (i > 0 && bins[i - 1].KEY == src->bins[j - 1].KEY) {             \
				bins[--k] = bins[--i];                                             \
				j--;                                                               \
			} else {                                                                   \
				bins[--k] = src->bins[--j];                                        \
			}                                                                          \
		}                                                                                  \
		dst->n += fresh;                                                                   \
		return 0;                                                                          \
	}

#endif
