/* SPDX-License-Identifier: MIT */
/*
 * Two-phase commit (TLA+ "TwoPhase"): its predicates, and the table that hands them to the
 * search engine. Only the table is meant for the engine; the prototypes are here so the
 * predicates are declared somewhere, as any public function is.
 */
#ifndef CHECKER_PROTOCOL_H
#define CHECKER_PROTOCOL_H

#include <stdbool.h>

#include "spec.h"
#include "state.h"

/* Every predicate, in the order the ground-truth build prints them. */
enum tp_pred {
	TP_TYPE_OK,
	TP_CONSISTENT,
	TP_COMMIT_JUSTIFIED,
	TP_IS_TERMINAL,
	TP_DECISION_IS_STABLE,
	TP_CAN_PREPARE,
	TP_CAN_CHOOSE_ABORT,
	TP_CAN_RM_COMMIT,
	TP_CAN_RM_ABORT,
	TP_CAN_RECEIVE_PREPARED,
	TP_CAN_DECIDE_COMMIT,
	TP_CAN_DECIDE_ABORT,
	TP_DO_PREPARE,
	TP_DO_RM_ABORT,
	TP_DO_RM_COMMIT,
	TP_DO_RECEIVE_PREPARED,
	TP_DO_DECIDE_COMMIT,
	TP_DO_DECIDE_ABORT,
	TP_NPRED
};

extern const char *const protocol_pred_names[TP_NPRED];
extern const struct spec protocol_spec;

/* -b: the TM commits on the first vote instead of on all of them. Set before the search. */
extern bool protocol_bug_early_commit;

/* invariants */
bool type_ok(const struct tp_state *s);
bool consistent(const struct tp_state *s);
bool commit_justified(const struct tp_state *s);
/* terminal */
bool is_terminal(const struct tp_state *s);
/* action property */
bool decision_is_stable(const struct tp_state *s, const struct tp_state *next);
/* guards */
bool can_prepare(const struct tp_state *s, int rm);
bool can_choose_abort(const struct tp_state *s, int rm);
bool can_rm_commit(const struct tp_state *s, int rm);
bool can_rm_abort(const struct tp_state *s, int rm);
bool can_receive_prepared(const struct tp_state *s, int rm);
bool can_decide_commit(const struct tp_state *s, int rm);
bool can_decide_abort(const struct tp_state *s, int rm);
/* transitions */
void do_prepare(const struct tp_state *s, int rm, struct tp_state *next);
void do_rm_abort(const struct tp_state *s, int rm, struct tp_state *next);
void do_rm_commit(const struct tp_state *s, int rm, struct tp_state *next);
void do_receive_prepared(const struct tp_state *s, int rm, struct tp_state *next);
void do_decide_commit(const struct tp_state *s, int rm, struct tp_state *next);
void do_decide_abort(const struct tp_state *s, int rm, struct tp_state *next);

#endif /* CHECKER_PROTOCOL_H */
