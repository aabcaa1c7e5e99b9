/* SPDX-License-Identifier: MIT */
/*
 * stub_fast: the fast path a stub carries in front of its head
 * (stub_fast.S), when the counter has one.
 */
#ifndef EXTPROF_STUB_FAST_H
#define EXTPROF_STUB_FAST_H

#include <stddef.h>
#include <stdint.h>

/* A template: code from start to end, the literals last, R2 at ret. */
struct stub_template {
	const uint8_t *start;
	const uint8_t *ret;
	const uint8_t *end;
};

/* The literals at the end of every copy (offsets in stub_offsets.h). */
struct stub_lits {
	uint64_t tpoff;
	uint64_t xp;
	uint64_t var;
	uint64_t idx;
	uint64_t doff;
	uint64_t nested;
	uint64_t orig;
	uint64_t exit_now;
	uint64_t take_row;
};

/* The template stubs made from now on carry, or NULL. */
const struct stub_template *stub_fast_template(void);

#endif
