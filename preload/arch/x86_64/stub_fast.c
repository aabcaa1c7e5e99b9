// SPDX-License-Identifier: MIT
/*
 * stub_fast: which fast path the stubs carry, and the layout of its
 * literals (patch.c fills each copy's).
 *
 *   tsc                  xp_stub_tsc     (stub_fast.S), reads between fences
 *   tsc-unordered        xp_stub_tsc_unordered, bare rdtsc
 *   var:, a global       xp_stub_var
 *   var:, a __thread     xp_stub_tvar
 *   ns, instructions,    none: the head's C path (thunk.S, eval.c);
 *   cycles, EXTPROF_WINDOW, EXTPROF_CALLERS
 *
 * Chosen once, before calibration makes its stubs, so that calibration
 * measures the very path the declarations take.  The template reads and
 * writes the shim's structures at the offsets of stub_offsets.h, checked
 * here against the C definitions.
 */
#include <stddef.h>

#include "arch/arch.h"
#include "core/state.h"
#include "stub_fast.h"
#include "stub_layout.h"
#include "stub_offsets.h"

extern const uint8_t xp_stub_tsc[], xp_stub_tsc_ret[], xp_stub_tsc_end[];
extern const uint8_t xp_stub_tsc_unordered[], xp_stub_tsc_unordered_ret[],
	xp_stub_tsc_unordered_end[];
extern const uint8_t xp_stub_var[], xp_stub_var_ret[], xp_stub_var_end[];
extern const uint8_t xp_stub_tvar[], xp_stub_tvar_ret[], xp_stub_tvar_end[];

static const struct stub_template stub_fast_tsc = {xp_stub_tsc, xp_stub_tsc_ret, xp_stub_tsc_end};
static const struct stub_template stub_fast_tsc_unordered = {
	xp_stub_tsc_unordered, xp_stub_tsc_unordered_ret, xp_stub_tsc_unordered_end};
static const struct stub_template stub_fast_var = {xp_stub_var, xp_stub_var_ret, xp_stub_var_end};
static const struct stub_template stub_fast_tvar = {xp_stub_tvar, xp_stub_tvar_ret,
						    xp_stub_tvar_end};
static const struct stub_template *stub_fast_chosen;

int64_t xp_stub_fast_ret;

