// SPDX-License-Identifier: MIT
/*
 * hookable: the list, and why each is on it.
 *
 * Returns twice.  The stub moves the caller's return address to the shadow
 * stack and pops it when the function returns; a second return (a longjmp
 * back into setjmp, the parent resuming after a vfork child exec'd, a
 * setcontext back into getcontext or swapcontext) comes back through a stub
 * whose activation is gone, and jumps nowhere.  _setjmp and setjmp are
 * jumps into __sigsetjmp: each is on the list by name, and an alias by
 * its address.
 *
 * Looks at its caller.  dlsym(RTLD_NEXT) and dlopen find the object that
 * called them by their return address: through a stub they see an
 * anonymous mapping, and dlsym(RTLD_NEXT) returns NULL.
 *
 * Entered by a jump, not called.  The stub takes what is on top of the
 * stack for the caller's return address: the dynamic linker's lazy binding
 * (_dl_runtime_resolve_*, reached from the PLT with the relocation's index
 * there), a signal handler's return (__restore_rt, reached by its ret with
 * the signal frame there), and an object's entry point (_start, which the
 * kernel starts with argc there: hooks.c refuses it by the ELF header's
 * e_entry, whatever its name).
 *
 * Called while counting.  The evaluation path (preload/eval.c, thunk.S,
 * stub_fast.S) calls one function outside the shim: clock_gettime, to read
 * the ns counter.  Hooked, it would be evaluated inside its own evaluation,
 * without end.  tests/meson.build checks that the evaluation path imports
 * nothing else (eval_imports).  With steps, the SIGTRAP handler decodes the
 * next instruction with libZydis at every trap: hooked, Zydis's functions
 * would count the shim's own calls as the program's.  The slow paths (a thread's first
 * evaluation, a shadow stack that grows, callers) run with the thread's
 * busy flag set, and the hooked functions they call pass through.
 */
#include <fnmatch.h>
#include <string.h>

#include "extprof/dump.h"
#include "hookable.h"

const struct hookable_rule hookable_rules[] = {
	{"setjmp", HOOKABLE_TWICE, 0},
	{"_setjmp", HOOKABLE_TWICE, 0},
	{"__sigsetjmp", HOOKABLE_TWICE, 0},
	{"sigsetjmp", HOOKABLE_TWICE, 0},
	{"savectx", HOOKABLE_TWICE, 0},
	{"getcontext", HOOKABLE_TWICE, 0},
	{"swapcontext", HOOKABLE_TWICE, 0},
	{"vfork", HOOKABLE_TWICE, 0},
	{"__vfork", HOOKABLE_TWICE, 0},
	{"dlsym", HOOKABLE_CALLER, 0},
	{"dlvsym", HOOKABLE_CALLER, 0},
	{"dlopen", HOOKABLE_CALLER, 0},
	{"dlmopen", HOOKABLE_CALLER, 0},
	{"__libc_dlsym", HOOKABLE_CALLER, 0},
	{"__libc_dlvsym", HOOKABLE_CALLER, 0},
	{"__libc_dlopen_mode", HOOKABLE_CALLER, 0},
	{"_dl_runtime_resolve*", HOOKABLE_ENTERED, 0},
	{"_dl_runtime_profile*", HOOKABLE_ENTERED, 0},
	{"__restore_rt", HOOKABLE_ENTERED, 0},
	{"clock_gettime", HOOKABLE_COUNTING, EXTPROF_COUNTER_NS},
	{"Zydis*", HOOKABLE_COUNTING, EXTPROF_COUNTER_STEPS},
};

const size_t hookable_nrules = sizeof(hookable_rules) / sizeof(hookable_rules[0]);

const struct hookable_rule *hookable_rule_for(const char *name, uint32_t counter)
{
	for (size_t i = 0; i < hookable_nrules; i++) {
		const struct hookable_rule *r = &hookable_rules[i];

		if (!fnmatch(r->name, name, 0) && (!r->counter || r->counter == counter))
			return r;
	}
	return NULL;
}

static const char *hookable_why(const struct hookable_rule *r)
{
	switch (r->kind) {
	case HOOKABLE_TWICE:
		return "returns twice (as setjmp, vfork, getcontext): its second return would "
		       "come back through a stub whose activation is gone";
	case HOOKABLE_CALLER:
		return "looks at its caller's address (as dlsym, dlopen): through a stub it "
		       "would see the shim's";
	case HOOKABLE_ENTERED:
		return "is entered by a jump, not called (lazy binding, a signal's return): what "
		       "tops the stack is not a return address";
	default:
		if (r->counter == EXTPROF_COUNTER_STEPS)
			return "is what the shim calls to count steps (its SIGTRAP handler decodes "
			       "instructions with it)";
		return "is what the shim calls to read the counter (ns) while it counts";
	}
}

const char *hookable_reason(const struct hookable_rule *r, const char *symbol, char *buf,
			    size_t len)
{
	size_t n;

	buf[0] = '\0';
	if (strcmp(r->name, symbol) && fnmatch(r->name, symbol, 0)) {
		n = strlen(r->name);
		if (len < n + 32)
			return buf;
		memcpy(buf, "is ", 3);
		memcpy(buf + 3, r->name, n);
		memcpy(buf + 3 + n, " by another name: it ", 21);
	}
	n = strlen(buf);
	strncat(buf + n, hookable_why(r), len - n - 1);
	return buf;
}

bool hookable_is_shim(const char *basename)
{
	return !strncmp(basename, "libextprof.so", 13);
}
