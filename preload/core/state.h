/* SPDX-License-Identifier: MIT */
/*
 * The shim's shared state (state.c).  Everything here is written once, at start-up
 * while the process is single-threaded, and only read afterwards, except
 * the per-thread state (struct xp_thread) and the worker pool.
 */
#ifndef EXTPROF_PRELOAD_CORE_STATE_H
#define EXTPROF_PRELOAD_CORE_STATE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dump_map.h"

/* Nothing of the shim's is for the program to see or interpose. */
#pragma GCC visibility push(hidden)

/*
 * Declarations a process may have: their table grows as they are registered
 * (worker_room_for_decls); a C++ library's every function is tens of
 * thousands.  A worker's live dump holds a histogram row (about 30 KB) only
 * for the declarations it has evaluated (dump_take_row).
 */
#define XP_MAX_DECLS   (1u << 18)
#define XP_MAX_WORKERS 1024

/* One registered function. */
struct xp_decl {
	char kind[32];
	char symbol[256];
	char object[256]; /* basename of the ELF object */
	uint64_t address; /* runtime entry */
	uint64_t offset;  /* from the object's load base */
	uint64_t size;
	void *stub;  /* where the patched entry jumps */
	bool window; /* the window function, not a declaration of the report */
};

/* A shadow-stack entry: one activation of a hooked function. */
struct xp_frame {
	uint64_t ret;	 /* the caller's return address, moved off the stack */
	uint64_t slot;	 /* where it was: identifies the activation */
	uint64_t start;	 /* counter at entry, after the hook's own work */
	uint64_t nested; /* hook overhead of nested evaluations, to subtract */
	uint32_t idx;
	uint32_t flags;
};

#define XP_FRAME_RECURSIVE  (1u << 0)
#define XP_FRAME_UNCOUNTED  (1u << 1) /* inherited across fork, or the shim's own */
#define XP_FRAME_OUTSIDE    (1u << 2) /* no window activation was in progress */
#define XP_FRAME_WINDOW	    (1u << 3) /* an activation of the window function */
#define XP_FRAME_RESTORED   (1u << 4) /* R1 put back in its slot for an unwinder */
#define XP_FRAME_STEPPED    (1u << 5) /* steps: single-stepped from its first instruction */
#define XP_FRAME_STEP_EXIT  (1u << 6) /* steps: and still when it reached its stub's exit */
#define XP_FRAME_STEP_BOUND (1u << 7) /* steps: the dynamic loader bound a symbol lazily in it */
/* steps' code cache: a signal handler runs over it, whose counts are none of its */
#define XP_FRAME_SIGNALED (1u << 8)

struct xp_worker;

/*
 * Single-stepping, for the steps counter (step.c): one thread's state,
 * written by the thread and by its SIGTRAP handler only.
 */
struct xp_step {
	uint64_t count;	    /* instructions counted on this thread: the counter */
	uint64_t prev;	    /* the instruction the next trap says has retired; 0: the shim's */
	uint64_t susp_slot; /* the slot of the call whose thunk stepping was suspended at */
	uint64_t slot;	    /* the outermost stepped activation's slot */
	uint64_t limit;	    /* count past which its stepping is given up */
	uint32_t depth;	    /* 1 + its shadow-stack entry; 0: not stepping */
	uint32_t
		prev_rep; /* what prev is: plain, a repeated string instruction, or a system call */
	uint32_t fix;	  /* what prev leaves the next trap to mend (arch_step_retired) */
	uint32_t trap_wanted; /* the program asked for SIGTRAP to be blocked meanwhile */
	uint64_t fix_addr;
	uint64_t fix_val;
	uint64_t fix_old;
	uint64_t prev_end; /* a system call's, a breakpoint's: where the instruction after it starts
			    */
	uint64_t mask;	   /* the signal set rt_sigprocmask is given instead of the program's */
	stack_t alt_old;   /* the program's sigaltstack, while the shim's is in its place */
	uint32_t alt_saved; /* alt_old is to be put back (step.c) */
};

