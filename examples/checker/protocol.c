// SPDX-License-Identifier: MIT
/*
 * Two-phase commit, after Lamport's TLA+ module TwoPhase: N resource managers (RMs) and one
 * transaction manager (TM) agree to commit or abort. The RMs vote by sending Prepared; the
 * TM commits once it has counted every vote and may abort at any time before that.
 *
 * The predicates are the spec compiled by hand: invariants, a terminal check, an action
 * property, and a guard and a transition per action. Each advances checker_work exactly once
 * per call by the work it did (see work.c); README.md lists the amount per predicate.
 */
#include "protocol.h"
#include "truth.h"
#include "work.h"

bool protocol_bug_early_commit;

const char *const protocol_pred_names[TP_NPRED] = {
	[TP_TYPE_OK] = "type_ok",
	[TP_CONSISTENT] = "consistent",
	[TP_COMMIT_JUSTIFIED] = "commit_justified",
	[TP_IS_TERMINAL] = "is_terminal",
	[TP_DECISION_IS_STABLE] = "decision_is_stable",
	[TP_CAN_PREPARE] = "can_prepare",
	[TP_CAN_CHOOSE_ABORT] = "can_choose_abort",
	[TP_CAN_RM_COMMIT] = "can_rm_commit",
	[TP_CAN_RM_ABORT] = "can_rm_abort",
	[TP_CAN_RECEIVE_PREPARED] = "can_receive_prepared",
	[TP_CAN_DECIDE_COMMIT] = "can_decide_commit",
	[TP_CAN_DECIDE_ABORT] = "can_decide_abort",
	[TP_DO_PREPARE] = "do_prepare",
	[TP_DO_RM_ABORT] = "do_rm_abort",
	[TP_DO_RM_COMMIT] = "do_rm_commit",
	[TP_DO_RECEIVE_PREPARED] = "do_receive_prepared",
	[TP_DO_DECIDE_COMMIT] = "do_decide_commit",
	[TP_DO_DECIDE_ABORT] = "do_decide_abort",
};

/*
 * Each predicate calls this exactly once, on every path out: the ground-truth build counts
 * a call per charge, so one charge per call keeps its count exact.
 *
 * Where a predicate's work is meant not to depend on the state, its conditions are combined
 * with & and | rather than && and ||: no branch to skip, so it runs the same instructions on
 * every state and an instruction counter sees one cost, as checker_work does.
 */
static inline void protocol_charge(enum tp_pred id, uint64_t units)
{
	checker_work += units;
	truth_charge(id, units);
}

/* RM j voted yes: it sent Prepared, the TM counted it, and it has not gone back on it. */
static inline unsigned rm_voted(const struct tp_state *s, unsigned j)
{
	const struct tp_rm *r = &s->rm[j];
	unsigned holds = (r->state == RM_PREPARED) | (r->state == RM_COMMITTED);

	return r->msg_prepared & r->tm_prepared & holds;
}

static inline unsigned rm_has_outcome(uint8_t st)
{
	return (st == RM_COMMITTED) | (st == RM_ABORTED);
}

/* ---- invariants ------------------------------------------------------------------------ */

/* The type of an rmState element, as a set of byte values: a type check is safe on any byte. */
static const bool rm_state_type[256] = {
	[RM_WORKING] = true,
	[RM_PREPARED] = true,
	[RM_COMMITTED] = true,
	[RM_ABORTED] = true,
};

/*
 * TPTypeOK: every variable holds a value of its type. For each RM: rmState is a function from
 * RM, so the element's place in the domain is checked as well as its value, and its
 * memberships of tmPrepared and of the Prepared messages are each in or out, 1 or 0.
 */
bool type_ok(const struct tp_state *s)
{
	bool ok = s->tm <= TM_ABORTED;
	unsigned i;

	for (i = 0; i < s->n; i++) {
		const struct tp_rm *r = &s->rm[i];

		ok &= (r->id == i) & rm_state_type[r->state] & (r->tm_prepared <= 1) &
		      (r->msg_prepared <= 1);
	}
	protocol_charge(TP_TYPE_OK, s->n + 1u);
#ifdef CHECKER_SLOW_TYPE_OK
	/* A regression to find: the tests' "slower" build checks every RM twice. */
	for (i = 0; i < s->n; i++) {
		const struct tp_rm *r = &s->rm[i];

		ok &= (r->id == i) & rm_state_type[r->state];
	}
	protocol_charge(TP_TYPE_OK, s->n + 1u);
#endif
	return ok;
}

