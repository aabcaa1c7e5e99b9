/* SPDX-License-Identifier: MIT */
/*
 * A compiled specification, as the search engine holds it: tables of function pointers. The
 * engine reaches every predicate through these tables and never by name, the way a checker
 * runs a spec it did not compile itself.
 */
#ifndef CHECKER_SPEC_H
#define CHECKER_SPEC_H

#include <stdbool.h>

#include "state.h"

/* The rm argument of an action that is not parameterised by a resource manager. */
#define SPEC_NO_RM (-1)

struct spec_invariant {
	const char *name;
	bool (*holds)(const struct tp_state *s);
};

/* A predicate over one step: the state before and the state after an action. */
struct spec_property {
	const char *name;
	bool (*holds)(const struct tp_state *s, const struct tp_state *next);
};

struct spec_action {
	const char *name;
	bool per_rm; /* one instance per resource manager, else one with SPEC_NO_RM */
	bool (*enabled)(const struct tp_state *s, int rm);
	/*
	 * The engine calls it with next already a copy of s (state_copy), as a checker carries
	 * the UNCHANGED variables over itself: it assigns only what the action changes, so its
	 * cost does not grow with the size of the state.
	 */
	void (*apply)(const struct tp_state *s, int rm, struct tp_state *next);
};

struct spec {
	const char *title;
	const struct spec_invariant *invariants;
	unsigned n_invariants;
	const char *terminal_name;
	bool (*terminal)(const struct tp_state *s);
	const struct spec_property *properties;
	unsigned n_properties;
	const struct spec_action *actions;
	unsigned n_actions;
};

#endif /* CHECKER_SPEC_H */
