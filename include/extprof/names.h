/* SPDX-License-Identifier: MIT */
/*
 * extprof names: what a user writes that the shim and the analyzer must
 * read alike, defined once for both: the KIND of a hook entry (and of a
 * dump's declaration), the counter named by EXTPROF_COUNTER and --counter,
 * and the names of the dump header's counter kinds.  Static inline only: the
 * shim includes this without linking anything of the analyzer's.
 */
#ifndef EXTPROF_NAMES_H
#define EXTPROF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "extprof/dump.h"

/* A kind, as messages spell the rule. */
#define EXTPROF_KIND_SYNTAX "[a-z][a-z0-9_]*"

/*
 * Whether the @n bytes at @k are a kind: a label of the user's choosing
 * ("invariant", "guard", "function", ...), [a-z][a-z0-9_]*, never empty.
 * Plain ASCII ranges, not islower(): the program's locale must not change
 * what the shim accepts.
 */
static inline bool extprof_kind_valid(const char *k, size_t n)
{
	if (!n || k[0] < 'a' || k[0] > 'z')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return false;
	return true;
}

/* The counters EXTPROF_COUNTER (and --counter) may name. */
enum extprof_counter_choice {
	EXTPROF_CHOICE_BAD = -1,
	EXTPROF_CHOICE_AUTO, /* the shim picks: instructions with a PMU, else tsc */
	EXTPROF_CHOICE_INSTRUCTIONS,
	EXTPROF_CHOICE_CYCLES,
	EXTPROF_CHOICE_STEPS,
	EXTPROF_CHOICE_TSC,
	EXTPROF_CHOICE_TSC_UNORDERED, /* the TSC read without fences */
	EXTPROF_CHOICE_NS,
	EXTPROF_CHOICE_VAR, /* var:SYMBOL[@OBJECT], a 64-bit variable of the program's */
};

/* What a message says the choices are. */
#define EXTPROF_COUNTER_CHOICES                                                                    \
	"auto, instructions, cycles, steps, tsc, tsc-unordered, ns or var:SYMBOL"

/* The choice @name makes, or EXTPROF_CHOICE_BAD (var: needs a symbol, and no blank in it). */
static inline enum extprof_counter_choice extprof_counter_choice(const char *name)
{
	static const char *const names[] = {
		[EXTPROF_CHOICE_AUTO] = "auto",
		[EXTPROF_CHOICE_INSTRUCTIONS] = "instructions",
		[EXTPROF_CHOICE_CYCLES] = "cycles",
		[EXTPROF_CHOICE_STEPS] = "steps",
		[EXTPROF_CHOICE_TSC] = "tsc",
		[EXTPROF_CHOICE_TSC_UNORDERED] = "tsc-unordered",
		[EXTPROF_CHOICE_NS] = "ns",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (enum extprof_counter_choice)i;
	if (!strncmp(name, "var:", 4) && name[4] && !strpbrk(name, " \t\n"))
		return EXTPROF_CHOICE_VAR;
	return EXTPROF_CHOICE_BAD;
}

/* The name of a dump header's counter kind (enum extprof_counter_kind), "?" if none. */
static inline const char *extprof_counter_kind_name(uint32_t kind)
{
	static const char *const names[EXTPROF_COUNTER_MAX] = {
		[EXTPROF_COUNTER_NONE] = "none",
		[EXTPROF_COUNTER_TSC] = "tsc",
		[EXTPROF_COUNTER_NS] = "ns",
		[EXTPROF_COUNTER_INSTRUCTIONS] = "instructions",
		[EXTPROF_COUNTER_CYCLES] = "cycles",
		[EXTPROF_COUNTER_VAR] = "var",
		[EXTPROF_COUNTER_STEPS] = "steps",
	};

	return kind < EXTPROF_COUNTER_MAX && names[kind] ? names[kind] : "?";
}

#endif /* EXTPROF_NAMES_H */
