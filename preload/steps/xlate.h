/* SPDX-License-Identifier: MIT */
/*
 * xlate: the steps counter's code cache (the translation engine).  While an
 * evaluation runs, the hooked function and everything it calls run from
 * translated copies of their basic blocks, each of which adds its
 * instruction count to the thread's count (xp_self.step.count): every
 * evaluation is counted, exactly, at a small multiple of native speed.
 * docs/measurement.md says what is counted and why; the architecture's
 * xlate_block.c draws a translated block.
 *
 *   step_enter (thunk)       a session starts: the outermost hooked call
 *        |                   goes on in the cache at its stub's "call orig"
 *        v
 *   lookup -> dispatch       a native address not translated yet: decoded,
 *        |                   translated (xlate_translate.c, arch_xl_translate)
 *        v
 *   translated blocks        linked to each other; calls push the program's
 *        |                   own return addresses, returns look them up
 *        v
 *   a stub's R2              a hooked function returns: out to its stub's
 *                            exit thunk (step_exit), back into the cache at
 *                            the caller's return address, or natively for
 *                            the outermost
 *
 * Each thread has its own cache (one per worker, reused by the threads that
 * take the worker after it): nothing is shared between threads, so no lock
 * is taken, and a cache is flushed only by its own thread, in the
 * dispatcher, where no translated code of its runs.  Code that cannot be
 * translated (not a file's executable mapping, changed since, an
 * instruction the translator does not know) runs natively: the
 * evaluations it belongs to are then not counted whole and have no delta.
 *
 * Its files, each calling only the ones below it (upward, an address given
 * at set-up: the dispatcher's entry in xl_cfg.dispatch):
 *
 *   xlate_setup.c        start-up, a seccomp filter coming, a thread's end
 *   xlate_signal.c       signals in translated code
 *   xlate_entry.S (port) the dispatcher's entry -> xlate_dispatch.c: a miss
 *   xlate_translate.c    a block translated into an arena
 *   xlate_block.c (port) the translator (arch_xl_translate, arch_xl_link)
 *   xlate_guard.c        mprotect, munmap, dlclose, swapcontext
 *   xlate_session.c      the evaluation path's entry and exit (step.c calls)
 *   xlate_code.c         which code is translated
 *   xlate_cache.c        arenas, blocks, the lookup table, flushes
 *   xlate_routines.c, xlate_ctx.c (port): an arena's routines, the native
 *                        state of an interrupted thread
 *   steps/state.c        the variables they share (xl_self, xl_cfg, ...)
 */
#ifndef EXTPROF_PRELOAD_XLATE_H
#define EXTPROF_PRELOAD_XLATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/state.h"
#include "steps/state.h"

#pragma GCC visibility push(hidden)

/* Defaults: see docs/measurement.md, "The translation engine". */
#define XL_CACHE_MB_DEFAULT 64 /* a thread's cache, all arenas */
#define XL_ARENA_BYTES	    (4u << 20)
#define XL_MAX_ARENAS	    64
#define XL_MAX_INSNS	    64	   /* instructions of a block, at most */
#define XL_BLOCK_ROOM	    8192   /* bytes a block's record and code take, at most */
#define XL_TABLE_BITS	    16	   /* the lookup table: 2^16 entries */
#define XL_HASH_SLOTS	    65536u /* blocks a cache holds, at most */
#define XL_DSTACK_BYTES	    (512u << 10)
#define XL_SIG_BYTES	    (8u << 10) /* of it, at its bottom: the signal handlers' states */

/*
 * One thread's state the translated code reads and writes, at fixed offsets
 * from the thread pointer (initial-exec TLS), then what only C uses.
 * arch/CPU_FAMILY/xlate_offsets.h repeats the offsets for the assembly.
 */