/* Outcomes that cannot stand together: one RM committed while another aborted. */
static const bool outcome_conflict[4][4] = {
	[RM_COMMITTED][RM_ABORTED] = true,
	[RM_ABORTED][RM_COMMITTED] = true,
};

/*
 * TCConsistent: no RM has committed while another has aborted. Deliberately naive: every
 * ordered pair, just as "\A rm1, rm2 \in RM" reads, and a table lookup on both members so
 * the compiler cannot hoist one of them out and skip the inner loop.
 */
bool consistent(const struct tp_state *s)
{
	uint64_t pairs = 0;
	bool ok = true;
	unsigned i, j;

	for (i = 0; i < s->n && ok; i++) {
		for (j = 0; j < s->n && ok; j++) {
			pairs++;
			ok = !outcome_conflict[s->rm[i].state][s->rm[j].state];
		}
	}
	protocol_charge(TP_CONSISTENT, pairs);
	return ok;
}

/*
 * Row: RM i's standing, read as committed once the TM has committed for everyone; column:
 * whether RM j voted yes. A commit needs every vote; nothing else needs any.
 */
static const bool vote_justifies[4][2] = {
	[RM_WORKING] = {true, true},
	[RM_PREPARED] = {true, true},
	[RM_COMMITTED] = {false, true},
	[RM_ABORTED] = {true, true},
};

/*
 * While a commit is still possible (the TM has not aborted), nothing has committed, neither
 * the TM nor any RM, without a yes vote from every RM. Once the TM has aborted there is no
 * commit left to justify, and that is most states: they return at once. The rest pay for the
 * pairwise reading, each RM's standing against each RM's vote.
 */
bool commit_justified(const struct tp_state *s)
{
	uint64_t pairs = 0;
	bool ok = true;
	unsigned i, j;

	if (s->tm == TM_ABORTED) {
		protocol_charge(TP_COMMIT_JUSTIFIED, 1);
		return true;
	}
	for (i = 0; i < s->n && ok; i++) {
		unsigned row = s->tm == TM_COMMITTED ? RM_COMMITTED : s->rm[i].state;

		for (j = 0; j < s->n && ok; j++) {
			pairs++;
			ok = vote_justifies[row][rm_voted(s, j)];
		}
	}
	protocol_charge(TP_COMMIT_JUSTIFIED, 1 + pairs);
	return ok;
}

/* ---- terminal -------------------------------------------------------------------------- */

/*
 * The transaction is over: the TM has decided and every RM knows its outcome. It tallies
 * all RMs rather than leaving at the first undecided one, so it costs the same on every
 * state.
 */
bool is_terminal(const struct tp_state *s)
{
	unsigned i, decided = 0;

	for (i = 0; i < s->n; i++)
		decided += rm_has_outcome(s->rm[i].state);
	protocol_charge(TP_IS_TERMINAL, s->n + 1u);
	return (s->tm != TM_INIT) & (decided == s->n);
}

/* ---- action property ------------------------------------------------------------------- */

/* Once decided, a decision never changes: the TM's, and each RM's commit or abort. */
bool decision_is_stable(const struct tp_state *s, const struct tp_state *next)
{
	bool stable = (s->tm == TM_INIT) | (next->tm == s->tm);
	unsigned i;

	for (i = 0; i < s->n; i++)
		stable &= !rm_has_outcome(s->rm[i].state) | (next->rm[i].state == s->rm[i].state);
	protocol_charge(TP_DECISION_IS_STABLE, s->n + 1u);
	return stable;
}

/* ---- guards ---------------------------------------------------------------------------- */

/* RMPrepare: a working RM may vote yes, once. */
bool can_prepare(const struct tp_state *s, int rm)
{
	protocol_charge(TP_CAN_PREPARE, 1);
	return (s->rm[rm].state == RM_WORKING) & !s->rm[rm].msg_prepared;
}

/* RMChooseToAbort: a working RM may give up on its own. */
bool can_choose_abort(const struct tp_state *s, int rm)
{
	protocol_charge(TP_CAN_CHOOSE_ABORT, 1);
	return s->rm[rm].state == RM_WORKING;
}

/* RMRcvCommitMsg: an RM commits once the TM's Commit is out. */
bool can_rm_commit(const struct tp_state *s, int rm)
{
	(void)rm;
	protocol_charge(TP_CAN_RM_COMMIT, 1);
	return s->msg_commit;
}

/* RMRcvAbortMsg: an RM aborts once the TM's Abort is out. */
bool can_rm_abort(const struct tp_state *s, int rm)
{
	(void)rm;
	protocol_charge(TP_CAN_RM_ABORT, 1);
	return s->msg_abort;
}

