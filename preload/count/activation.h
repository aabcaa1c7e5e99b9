/* SPDX-License-Identifier: MIT */
/* activation: what ending an activation that never returns counts. */
#ifndef EXTPROF_PRELOAD_ACTIVATION_H
#define EXTPROF_PRELOAD_ACTIVATION_H

#include "core/state.h"

/*
 * How activation_abandon() treats an activation; ACTIVATION_GONE for one
 * of the calling thread's own that is popped (or left marked uncounted).
 */
enum activation_how {
	/* the dump's tally only: the activation may still return (another
	 * thread's at exit, an exec in progress) */
	ACTIVATION_TALLY = 0,
	/* it is the calling thread's: its declaration is open once less */
	ACTIVATION_OWN = 1u << 0,
	/* it counts no more: the window closes if it opened it, and it is
	 * marked uncounted */
	ACTIVATION_ENDS = 1u << 1,
	ACTIVATION_GONE = ACTIVATION_OWN | ACTIVATION_ENDS,
	/* a failed exec: the tally of ACTIVATION_TALLY undone */
	ACTIVATION_UNDO = 1u << 2,
};

/*
 * Count activation @frame of worker @worker as abandoned (it never returns
 * through its stub), as @how says; one that was not counted, or whose
 * declaration @worker's dump lacks, counts nothing.  On the evaluation path: no lock, no libc.
 */
void activation_abandon(struct xp_worker *worker, struct xp_frame *frame, unsigned how);

/*
 * Put R1, the real return address, back in every slot of this thread's
 * activations, for an unwinder or a stack walk (host/unwind.c says why).
 */
void activation_restore_frames(void);

/* Abandon the activations below @sp; give the others back their stub's return address. */
void activation_rehook_frames(uint64_t sp);

#endif
