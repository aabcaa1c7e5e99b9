/* SPDX-License-Identifier: MIT */
/* Breadth-first exploration of every reachable state, by a pool of worker threads. */
#ifndef CHECKER_SEARCH_H
#define CHECKER_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"

/* The least violation of the deepest level searched, so it is the same for every W. */
struct search_violation {
	bool found;
	bool is_property;   /* else an invariant */
	unsigned pred;	    /* index into the spec's invariants or properties */
	uint64_t key;	    /* the state, or the state before the step */
	uint64_t next_key;  /* the state after the step, for a property */
};

struct search_result {
	uint64_t states;      /* distinct states found */
	uint64_t transitions; /* enabled action instances taken, successors generated */
	uint64_t terminal;    /* states the terminal check accepted */
	uint64_t violations;  /* failed evaluations, at most one invariant per state */
	unsigned depth;	      /* levels searched; the initial state is level 1 */
	struct search_violation first;
};

int search_run(const struct spec *spec, unsigned n_rm, unsigned n_workers,
	       struct search_result *res);

#endif /* CHECKER_SEARCH_H */
