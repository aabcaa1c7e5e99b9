// SPDX-License-Identifier: MIT
/*
 * hookable: the list, and why each is on it; then the verdict, which the
 * shim and `extprof symbols` both ask (hookable_target, hookable_plan).
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
 * Called while counting.  The evaluation path (preload/count/eval.c, thunk.S,
 * stub_fast.S) calls one function outside the shim: clock_gettime, to read
 * the ns counter.  Hooked, it would be evaluated inside its own evaluation,
 * without end.  tests/meson.build checks that the evaluation path imports
 * nothing else (eval_imports).  With steps, the SIGTRAP handler decodes the
 * next instruction with libZydis at every trap: hooked, Zydis's functions
 * would count the shim's own calls as the program's.  The slow paths (a thread's first
 * evaluation, a shadow stack that grows, callers) run with the thread's
 * busy flag set, and the hooked functions they call pass through.
 */
#include <elf.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "extprof/dump.h"
#include "hookable.h"

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

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

void hookable_obj_rules(struct hookable_obj *o)
{
	o->ndenied = 0;
	for (size_t i = 0; i < o->t->nsyms && o->ndenied < HOOKABLE_DENIED_MAX; i++) {
		const struct functab_sym *s = &o->t->syms[i];
		const struct hookable_rule *r = hookable_rule_for(s->name, o->counter);
		uint64_t at = s->value;

		if (!r || (s->type == STT_GNU_IFUNC &&
			   (!o->resolve || !o->resolve(s->value, &at, o->arg))))
			continue;
		o->denied[o->ndenied] = at;
		o->denied_rule[o->ndenied++] = r;
	}
}

/* A refusal whatever the function's bytes say, into @v; false when none. */
static bool hookable_by_rule(const struct hookable_obj *o, const char *name, uint64_t value,
			     struct hookable_verdict *v)
{
	const struct hookable_rule *r = name ? hookable_rule_for(name, o->counter) : NULL;
	char hex[32];

	for (size_t i = 0; !r && i < o->ndenied; i++) {
		if (o->denied[i] == value)
			r = o->denied_rule[i];
	}
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)value);
	if (o->shim)
		snprintf(v->why, sizeof(v->why), "%s", HOOKABLE_SHIM_REASON);
	else if (value && value == o->t->entry)
		snprintf(v->why, sizeof(v->why), "%s", HOOKABLE_ENTRY_REASON);
	else if (r)
		hookable_reason(r, name ? name : hex, v->why, sizeof(v->why));
	else if (gocode_holds(&o->t->go, value))
		snprintf(v->why, sizeof(v->why), "%s",
			 o->t->go.kind == GOCODE_UNKNOWN ? HOOKABLE_GO_UNKNOWN_REASON
							 : HOOKABLE_GO_REASON);
	else
		return false;
	v->outcome = HOOKABLE_REFUSED;
	return true;
}

/* An IFUNC's choice on this CPU in @v: false when refused or not known here. */
static bool hookable_choice(struct hookable_obj *o, const char *name, uint64_t value,
			    struct hookable_verdict *v)
{
	const struct functab_sym *at;

	v->ifunc = true;
	if (!o->resolve || !o->resolve(value, &v->value, o->arg)) {
		v->outcome = HOOKABLE_PENDING;
		snprintf(v->why, sizeof(v->why),
			 "an IFUNC: the shim hooks what its resolver picks when the program loads "
			 "it (extprof run says which)");
		return false;
	}
	v->size = functab_size_at(o->t, v->value);
	at = functab_sym_at(o->t, v->value);
	if (at)
		functab_sym_name(at, v->impl, sizeof(v->impl));
	else
		snprintf(v->impl, sizeof(v->impl), "0x%llx", (unsigned long long)v->value);
	if (hookable_by_rule(o, name, v->value, v))
		return false;
	if (!v->size) {
		v->outcome = HOOKABLE_REFUSED;
		snprintf(v->why, sizeof(v->why),
			 "is an IFUNC whose choice on this CPU, %.200s, has no size (no symbol, no "
			 ".eh_frame entry)",
			 v->impl);
		return false;
	}
	return true;
}

bool hookable_target(struct hookable_obj *o, const char *name, uint64_t value, uint64_t size,
		     bool ifunc, struct hookable_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->outcome = HOOKABLE_OK;
	v->value = value;
	v->size = size;
	return !hookable_by_rule(o, name, value, v) &&
	       (!ifunc || hookable_choice(o, name, value, v));
}

bool hookable_plan(struct hookable_obj *o, struct hookable_verdict *v)
{
	const uint8_t *code = o->code(v->value, v->size, o->arg);

	v->outcome = HOOKABLE_REFUSED;
	if (!code) {
		snprintf(v->why, sizeof(v->why), "is not in an executable segment");
		return false;
	}
	/* the object's branches, once, at the first function planned (before any patch) */
	if (!o->alone && functab_scan_jumps(o->t, o->code, o->arg, arch_each_branch)) {
		snprintf(v->why, sizeof(v->why),
			 "cannot be planned: no memory to scan its object's branches");
		return false;
	}
	if (arch_plan_hook(code, v->size, o->base + v->value, o->base, o->alone ? NULL : o->t,
			   o->code, o->arg, &v->plan, v->why, sizeof(v->why)))
		return false;
	v->outcome = HOOKABLE_OK;
	v->why[0] = '\0';
	return true;
}
