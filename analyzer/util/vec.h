/* SPDX-License-Identifier: MIT */
/* vec: growable arrays, grown one rule for all: doubled when full. */
#ifndef XP_VEC_H
#define XP_VEC_H

#include <stddef.h>

/*
 * Room for one more item in the array *@pv (a T **) of *@cap items of
 * @size bytes, @n of them used: when full, doubled (to @first the first
 * time).  0, or -ENOMEM with the array and *@cap as they were.
 */
int xp_grow(void *pv, size_t *cap, size_t n, size_t size, size_t first);

/* xp_grow for the array *@pv, its items' size taken from its type. */
#define XP_GROW(pv, cap, n, first) xp_grow((pv), (cap), (n), sizeof(**(pv)), (first))

/* Append a formatted string to the list *@v of *@n strings: 0 or -ENOMEM. */
int xp_strv_appendf(char ***v, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