/* TMRcvPrepared: the undecided TM counts a vote that has arrived. */
bool can_receive_prepared(const struct tp_state *s, int rm)
{
	protocol_charge(TP_CAN_RECEIVE_PREPARED, 1);
	return (s->tm == TM_INIT) & s->rm[rm].msg_prepared;
}

/*
 * TMCommit: the undecided TM commits once every RM has voted yes, that is once tmPrepared,
 * a subset of RM, is as large as RM.
 */
bool can_decide_commit(const struct tp_state *s, int rm)
{
	(void)rm;
	protocol_charge(TP_CAN_DECIDE_COMMIT, 1);
	/* -b: the textbook mistake, committing on the first vote. */
	if (protocol_bug_early_commit)
		return (s->tm == TM_INIT) & (s->tm_prepared_n != 0);
	return (s->tm == TM_INIT) & (s->tm_prepared_n == s->n);
}

/* TMAbort: the undecided TM may abort at any time. */
bool can_decide_abort(const struct tp_state *s, int rm)
{
	(void)rm;
	protocol_charge(TP_CAN_DECIDE_ABORT, 1);
	return s->tm == TM_INIT;
}

/* ---- transitions ----------------------------------------------------------------------- */

/*
 * next arrives as a copy of s (spec.h): a transition assigns only the variables its action
 * changes, and everything else is UNCHANGED.
 */

void do_prepare(const struct tp_state *s, int rm, struct tp_state *next)
{
	(void)s;
	next->rm[rm].state = RM_PREPARED;
	next->rm[rm].msg_prepared = 1;
	protocol_charge(TP_DO_PREPARE, 2);
}

/*
 * RMChooseToAbort and RMRcvAbortMsg change the state the same way, so both actions share
 * this one transition, as identical action bodies do in a compiled spec.
 */
void do_rm_abort(const struct tp_state *s, int rm, struct tp_state *next)
{
	(void)s;
	next->rm[rm].state = RM_ABORTED;
	protocol_charge(TP_DO_RM_ABORT, 1);
}

void do_rm_commit(const struct tp_state *s, int rm, struct tp_state *next)
{
	(void)s;
	next->rm[rm].state = RM_COMMITTED;
	protocol_charge(TP_DO_RM_COMMIT, 1);
}

/* The TM may receive a vote it has already counted: then tmPrepared stays as it was. */
void do_receive_prepared(const struct tp_state *s, int rm, struct tp_state *next)
{
	next->tm_prepared_n += (uint16_t)!s->rm[rm].tm_prepared;
	next->rm[rm].tm_prepared = 1;
	protocol_charge(TP_DO_RECEIVE_PREPARED, 1);
}

void do_decide_commit(const struct tp_state *s, int rm, struct tp_state *next)
{
	(void)s;
	(void)rm;
	next->tm = TM_COMMITTED;
	next->msg_commit = true;
	protocol_charge(TP_DO_DECIDE_COMMIT, 2);
}

void do_decide_abort(const struct tp_state *s, int rm, struct tp_state *next)
{
	(void)s;
	(void)rm;
	next->tm = TM_ABORTED;
	next->msg_abort = true;
	protocol_charge(TP_DO_DECIDE_ABORT, 2);
}

/* ---- the compiled spec ----------------------------------------------------------------- */

static const struct spec_invariant protocol_invariants[] = {
	{"type_ok", type_ok},
	{"consistent", consistent},
	{"commit_justified", commit_justified},
};

static const struct spec_property protocol_properties[] = {
	{"decision_is_stable", decision_is_stable},
};

static const struct spec_action protocol_actions[] = {
	{"TMRcvPrepared", true, can_receive_prepared, do_receive_prepared},
	{"TMCommit", false, can_decide_commit, do_decide_commit},
	{"TMAbort", false, can_decide_abort, do_decide_abort},
	{"RMPrepare", true, can_prepare, do_prepare},
	{"RMChooseToAbort", true, can_choose_abort, do_rm_abort},
	{"RMRcvCommitMsg", true, can_rm_commit, do_rm_commit},
	{"RMRcvAbortMsg", true, can_rm_abort, do_rm_abort},
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct spec protocol_spec = {
	.title = "two-phase commit",
	.invariants = protocol_invariants,
	.n_invariants = ARRAY_SIZE(protocol_invariants),
	.terminal_name = "is_terminal",
	.terminal = is_terminal,
	.properties = protocol_properties,
	.n_properties = ARRAY_SIZE(protocol_properties),
	.actions = protocol_actions,
	.n_actions = ARRAY_SIZE(protocol_actions),
};