struct xl_thread {
	uint64_t tgt;	   /* an indirect branch's native target; the dispatcher's */
	uint64_t save_rax; /* the registers the routines borrow, while they do */
	uint64_t save_rcx;
	uint64_t save_rdx;
	uint64_t arg;	   /* the exit stub the dispatcher was entered from; 0: tgt */
	uint64_t jmp;	   /* where the dispatcher goes on */
	uint64_t save_rsp; /* the program's stack pointer while the dispatcher runs */
	uint64_t dstack;   /* the top of the dispatcher's own stack */
	uint64_t table;	   /* the lookup table (struct xl_entry[1 << XL_TABLE_BITS]) */
	uint64_t active;   /* 1 while a session runs; 0 in a new thread's TLS */
	uint64_t sysnr;	   /* the number of the last system call the cache made */
	uint64_t via;	   /* rsp as a call left the cache for a stub's head */
	uint64_t exited;   /* rsp as a return left the cache for a stub's R2 */
	uint64_t in_disp;  /* the dispatcher runs: a signal handler does not translate */
	uint64_t resume;   /* where a thunk returns to go on in the cache */
	/* C only */
	struct xl_cache *cache; /* this thread's cache */
	uint32_t no_xlate;	/* a signal handler interrupted the dispatcher */
	uint32_t disp_busy;	/* the dispatcher holds one of xp_self.busy */
};

/* One entry of the lookup table the translated code reads: native -> translated. */
struct xl_entry {
	uint64_t pc;
	uint64_t code;
};

/* What the architecture's translator made of one native instruction. */
struct xl_insn {
	uint16_t pc_off;   /* from the block's pc */
	uint16_t code_off; /* its translation, from the block's code */
	uint8_t kind;	   /* the port's (what its translation does) */
	uint8_t weight;	   /* instructions it counts: 0 (the shim's) or 1 */
	uint8_t len;	   /* native length */
	uint8_t aux;	   /* the port's */
};

/*
 * An exit of a block to native @target: through its stub until linked (the
 * dispatcher aims the branch at @site_off at the target's translation), or
 * linked when it was translated.  A side exit (a conditional branch the
 * block goes on after) first takes back, at @sub_off, the @rem
 * instructions the block added and did not run.
 */
struct xl_exit {
	uint64_t target;   /* native */
	uint16_t stub_off; /* from the block's code; 0: no stub (linked at once) */
	uint16_t site_off; /* the rel32 of the branch that reaches the stub */
	uint16_t sub_off;  /* a side exit's taking back; 0: none */
	uint16_t rem;	   /* what it takes back */
};

#define XL_MAX_EXITS 5

/* A translated block: its record, then its code, in an arena. */
struct xl_block {
	uint64_t pc;	    /* native address of its first instruction */
	uint8_t *code;	    /* its translation */
	uint32_t code_len;  /* body, exit stubs and literals */
	uint16_t body_len;  /* the body: the instructions and their branches */
	uint16_t weight;    /* instructions it adds to the count */
	uint16_t add_off;   /* where the count is added (from code) */
	uint8_t add_len;    /* 0: nothing added (weight 0) */
	uint8_t add_before; /* the index of the instruction the add precedes */
	uint8_t add_kind;   /* the port's: a plain add, or one that keeps the flags */
	uint8_t ninsn;	    /* insn[ninsn] is the fall-through, if any: weight 0 */
	uint8_t nexits;
	uint8_t flags;
	struct xl_exit exit[XL_MAX_EXITS];
	struct xl_insn insn[XL_MAX_INSNS + 1];
};

#define XL_B_FALL (1u << 0) /* insn[ninsn] is a jump to the block's end (pc + its length) */
#define XL_B_NATIVE                                                                                \
	(1u << 1) /* the block leaves for native code at its pc (a stub's head or R2)              \
		   */

/* The routines of an arena, which blocks reach with a rel32 (the port writes them). */
struct xl_routines {
	uint8_t *lookup;       /* %fs:tgt holds a native address: go on at its translation */
	uint8_t *ret_entry;    /* pop a native address into tgt, then lookup */
	uint8_t *dispatch;     /* rax: the exit stub, or 0 for tgt; the program's in save_rax */
	uint8_t *dispatch_jmp; /* the dispatcher's last instruction: jmp *%fs:jmp */
	uint32_t len;
	/* the offsets of each routine instruction and what it has borrowed (xlate_ctx) */
	uint16_t n;
	uint16_t off[48];
	uint8_t saved[48]; /* bit 0: rax in save_rax, 1: rcx, 2: rdx */
	uint8_t what[48];  /* the port's: which routine and what it has done */
};

