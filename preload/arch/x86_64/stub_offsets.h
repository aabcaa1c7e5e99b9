/* SPDX-License-Identifier: MIT */
/*
 * The field offsets stub_fast.S reads and writes, by hand: an assembler
 * file cannot include core/state.h.  stub_fast.c checks every one of them
 * against the C structures at compile time, so a change to a structure
 * breaks the build rather than the profiled program.
 */
#ifndef EXTPROF_STUB_OFFSETS_H
#define EXTPROF_STUB_OFFSETS_H

/* struct xp_thread (initial-exec TLS: xp_self) */
#define XT_WORKER  0
#define XT_STACK   8
#define XT_DEPTH   16
#define XT_CAP	   20
#define XT_BUSY	   24 /* busy and filling, read as one 64-bit word at entry */
#define XT_FILLING 28
#define XT_SHARED  32 /* shared and cancel_async, read as one 64-bit word: */
#define XT_ASYNC   36 /* either sends the call to the C path */

/* struct xp_frame, one shadow-stack entry */
#define XF_RET	     0
#define XF_SLOT	     8
#define XF_START     16
#define XF_NESTED    24
#define XF_IDX	     32
#define XF_FLAGS     36
#define XF_SIZE	     40
#define XF_UNCOUNTED 2 /* XP_FRAME_UNCOUNTED */

/* struct xp_worker: its dump_map's pointers */
#define XW_DECLS    32
#define XW_NDECLS   56
#define XW_ROW_BIAS 80 /* row_bias[]: chunk k's row r at row_bias[k] + r * XH_ROW_BYTES */

/* struct extprof_dump_decl */
#define XD_EVALUATIONS 24
#define XD_FLOOR       32
#define XD_FLOOR_HITS  40
#define XD_SUM	       48
#define XD_MAX	       56
#define XD_OPEN	       88
#define XD_FLOOR_LIMIT 96
#define XD_NEGATIVE    104
#define XD_ROW	       112
#define XD_PARENT      116
#define XD_NESTED      120
#define XD_NESTED_SUM  128
#define XD_INNER       136
#define XD_INNER_SUM   144
#define XD_SIZE	       176

/* struct xp_state (the global xp) */
#define XS_FINISHED 1
#define XS_ORDERED  3 /* read by thunk.S */

/* struct stub_lits: the literals at the end of every copy of a template */
#define LIT_TPOFF 0  /* xp_self's offset from the thread pointer */
#define LIT_XP	  8  /* &xp */
#define LIT_VAR	  16 /* var: the variable's address, or its offset from the thread pointer */
#define LIT_IDX	  24 /* the declaration's index */
#define LIT_DOFF  32 /* its accumulator's offset in a worker's declarations */
#define LIT_NEST  40 /* the nested overhead (calibration's stubs: 0, as it is then) */
#define LIT_ORIG  48 /* the relocated prologue, in the stub's head */
#define LIT_EXIT  56 /* xp_eval_exit_now */
#define LIT_ROW	  64 /* xp_eval_take_row */
#define LIT_SIZE  72

/* the histogram (include/extprof/dump.h) */
#define XH_BUCKETS   3776
#define XH_EXACT     128
#define XH_SUB_BITS  6
#define XH_ROW_BYTES 30208 /* a row: XH_BUCKETS * 8 */
#define XH_ROWS0_LOG 3	   /* a dump's chunk k holds 8 << k rows (dump.h) */

#endif
