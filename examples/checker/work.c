// SPDX-License-Identifier: MIT
/*
 * checker_work: the checker's own count of the work its predicates do, one counter per thread.
 *
 * One unit is one elementary step of a predicate:
 *   - in a scan over the resource managers, one RM examined (its rmState and its bits in
 *     tmPrepared and in the Prepared messages), plus one for the TM's own variables when the
 *     scan reads them;
 *   - in a pairwise check, one ordered pair of RMs compared (the pair (i, i) included);
 *   - in a guard, the whole guard: it reads a fixed handful of fields, so it costs 1;
 *   - in a transition, one state variable assigned (rmState, tmState, tmPrepared or msgs);
 *   - on a predicate's early exit, the one test that let it leave.
 * Each predicate advances it exactly once per call, so the advance over one call is exact and
 * the same on every machine: examples/checker/README.md lists it per predicate.
 *
 * A profiler reads it by name (extprof's var:checker_work), so the name is part of the
 * program's interface: it stays global, thread-local and 64 bits wide, and it only ever
 * grows: nothing resets it, not even when its thread ends, because a profiler may read it
 * last as the thread exits and take that reading as the thread's total.
 */
#include "work.h"

__thread uint64_t checker_work;

/* What every thread did, folded in as each one finishes. Nothing in the checker needs it. */
uint64_t checker_work_total;

/* Called once per thread, as it ends. checker_work keeps its value: see above. */
void work_retire(void)
{
	__atomic_fetch_add(&checker_work_total, checker_work, __ATOMIC_RELAXED);
}
