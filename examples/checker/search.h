/* SPDX-License-Identifier: MIT */
/* Breadth-first exploration of the reachable states, by a pool of worker threads. */
#ifndef CHECKER_SEARCH_H
#define CHECKER_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"
#include "state.h"

/* The least violation of the deepest level searched, so it is the same for every W. */
struct search_violation {
	bool found;
	bool is_property;		 /* else an invariant */
	unsigned pred;			 /* index into the spec's invariants or properties */
	uint8_t key[STATE_KEY_MAX];	 /* the state, or the state before the step */
	uint8_t next_key[STATE_KEY_MAX]; /* the state after the step, for a property; else 0 */
};

struct search_result {
	uint64_t states;      /* distinct states found */
	uint64_t transitions; /* enabled action instances taken, successors generated */
	uint64_t terminal;    /* states the terminal check accepted */
	uint64_t violations;  /* failed evaluations, at most one invariant per state */
	unsigned depth;	      /* levels searched; the initial state is level 1 */
	bool bounded;	      /* max_states stopped it: level depth was checked, not expanded */
	struct search_violation first;
};

/*
 * max_states 0: search every reachable state. Else stop after the first level at whose end
 * at least max_states distinct states are known, and check the states of the next level (the
 * invariants and the terminal check) without expanding them.
 */
int search_run(const struct spec *spec, unsigned n_rm, unsigned n_workers, uint64_t max_states,
	       struct search_result *res, uint64_t *worker_work);

#endif /* CHECKER_SEARCH_H */
