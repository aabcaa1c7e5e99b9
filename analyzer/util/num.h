/* SPDX-License-Identifier: MIT */
/* num: saturating arithmetic, number parsing and formatting. */
#ifndef XP_NUM_H
#define XP_NUM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Counts and sums saturate instead of wrapping: a hostile or absurd dump
 * must not turn a huge total into a small one.  Saturation keeps merge
 * associative and commutative (it is min(MAX, exact sum)).
 */
static inline uint64_t xp_sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* @a x @b, UINT64_MAX when it overflows. */
static inline uint64_t xp_sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* @a / @b rounded to the nearest whole number (halves up); 0 when @b is 0. */
static inline uint64_t xp_div_round(uint64_t a, uint64_t b)
{
	if (!b)
		return 0;
	return a / b + (a % b >= b - a % b);
}

#define XP_U64_BUF 32

/* "1,234,567" into @buf (XP_U64_BUF bytes); returns @buf. */
char *xp_fmt_u64(char *buf, uint64_t v);

/* Whole decimal number, nothing else; 0 or -EINVAL / -ERANGE. */
int xp_parse_u64(const char *s, uint64_t *out);
/* A finite, non-negative decimal number. */
int xp_parse_ratio(const char *s, double *out);

#endif
