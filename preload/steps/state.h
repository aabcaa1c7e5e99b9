/* SPDX-License-Identifier: MIT */
/*
 * steps/state: the steps counter's variables that more than one of its
 * files reads, defined in state.c, at the bottom of the part (as
 * core/state.c is for the shim): its set-up writes them once, the trap
 * engine and the code cache read them; and step_alive, the question both
 * engines and the code cache's session ask of a thread.  The types of the
 * code cache's are in xlate.h, which includes this.
 */
#ifndef EXTPROF_PRELOAD_STEPS_STATE_H
#define EXTPROF_PRELOAD_STEPS_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/state.h"

#pragma GCC visibility push(hidden)

/* Defaults: see docs/measurement.md, "What it costs". */
#define STEP_FIRST_DEFAULT 1
#define STEP_EVERY_DEFAULT 1048576
#define STEP_LIMIT_DEFAULT 1000000
/* The handler's own share of the stack a SIGTRAP takes (some 0.8 KiB measured), with room to spare.
 */
#define STEP_TRAP_HANDLER 2048
/* Without AT_MINSIGSTKSZ: the kernel's frame, as MINSIGSTKSZ says, and the handler's share. */
#define STEP_TRAP_ROOM (2048 + STEP_TRAP_HANDLER)

/* How steps counts (EXTPROF_STEP_ENGINE). */
enum step_engine {
	STEP_ENGINE_TRANSLATE, /* every evaluation, from a code cache (xlate.h) */
	STEP_ENGINE_TRAP,      /* a sample of them, single-stepped */
};

/* The engine and the trap engine's sampling (EXTPROF_STEP_*), set by step_setup(). */
struct step_config {
	uint32_t first;	    /* the first evaluations of each declaration on each worker */
	uint32_t every;	    /* then every every-th; 0: no more */
	uint64_t limit;	    /* a stepped evaluation is given up past this many instructions */
	uint64_t trap_room; /* stack a SIGTRAP takes: the kernel's frame and the handler */
	uint32_t engine;    /* enum step_engine */
};
extern struct step_config step_cfg;

/* The shim's own text, whose instructions are never counted (step_setup finds it). */
extern uint64_t step_text_lo, step_text_hi;

/*
 * The loader's lazy-binding entries (_dl_runtime_resolve*: what every
 * lazily bound object's GOT[2] holds), at most STEP_RESOLVERS; 0: none.
 */
#define STEP_RESOLVERS 4
extern uint64_t step_resolvers[STEP_RESOLVERS];

/* The trap engine's SIGTRAP handler (step_signal_install): 0 until installed. */
extern uint64_t step_sigtrap_handler;

struct xl_thread;
struct xl_config;

/* The code cache's slots of the calling thread, which its translated code reaches through %fs. */
extern __thread struct xl_thread xl_self __attribute__((tls_model("initial-exec")));

/* The translation engine's settings (xlate_setup). */
extern struct xl_config xl_cfg;

/* Bumped whenever code the caches may hold translations of changes (xlate_guard.c). */
extern uint64_t xl_code_epoch;

/* The translation engine counts (xlate_setup): the guards act. */
extern bool xl_on;

/* Whether the program's signal handlers are interposed (the translation engine). */
extern bool xl_signals_on;

/*
 * Whether @thread's outermost stepped activation is still on its shadow
 * stack (both engines ask, the code cache's session on every hooked call).
 */
bool step_alive(const struct xp_thread *thread);

#pragma GCC visibility pop

#endif
