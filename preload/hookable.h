/* SPDX-License-Identifier: MIT */
/*
 * hookable: the functions the shim refuses whatever their bytes say, one
 * list for the shim and `extprof symbols` alike: functions that return
 * twice, functions that look at their caller, and the ones the shim itself
 * calls while it counts.  (The shim's own object is refused as a whole.)
 */
#ifndef EXTPROF_PRELOAD_HOOKABLE_H
#define EXTPROF_PRELOAD_HOOKABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hookable_kind {
	HOOKABLE_TWICE,	   /* returns twice: setjmp, vfork, getcontext */
	HOOKABLE_CALLER,   /* finds its caller by its return address: dlsym, dlopen */
	HOOKABLE_COUNTING, /* the shim calls it on the evaluation path */
	HOOKABLE_ENTERED,  /* entered by a jump, not called: lazy binding, a signal's return */
};

struct hookable_rule {
	const char *name; /* a glob */
	uint8_t kind;	  /* enum hookable_kind */
	uint32_t
		counter; /* refused only with this counter (enum extprof_counter_kind); 0: always */
};

extern const struct hookable_rule hookable_rules[];
extern const size_t hookable_nrules;

/* The reason the shim gives for the shim's own functions. */
#define HOOKABLE_SHIM_REASON "is the shim's own"

/* The rule that refuses the function @name when counting with @counter, or NULL. */
const struct hookable_rule *hookable_rule_for(const char *name, uint32_t counter);

/*
 * The reason for refusing @symbol under @r, one phrase, into @buf: the
 * function itself, or an alias of it (another name at its address).
 */
const char *hookable_reason(const struct hookable_rule *r, const char *symbol, char *buf,
			    size_t len);

/* The reason for the function at an object's ELF entry point. */
#define HOOKABLE_ENTRY_REASON                                                                      \
	"is the object's entry point: the kernel starts it, with argc where a return address "     \
	"would be"

/* Whether @basename is the shim's object (libextprof.so, and versions of it). */
bool hookable_is_shim(const char *basename);

#endif
