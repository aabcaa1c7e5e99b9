/* SPDX-License-Identifier: MIT */
/*
 * The shim's shared state.  Everything here is written once, at start-up
 * while the process is single-threaded, and only read afterwards, except
 * the per-thread state (struct xp_thread) and the worker pool.
 */
#ifndef EXTPROF_PRELOAD_SHIM_H
#define EXTPROF_PRELOAD_SHIM_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/dump.h"

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
	uint32_t stack_known;	  /* stack_lo and stack_hi are set (worker_know_stack) */
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
extern int64_t xp_stub_fast_ret; /* R2 of the stubs' fast path from their head, 0: none */

/*
 * thunk.S: call @fn(@arg) with the extended state saved, on @stack (its top)
 * unless NULL: a slow path (worker_call_own).
 */
void xp_call_preserving(void (*fn)(void *), void *arg, void *stack);

/* ---- state.c: whose state a call is ---- */

/*
 * The state of the thread that runs on xp_self's block @t and whose stack
 * holds @sp, where @t is shared: @t's own thread's (told by the stack when
 * no other's lies in it, else by the thread id), or another's in
 * xp_foreign, taken for it when @claim.  NULL: another's, with none (not
 * @claim, or no room).  Under a seccomp filter, where the thread id cannot
 * be asked, the state holding an activation at @sp, or NULL.
 */
struct xp_thread *state_find_thread(struct xp_thread *t, uint64_t sp, bool claim);

/* The calling thread's own state (@sp an address on its stack): state_find_thread's say. */
static inline struct xp_thread *state_self(uint64_t sp, bool claim)
{
	struct xp_thread *t = &xp_self;

	return __builtin_expect(t->shared, 0) ? state_find_thread(t, sp, claim) : t;
}

/* ---- eval.c: the evaluation path, called from the thunks ---- */

/* A hooked call's entry (@ret taken from @slot): 0 when its activation was pushed, 1 to pass. */
int xp_eval_enter(uint32_t idx, uint64_t ret, uint64_t slot);
/* A hooked call's return: its delta recorded, R1 put back at @slot; 1 when stepping goes on. */
int xp_eval_exit(uint64_t *slot);
/* The same, with the caller's callee-saved registers @regs for the callers' walk. */
int xp_eval_exit_callers(uint64_t *slot, const uint64_t *regs);
/* The same, with the counter already read (@now) by the stubs' fast path. */
void xp_eval_exit_now(uint64_t *slot, uint64_t now);
/* Give declaration @d of worker @w its histogram row, at its first evaluation there. */
void xp_eval_take_row(struct extprof_dump_decl *d, struct xp_worker *w);
/* steps, at exit: every sample worker @w still holds back (step_hold) recorded. */
void xp_eval_record_held(struct xp_worker *w);

/* ---- worker.c: the pool of accumulators ---- */

/* Set the pool up at start-up (the thread-exit key, the declarations' room): 0 or -errno. */
int worker_init_pool(void);
/* Room in xp.decls for @n declarations, the table grown (never moved under a reader): 0 or -errno.
 */
int worker_room_for_decls(uint32_t n);
/* A worker for thread @t at its first evaluation (its shadow stack too), or NULL. */
struct xp_worker *worker_acquire(struct xp_thread *t);
/* Learn thread @t's own stack from @sp, unless on a sigaltstack: whether it is known. */
bool worker_know_stack(struct xp_thread *t, uint64_t sp);
/*
 * Call @fn(@arg) on the stack of the shim's of thread @t (the caller's own
 * state: xp_self's or xp_foreign's), its extended state saved.
 */
void worker_call_own(struct xp_thread *t, void (*fn)(void *), void *arg);
/* Thread @t's sigaltstack of the shim's (steps' SIGTRAP handler): false without one. */
bool worker_own_altstack(struct xp_thread *t, void **sp, size_t *size);
/* The calling thread is exiting: its activations abandoned, its worker back to the pool. */
void worker_release_self(void);
/* The same for thread @t, the caller's own state (xp_self's or xp_foreign's). */
void worker_release(struct xp_thread *t);
/*
 * A clean exit: every worker's run closed and its dump written compact,
 * complete; @self the calling thread's own state (NULL: xp_self's block).
 */
void worker_finish_all(struct xp_thread *self);
/* In a fork child: forget the parent's workers, keep the shadow stack, uncounted. */
void worker_reset_after_fork(void);
/* Double thread @t's shadow stack (it is full). */
void worker_grow_stack(struct xp_thread *t);
/*
 * A seccomp filter is about to be loaded: the threads to come get dumps,
 * shadow stacks and stacks of the shim's made now, as does the calling
 * thread, of state @self (NULL: none of its own), and the dumps' rows
 * memory from now on, as no system call may be made after (sandbox.c).
 */