/* Per-thread state, in initial-exec TLS: one load from the thread pointer away. */
struct xp_thread {
	struct xp_worker *worker; /* NULL until the thread's first evaluation */
	struct xp_frame *stack;	  /* shadow stack, mmap'd at the first evaluation */
	uint32_t depth;
	uint32_t cap;
	uint32_t busy;	  /* inside the shim's own slow path: do not count */
	uint32_t filling; /* 1 + the entry a push is filling, 0 when none: see eval.c */
	/*
	 * Every call takes the C path while either is set; the two share one
	 * 64-bit word, which the stubs' fast path tests with one instruction
	 * (stub_fast.S).  shared: threads clone() made without TLS of their
	 * own run on this block too (clone.c), and the C path finds the
	 * caller's own state (state_self).  cancel_async: the thread whose
	 * thread pointer this is asked for asynchronous cancellation
	 * (cancel.c), which the C path switches to deferred meanwhile.
	 */
	uint32_t shared;
	uint32_t cancel_async;
	uint64_t stack_lo; /* the thread's own stack, to tell a sigaltstack apart */
	uint64_t stack_hi;
	uint64_t run_start; /* counter when this thread took its worker */
	/* with a window: this thread's span inside the current window episode */
	uint64_t win_epoch;
	uint64_t win_first;
	uint64_t win_last;
	/* PMU counters: the perf mmap page and fd of this thread */
	void *pmu_page;
	int pmu_fd;
	uint32_t stack_known;	  /* stack_lo and stack_hi are set (thread_know_stack) */
	int32_t tid;		  /* shared: the kernel's id of the thread whose block this is */
	uint32_t shared_in_stack; /* shared: another thread's stack lies inside stack_lo..hi */
	uint32_t released;	  /* the thread is exiting: no new worker */
	struct xp_step step;
	void *own; /* the shim's own stacks for the thread (worker.c), NULL until needed */
};

/* Threads without TLS of their own at once (clone.c); the calls of any more are lost. */
#define XP_MAX_FOREIGN 64

/* The state of such a thread, found by its kernel thread id. */
struct xp_foreign {
	int32_t tid; /* 0: free; taken and given back by atomic operations */
	struct xp_thread t;
};

/* A worker: one accumulator and its dump, used by one thread at a time. */
struct xp_worker {
	uint32_t state; /* XP_WORKER_FREE / XP_WORKER_TAKEN, changed by CAS */
	uint32_t index;
	struct dump_map map; /* map.base NULL: no dump could be made */
	struct xp_thread *owner;
	int32_t owner_tid; /* the owner's kernel id, 0: unknown (under a seccomp filter) */
};

#define XP_WORKER_FREE	0u
#define XP_WORKER_TAKEN 1u

/* The counter, chosen at start-up. */
struct xp_counter {
	uint32_t kind; /* enum extprof_counter_kind */
	uint32_t flags;
	char name[64];
	const char *unit;
	uint64_t var_addr; /* var: a global's address */
	int64_t var_tpoff; /* var: a __thread variable's offset from the thread pointer */
	bool var_tls;
};

struct xp_state {
	bool enabled;	  /* at least one function hooked */
	bool finished;	  /* the process is exiting: pass calls through */
	bool calibrating; /* workers count in anonymous memory */
	bool ordered;	  /* the counter is read between fences (counter_read.h) */
	bool sandboxed;	  /* a seccomp filter is loaded: no system call any more (sandbox.c) */
	bool lost_only;	  /* a fork child under the filter: its calls are lost, and said */
	uint32_t ndecls;
	struct xp_decl *decls; /* ndecls used; grown by worker_room_for_decls */
	struct xp_counter counter;
	struct dump_meta meta;
	char dir[4096];
	uint32_t callers;
	uint32_t nworkers; /* high-water mark */
	struct xp_worker workers[XP_MAX_WORKERS];
	uint32_t window_decl;	    /* UINT32_MAX without a window */
	pthread_mutex_t decls_lock; /* declarations added after start-up (dlopen) */
	bool dir_ok;		    /* dir is usable: dumps are made there */
	bool children_off;	    /* EXTPROF_CHILDREN=0: fork children count nothing */
	char file_exe[256];	    /* the executable's and the host's names, */
	char file_host[64];	    /* as safe to put in a file name */
};

extern struct xp_state xp;
extern __thread struct xp_thread xp_self __attribute__((tls_model("initial-exec")));
extern volatile int64_t xp_window_open;	  /* activations of the window in progress */
extern volatile uint64_t xp_window_epoch; /* times the window went from closed to open */
extern uint64_t xp_lost;		  /* calls that could not be counted */
extern struct xp_foreign xp_foreign[XP_MAX_FOREIGN];
extern uint64_t *xp_lost_at; /* where they are counted: xp_lost, or a parent's dump (worker.c) */

/* ---- whose state a call is ---- */

/*
 * The state of the thread that runs on xp_self's block @thread and whose stack
 * holds @sp, where @thread is shared: @thread's own thread's (told by the stack when
 * no other's lies in it, else by the thread id), or another's in
 * xp_foreign, taken for it when @claim.  NULL: another's, with none (not
 * @claim, or no room).  Under a seccomp filter, where the thread id cannot
 * be asked, the state holding an activation at @sp, or NULL.
 */
struct xp_thread *state_find_thread(struct xp_thread *thread, uint64_t sp, bool claim);

/* The calling thread's own state (@sp an address on its stack): state_find_thread's say. */
static inline struct xp_thread *state_self(uint64_t sp, bool claim)
{
	struct xp_thread *t = &xp_self;

	return __builtin_expect(t->shared, 0) ? state_find_thread(t, sp, claim) : t;
}
#pragma GCC visibility pop

#endif