/* A region near some code: routines, then blocks, growing up; their index growing down. */
struct xl_arena {
	uint8_t *base;
	uint64_t size;
	uint8_t *next;	  /* where the next block goes */
	uint32_t *index;  /* block offsets, in the order of their addresses, from base + size */
	uint32_t nblocks; /* entries of the index (index[-1 .. -nblocks]) */
	struct xl_routines r;
};

/* One worker's cache. */
struct xl_cache {
	struct xl_arena arena[XL_MAX_ARENAS];
	uint32_t narenas;
	uint64_t limit; /* bytes of arenas it may map */
	uint64_t mapped;
	uint64_t epoch;		/* xl_code_epoch when last flushed */
	struct xl_block **hash; /* native pc -> block, open addressing, XL_HASH_SLOTS */
	uint32_t nhash;
	struct xl_entry *table; /* what the translated lookup reads */
	uint8_t *dstack;	/* the dispatcher's stack */
	uint64_t flushes;	/* times it was flushed: the signal path's translations are older */
	uint32_t sig_nest;	/* signal handlers running on its thread (xlate_signal.c) */
};

/* The translation engine's settings (xlate_setup: xl_cfg, steps/state.h). */
struct xl_config {
	uint64_t cache_bytes; /* EXTPROF_XLATE_CACHE_MB */
	uint64_t tp_count;    /* the count's offset from the thread pointer */
	uint64_t tp_xl;	      /* xl_self's */
	uint64_t dispatch;    /* the dispatcher's entry, which the arenas' routines call */
};

/* ---- xlate_session.c: the evaluation path's part (no libc) ---- */

/* The entry of activation @frame at @slot under the translation engine: 0, or 3 to go on in the
 * cache.
 */
int xlate_enter(struct xp_thread *thread, struct xp_frame *frame, uint64_t slot);
/* The exit of activation @frame (popped): 3 to go on in the caller's translation, else 0. */
int xlate_exit(struct xp_thread *thread, const struct xp_frame *frame);
/* Before @frame's record: whether its return left the cache for its stub (STEP_EXIT). */
void xlate_mark_exit(struct xp_frame *frame, uint64_t slot);
/* The session ends: the thread runs natively from its next dispatch. */
void xlate_end(struct xp_thread *thread);
/*
 * Activation @frame of @thread is abandoned: if it is its session's
 * outermost, the session ends, and the thread leaves the cache at its next
 * indirect branch (its lookup table emptied).
 */
void xlate_abandon(struct xp_thread *thread, const struct xp_frame *frame);
/*
 * @thread longjmps to stack pointer @sp: off the dispatcher's stack, out
 * of a signal handler that interrupted the dispatcher, whose work is given
 * up (its busy hold let go, translation allowed again).
 */
void xlate_longjmp(struct xp_thread *thread, uint64_t sp);
/* The calling thread ends (or the process does): its session ends, its cache is given back. */
void xlate_thread_exit(struct xp_thread *thread);
/* In a fork child: no session (the child leaves the cache at the fork); its cache is kept. */
void xlate_after_fork(struct xp_thread *thread);

/* ---- xlate_cache.c: the cache memory ---- */

/*
 * A cache for @thread: one a thread that ended left, or a new one with an
 * arena near @near; NULL if none can be had (said once).
 */
struct xl_cache *xlate_cache_get(struct xp_thread *thread, uint64_t near);
/* What xlate_cache_ready is given: the thread, and where its first arena goes. */
struct xl_ready {
	struct xp_thread *t;
	uint64_t near;
};
/*
 * The calling thread's cache made (xlate_cache_get) or flushed if code
 * changed, errno left as it was: a slow path of the evaluation path
 * (@arg: struct xl_ready), through xp_call_preserving.
 */
void xlate_cache_ready(void *arg);
/*
 * A thread is ending, out of any session: its cache @cache goes to the next
 * thread that needs one (a thread's cache whose thread is gone does too).
 */