#define STUB_OFFSET(c, type, field)                                                                \
	_Static_assert(c == offsetof(type, field), #c " is not offsetof(" #type ", " #field ")")

STUB_OFFSET(XT_WORKER, struct xp_thread, worker);
STUB_OFFSET(XT_STACK, struct xp_thread, stack);
STUB_OFFSET(XT_DEPTH, struct xp_thread, depth);
STUB_OFFSET(XT_CAP, struct xp_thread, cap);
STUB_OFFSET(XT_BUSY, struct xp_thread, busy);
STUB_OFFSET(XT_FILLING, struct xp_thread, filling);
STUB_OFFSET(XT_SHARED, struct xp_thread, shared);
STUB_OFFSET(XT_ASYNC, struct xp_thread, cancel_async);
_Static_assert(XT_FILLING == XT_BUSY + 4 && XT_BUSY % 8 == 0, "busy and filling: one word");
_Static_assert(XT_ASYNC == XT_SHARED + 4 && XT_SHARED % 8 == 0,
	       "shared and cancel_async: one word");
STUB_OFFSET(XF_RET, struct xp_frame, ret);
STUB_OFFSET(XF_SLOT, struct xp_frame, slot);
STUB_OFFSET(XF_START, struct xp_frame, start);
STUB_OFFSET(XF_NESTED, struct xp_frame, nested);
STUB_OFFSET(XF_IDX, struct xp_frame, idx);
STUB_OFFSET(XF_FLAGS, struct xp_frame, flags);
_Static_assert(XF_SIZE == sizeof(struct xp_frame), "XF_SIZE");
STUB_OFFSET(XW_DECLS, struct xp_worker, map.decls);
STUB_OFFSET(XW_ROW_BIAS, struct xp_worker, map.row_bias);
STUB_OFFSET(XW_NDECLS, struct xp_worker, map.ndecls);
STUB_OFFSET(XD_EVALUATIONS, struct extprof_dump_decl, evaluations);
STUB_OFFSET(XD_FLOOR, struct extprof_dump_decl, floor);
STUB_OFFSET(XD_FLOOR_HITS, struct extprof_dump_decl, floor_hits);
STUB_OFFSET(XD_SUM, struct extprof_dump_decl, sum);
STUB_OFFSET(XD_MAX, struct extprof_dump_decl, max);
STUB_OFFSET(XD_OPEN, struct extprof_dump_decl, open);
STUB_OFFSET(XD_FLOOR_LIMIT, struct extprof_dump_decl, floor_limit);
STUB_OFFSET(XD_NEGATIVE, struct extprof_dump_decl, negative);
STUB_OFFSET(XD_ROW, struct extprof_dump_decl, row);
_Static_assert(sizeof(((struct extprof_dump_decl *)0)->row) == 4, "row is read as 32 bits");
STUB_OFFSET(XD_PARENT, struct extprof_dump_decl, parent);
_Static_assert(sizeof(((struct extprof_dump_decl *)0)->parent) == 4, "parent is 32 bits");
STUB_OFFSET(XD_NESTED, struct extprof_dump_decl, nested);
STUB_OFFSET(XD_NESTED_SUM, struct extprof_dump_decl, nested_sum);
STUB_OFFSET(XD_INNER, struct extprof_dump_decl, inner);
STUB_OFFSET(XD_INNER_SUM, struct extprof_dump_decl, inner_sum);
_Static_assert(XF_UNCOUNTED == XP_FRAME_UNCOUNTED, "XF_UNCOUNTED");
_Static_assert(XD_SIZE == sizeof(struct extprof_dump_decl), "XD_SIZE");
STUB_OFFSET(XS_FINISHED, struct xp_state, finished);
_Static_assert(sizeof(((struct xp_state *)0)->finished) == 1, "finished is read as a byte");
STUB_OFFSET(XS_ORDERED, struct xp_state, ordered);
_Static_assert(sizeof(((struct xp_state *)0)->ordered) == 1, "ordered is read as a byte");
_Static_assert(XH_BUCKETS == EXTPROF_HIST_BUCKETS && XH_EXACT == EXTPROF_HIST_EXACT &&
		       XH_SUB_BITS == EXTPROF_HIST_SUB_BITS &&
		       XH_ROW_BYTES == EXTPROF_HIST_ROW_BYTES && XH_ROWS0_LOG == DUMP_ROWS0_LOG,
	       "the histogram's layout");
_Static_assert(XF_FLAGS == XF_IDX + 4, "the fast entry writes idx and flags 0 as one word");
STUB_OFFSET(LIT_TPOFF, struct stub_lits, tpoff);
STUB_OFFSET(LIT_XP, struct stub_lits, xp);
STUB_OFFSET(LIT_VAR, struct stub_lits, var);
STUB_OFFSET(LIT_IDX, struct stub_lits, idx);
STUB_OFFSET(LIT_DOFF, struct stub_lits, doff);
STUB_OFFSET(LIT_NEST, struct stub_lits, nested);
STUB_OFFSET(LIT_ORIG, struct stub_lits, orig);
STUB_OFFSET(LIT_EXIT, struct stub_lits, exit_now);
STUB_OFFSET(LIT_ROW, struct stub_lits, take_row);
_Static_assert(LIT_SIZE == sizeof(struct stub_lits), "LIT_SIZE");

void arch_choose_fast_path(const struct xp_counter *counter, bool callers, bool window)
{
	const struct stub_template *t = NULL;

	if (!callers && !window && counter->kind == EXTPROF_COUNTER_TSC)
		t = xp.ordered ? &stub_fast_tsc : &stub_fast_tsc_unordered;
	else if (!callers && !window && counter->kind == EXTPROF_COUNTER_VAR)
		t = counter->var_tls ? &stub_fast_tvar : &stub_fast_var;
	stub_fast_chosen = t;
	/* R2 of the fast path, from the head that follows the copy */
	xp_stub_fast_ret = t ? -(int64_t)(t->end - t->ret) : 0;
}

const struct stub_template *stub_fast_template(void)
{
	return stub_fast_chosen;
}

const void *arch_fast_path_code(void)
{
	return stub_fast_chosen ? stub_fast_chosen->start : NULL;
}
