/* SPDX-License-Identifier: MIT */
/*
 * The state of the two-phase commit protocol (Lamport's TLA+ "TwoPhase"), as the predicates
 * see it, and its key, as the visited set and the frontier store it.
 */
#ifndef CHECKER_STATE_H
#define CHECKER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most resource managers -n accepts. */
#define STATE_MAX_RM 1024
/* Up to this many, a state packs into one 64-bit key: 4 bits per RM and 4 for the TM. */
#define STATE_PACKED_MAX_RM 15
/* The longest key, in bytes: see state_key_len. */
#define STATE_KEY_MAX (2 * ((STATE_MAX_RM + 7) / 8) + 1 + (STATE_MAX_RM + 3) / 4)
/* Room for state_format's text of the largest state, terminator included. */
#define STATE_TEXT_MAX (64 + (size_t)STATE_MAX_RM * 32)

enum rm_state { RM_WORKING, RM_PREPARED, RM_COMMITTED, RM_ABORTED };
enum tm_state { TM_INIT, TM_COMMITTED, TM_ABORTED };

/*
 * Everything the state says about one resource manager, in one record, the way a checker
 * lays out a state for the predicates to read: rmState as a function value (each element of
 * its domain beside its value, so TPTypeOK's "rmState \in [RM -> ...]" checks both), and the
 * RM's membership in the two sets of RMs, tmPrepared and the Prepared messages.
 */
struct tp_rm {
	uint16_t id;	      /* the RM: always i in rm[i] */
	uint8_t state;	      /* rmState[id]: enum rm_state */
	uint8_t tm_prepared;  /* 1 when id \in tmPrepared, else 0 */
	uint8_t msg_prepared; /* 1 when [type |-> "Prepared", rm |-> id] \in msgs, else 0 */
	uint8_t unused;
};

/* Only the first n records of rm[] are part of the state: the rest is never read or copied. */
struct tp_state {
	uint16_t n;		/* how many resource managers: RM = 0 .. n-1 */
	uint8_t tm;		/* tmState: enum tm_state */
	bool msg_commit;	/* [type |-> "Commit"] \in msgs */
	bool msg_abort;		/* [type |-> "Abort"] \in msgs */
	uint16_t tm_prepared_n; /* Cardinality(tmPrepared), kept beside the set */
	struct tp_rm rm[STATE_MAX_RM];
};

void state_init(struct tp_state *s, unsigned n);
/* Copies the part of src that is state (see struct tp_state); dst gets src's n. */
void state_copy(struct tp_state *dst, const struct tp_state *src);

/*
 * The key: a state as a string of state_key_len(n) bytes, the same for the same state, with
 * rmState in 2 bits per RM and each set in 1 bit per RM. Up to STATE_PACKED_MAX_RM RMs it is
 * one uint64_t in host byte order (state.c has its layout), and never all ones. Above, it is
 * longer. state_key_cmp orders keys of either kind the same way: by the Prepared messages,
 * then tmPrepared (each as a binary number, RM 0 its lowest bit), Abort, Commit, tmState,
 * and then rmState from the last RM to the first.
 */
size_t state_key_len(unsigned n);
void state_encode(const struct tp_state *s, uint8_t *key);
void state_decode(const uint8_t *key, unsigned n, struct tp_state *s);
int state_key_cmp(const uint8_t *a, const uint8_t *b, unsigned n);

/* Writes the state as text, cut to fit size; STATE_TEXT_MAX always fits. */
void state_format(const struct tp_state *s, char *buf, size_t size);

#endif /* CHECKER_STATE_H */