void xlate_cache_put(struct xl_cache *cache);
/* The block translated from @pc, or NULL. */
struct xl_block *xlate_cache_find(struct xl_cache *cache, uint64_t pc);
/* The arena of @cache that serves code at @pc, made if need be: NULL when none can be. */
struct xl_arena *xlate_cache_arena_for(struct xl_cache *cache, uint64_t pc);
/* The room left in @arena for one more block and its index entry. */
uint64_t xlate_cache_room(const struct xl_arena *arena);
/*
 * Block @block, whose code the translator wrote at @arena's next free byte
 * (@len bytes), added to @arena and to @cache's hash: its record put after
 * its code.
 */
struct xl_block *xlate_cache_add(struct xl_cache *cache, struct xl_arena *arena,
				 const struct xl_block *block, long len);
/*
 * Arenas of cache @cache (a struct xl_cache) for code from @lo to @hi, made
 * if need be, as its limit allows (for xlate_code_each).
 */
void xlate_cache_reach(uint64_t lo, uint64_t hi, void *cache);
/* Forget every translation of @cache; its memory is reused. */
void xlate_cache_flush(struct xl_cache *cache);
/* The block of @cache whose code holds @addr, or NULL; @routines gets the arena's if @addr is one
 * of them. */
struct xl_block *xlate_cache_block_at(struct xl_cache *cache, uint64_t addr,
				      const struct xl_routines **routines);
/* Whether @addr lies in one of @cache's arenas. */
bool xlate_cache_owns(const struct xl_cache *cache, uint64_t addr);
/* Put @block in the lookup table the translated code reads. */
void xlate_cache_publish(struct xl_cache *cache, const struct xl_block *block);
/* Empty every thread's lookup table: each goes through its dispatcher at its next indirect branch.
 */
void xlate_cache_clear_tables(void);

/* ---- xlate_translate.c ---- */

/* Translate @pc into @c: the block, or NULL when the code cannot be translated. */
struct xl_block *xlate_translate(struct xl_cache *c, uint64_t pc);

/* ---- xlate_code.c: which code may be translated ---- */

/* How the code at @pc is counted, if it can be translated: its kind, and where its range ends. */
enum xl_code {
	XL_CODE_NONE = 0, /* not translatable: runs natively */
	XL_CODE_PROGRAM,  /* the program's: each instruction counts */
	XL_CODE_SHIM,	  /* the shim's own text: counts nothing */
	XL_CODE_STUB,	  /* a stub's: counts what its steps list says */
};
enum xl_code xlate_code_kind(uint64_t pc, uint64_t *end);
/* Read the process's executable mappings again (objects loaded or unloaded); not sandboxed. */
void xlate_code_refresh(void);
/* Call @fn with the start and the end of every range of code that may be translated. */
void xlate_code_each(void (*fn)(uint64_t lo, uint64_t hi, void *arg), void *arg);
/* Code in [lo, hi) may change: it is never translated again. */
void xlate_code_taint(uint64_t lo, uint64_t hi);
/* Whether [lo, hi) holds code translations may have been made of. */
bool xlate_code_overlaps(uint64_t lo, uint64_t hi);

/* ---- xlate_guard.c: code changed, stacks switched ---- */

/* A translated call of this is made natively: its caller goes on natively. */
void xlate_leave(void);

/* ---- xlate_signal.c ---- */

/* The program's sigaction for @sig, kept and wrapped: 0 or -1 with errno. */
int xlate_sigaction(int sig, const void *act, void *old);
/* Start interposing: wrap the handlers installed before the shim. */
int xlate_signals_install(void);
/*
 * A pthread_cancel (through @cancel, libc's) is about to be made: glibc's
 * SIGCANCEL handler, installed by the first one, is wrapped before any is
 * sent, so that a thread cancelled in translated code unwinds from the
 * native state it stands for (libgcc's unwinder knows no arena).
 */
void xlate_cancel_prepare(int (*cancel)(pthread_t));

/* ---- xlate_setup.c ---- */

/* Make the translation engine ready: 0, or -errno with the reason said. */
int xlate_setup(void);
/*
 * A seccomp filter may come (step_prepare_sandbox): the calling thread @t's
 * cache made if it has none, with an arena near every range of code it may
 * translate (as its limit allows), and the mappings read, so that it goes
 * on without a system call (none is made after: xp.sandboxed).
 */
void xlate_prepare_sandbox(struct xp_thread *t);

#pragma GCC visibility pop

#endif