void worker_prepare_sandbox(struct xp_thread *self);
/* After calibration: drop the calling thread's worker and its counts. */
void worker_forget_self(void);
/* Write declaration @idx as @d; a new one goes into every dump made so far, then xp.ndecls. */
void worker_publish_decl(uint32_t idx, const struct xp_decl *d);
/* Whether every dump made so far has room for one more declaration. */
bool worker_room_for_decl(void);
/* Add thread @t's share of the run so far to worker @w's run total. */
void worker_close_run(struct xp_worker *w, struct xp_thread *t);

/* ---- counter.c: the counter ---- */

/* One read of the counter, out of line (the slow paths, calibration). */
uint64_t xp_counter_read(void);
/* Choose the counter EXTPROF_COUNTER names (@spec): 0, or -errno with tsc standing in. */
int counter_setup(const char *spec);
/* Open thread @t's own perf event, for the PMU counters: 0 or -errno. */
int counter_open_thread(struct xp_thread *t);
/* Close thread @t's perf event, if it has one. */
void counter_close_thread(struct xp_thread *t);

/* ---- callers.c: who called a declaration ---- */

/* The chain of return addresses above a hooked call, at most @depth, into @pcs: how many. */
uint32_t callers_walk(const uint64_t *regs, uint64_t ret, uint64_t slot, uint64_t *pcs,
		      uint32_t depth);
/* Name @pc "function+0xoff@object" into @buf, its offset into @offset: 0, or -1 if unknown. */
int callers_resolve(uint64_t pc, char *buf, size_t len, uint64_t *offset);

/* ---- dlopen.c ---- */

/* libc's dlopen itself, not the shim's wrapper: an object the shim loads hooks nothing. */
void *dlopen_real(const char *file, int mode);

/* ---- unwind_stub.c: the stubs' unwind rows, for libgcc's unwinder ---- */

struct arch_hook;
/* Describe the stub of @h, just committed, to the unwinder (at the next publish). */
void unwind_stub_add(const struct arch_hook *h);
/* Register the stubs described since the last time, if libgcc's unwinder is loaded. */
void unwind_stub_publish(void);
/* Look up the real pthread_cancel and pthread_exit now. */
void unwind_stub_resolve(void);
/* Before a thread may unwind: libgcc's unwinder loaded, every stub registered with it. */
void unwind_stub_prepare(void);

/* ---- sandbox.c: a program that sandboxes itself with seccomp ---- */

/* Look up the real prctl and syscall now. */
void sandbox_resolve(void);

/* ---- unwind.c: exceptions and stack walks through hooked frames ---- */

/* Put R1 back in every slot of this thread's activations, for an unwinder. */
void unwind_restore_frames(void);
/* Abandon the activations below @sp; give the others back their stub's return address. */
void unwind_rehook_frames(uint64_t sp);
/* The @i-th unwinder function the shim wraps: its name and wrapper; -1 past the last. */
int unwind_wrapper(int i, const char **name, void **wrapper);
/* Where the @i-th wrapper finds the real function (a trampoline, when attached). */
void unwind_set_real(int i, void *fn);

/* ---- calibrate.c ---- */

/* Measure the hook's own cost around empty functions into xp.meta: 0 or -errno. */
int calibrate_hook(void);

/* ---- init.c: start-up ---- */

/* Reads a setting by its EXTPROF_* name: the environment, or an attachment's block. */
typedef const char *(*init_var_fn)(const char *name);
/* Every start-up step, the settings read through @var: 0 when something was hooked. */
int init_start(init_var_fn var);
/* The hook's calibration, once: 0, or its error again. */
int init_calibrate(void);
/*
 * The process's counts end here, as at exit: every dump rewritten compactly
 * and marked complete, on the shim's stack, the caller's stepping stopped and
 * a pending cancellation held.
 */
void init_finish_here(void);

/* ---- process.c: what a dump says of its process ---- */

/* The machine, the program and the build ID, into @meta, at start-up. */
void process_fill_meta(struct dump_meta *meta);
/* This process's identity (random id, pid, ppid, start), at start-up and in a fork child. */
void process_fill_ids(struct dump_meta *meta);
/* @src as a part of a file name: unsafe bytes become '_', never empty. */
void process_safe_name(char *dst, size_t size, const char *src);
/* Make (or accept) the dump directory @dir: 0, or -errno with the reason in @why. */
int process_make_dir(const char *dir, bool shared_ok, const char **why);
/* CLOCK_REALTIME in nanoseconds. */
int64_t process_now_ns(void);

/* ---- rank.c: the MPI rank ---- */

/* The MPI rank and job size the launcher's environment says, into @meta (none: job_size 0). */
void rank_fill(struct dump_meta *meta);

/* ---- longjmp.c, exec.c: the real functions, looked up at start-up ---- */

/* Look up the real longjmp family now, before a signal handler may need it. */
void longjmp_resolve(void);
/* Look up the real exec family now, before a signal handler may need it. */
void exec_resolve(void);

#pragma GCC visibility pop

#endif
