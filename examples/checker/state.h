/* SPDX-License-Identifier: MIT */
/*
 * The state of the two-phase commit protocol (Lamport's TLA+ "TwoPhase"), as the predicates
 * see it, and its packed form, as the visited set and the frontier store it.
 */
#ifndef CHECKER_STATE_H
#define CHECKER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The packed key spends 4 bits per RM and 4 on the TM, so 15 RMs fill its 64 bits. */
#define STATE_MAX_RM 15

enum rm_state { RM_WORKING, RM_PREPARED, RM_COMMITTED, RM_ABORTED };
enum tm_state { TM_INIT, TM_COMMITTED, TM_ABORTED };

struct tp_state {
	uint8_t n;		/* how many resource managers: RM = 0 .. n-1 */
	uint8_t tm;		/* tmState: enum tm_state */
	bool msg_commit;	/* [type |-> "Commit"] \in msgs */
	bool msg_abort;		/* [type |-> "Abort"] \in msgs */
	uint16_t tm_prepared;	/* tmPrepared: bit i set when RM i is in it */
	uint16_t msg_prepared;	/* bit i set when [type |-> "Prepared", rm |-> i] \in msgs */
	uint8_t rm[STATE_MAX_RM]; /* rmState: enum rm_state */
};

/* No state packs to this: its TM field would read 3, which is no tm_state. */
#define STATE_KEY_NONE UINT64_MAX

void state_init(struct tp_state *s, unsigned n);
uint64_t state_encode(const struct tp_state *s);
void state_decode(uint64_t key, unsigned n, struct tp_state *s);
void state_format(const struct tp_state *s, char *buf, size_t size);

#endif /* CHECKER_STATE_H */
