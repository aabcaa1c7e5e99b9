/* SPDX-License-Identifier: MIT */
/*
 * hookable: the shim's verdict on a function, one code for the shim and
 * `extprof symbols` alike.  First the functions it refuses whatever their
 * bytes say: functions that return twice, functions that look at their
 * caller, the ones the shim itself calls while it counts, Go code (and the
 * shim's own object as a whole); then the architecture's plan of the patch.
 */
#ifndef EXTPROF_PRELOAD_HOOKABLE_H
#define EXTPROF_PRELOAD_HOOKABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "functab.h"
#include "plan.h"

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
 * The reason for refusing @symbol under @rule, one phrase, into @buf: the
 * function itself, or an alias of it (another name at its address).
 */
const char *hookable_reason(const struct hookable_rule *rule, const char *symbol, char *buf,
			    size_t len);

/* The reason for the function at an object's ELF entry point. */
#define HOOKABLE_ENTRY_REASON                                                                      \
	"is the object's entry point: the kernel starts it, with argc where a return address "     \
	"would be"

/* The reason for a function of Go code (gocode.h says why). */
#define HOOKABLE_GO_REASON                                                                         \
	"is Go code: Go's runtime walks goroutine stacks by their return addresses (to grow "      \
	"them, to collect garbage) and would meet the stub's (\"unknown caller pc\")"
#define HOOKABLE_GO_UNKNOWN_REASON                                                                 \
	"is in a Go object whose Go code cannot be told from its C code (no .gopclntab, no "       \
	"runtime.text): Go's runtime walks goroutine stacks by their return addresses"

#define HOOKABLE_DENIED_MAX 64

/*
 * One object as the verdict sees it: its functions, and how to reach its
 * code and its IFUNCs' choices; the shim fills it from the loaded object,
 * `extprof symbols` from the file.
 */
struct hookable_obj {
	struct functab *t;
	const char *name; /* its basename */
	bool shim;	  /* the shim's own: libextprof.so, or a library only it needs */
	uint32_t counter; /* enum extprof_counter_kind */
	uint64_t base;	  /* where its offset 0 is: the load base, or 0 in a file */
	bool alone;	  /* judge each function alone (a .o: its branches are not relocated) */
	/* @size bytes of code at offset @value, or NULL when the object has none there */
	const uint8_t *(*code)(uint64_t value, uint64_t size, void *arg);
	/* the offset an IFUNC's resolver at @value picks on this CPU; false: cannot call it */
	bool (*resolve)(uint64_t value, uint64_t *impl, void *arg);
	void *arg;
	/* the addresses hookable_rules name (aliases and IFUNC choices too), and the rules */
	uint64_t denied[HOOKABLE_DENIED_MAX];
	const struct hookable_rule *denied_rule[HOOKABLE_DENIED_MAX];
	size_t ndenied;
};

/* Find the addresses of @obj's functions that hookable_rules name (after filling @obj). */
void hookable_obj_rules(struct hookable_obj *obj);

enum hookable_outcome {
	HOOKABLE_OK,	  /* patched as planned */
	HOOKABLE_REFUSED, /* why says why */
	HOOKABLE_PENDING, /* an IFUNC whose choice is made only where the object is loaded */
};

/* The verdict on one function, and what the shim needs to patch it. */
struct hookable_verdict {
	uint8_t outcome; /* enum hookable_outcome (OK too between the two steps) */
	bool ifunc;	 /* the function is an IFUNC: value is its choice */
	uint64_t value;	 /* the offset patched */
	uint64_t size;	 /* and its size */
	char impl[300];	 /* the IFUNC's choice, named */
	char why[400];	 /* refused or pending: one phrase */
	struct arch_plan plan;
};

/*
 * The shim's verdict on the function @name (its plain name, without its
 * version; NULL for one named 0xOFFSET) at offset @value of @obj, @size
 * bytes, an IFUNC when @ifunc, in two steps.  First what it is: every
 * rule above, and an IFUNC's choice (@verdict's value and size then are the
 * choice's); false when that refuses it (or, an IFUNC not loaded here,
 * leaves it pending), with the reason in @verdict.
 */
bool hookable_target(struct hookable_obj *obj, const char *name, uint64_t value, uint64_t size,
		     bool ifunc, struct hookable_verdict *verdict);

/*
 * Then, unless the caller knows better (the same function hooked already:
 * its entry is patched), the architecture's plan of its patch, into @verdict:
 * true when it can be patched, else false with the reason.  What else
 * depends on the run (the limit of declarations) is the shim's own.
 */
bool hookable_plan(struct hookable_obj *obj, struct hookable_verdict *verdict);

#endif
