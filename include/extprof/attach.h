/* SPDX-License-Identifier: MIT */
/*
 * extprof attach: what "extprof attach" (the tracer) and the shim loaded
 * into a running process say to each other.  The shim exports one block,
 * `extprof_attach`, and two entries the tracer calls from a hijacked
 * thread of the process:
 *
 *   tracer                                   shim (in the process)
 *   ------                                   ---------------------
 *   writes the configuration into the block
 *   calls extprof_attach_begin()  ------->   counter, calibration, hooks
 *                                            resolved, stubs built; the
 *                                            entries' bytes listed in
 *                                            `patches`, none written
 *   reads the patches, stops every thread,
 *   writes each entry (/proc/PID/mem),
 *   sets state ATTACHED, lets go
 *        ... the process counts ...
 *   stops every thread, puts every entry's
 *   original bytes back, lets go; waits for
 *   the activations in flight
 *   calls extprof_attach_end()    ------->   the dumps finished (complete,
 *                                            attached); in-flight ones
 *                                            abandoned; state DETACHED
 *
 * The block is read and written through process_vm_readv/writev while the
 * process runs; only the tracer writes the configuration, only the shim
 * the results.  One layout, versioned: a tracer refuses another version.
 * docs/attach.md explains the whole of it.
 */
#ifndef EXTPROF_ATTACH_H
#define EXTPROF_ATTACH_H

#include <stdint.h>

#define EXTPROF_ATTACH_MAGIC	 "XPATTACH" /* 8 bytes, no NUL */
#define EXTPROF_ATTACH_MAGIC_LEN 8
#define EXTPROF_ATTACH_VERSION	 1

#define EXTPROF_ATTACH_SYMBOL "extprof_attach"
#define EXTPROF_ATTACH_BEGIN  "extprof_attach_begin"
#define EXTPROF_ATTACH_END    "extprof_attach_end"

/* extprof_attach_block.state */
enum extprof_attach_state {
	EXTPROF_ATTACH_IDLE = 0,      /* loaded, never attached (or a failed begin) */
	EXTPROF_ATTACH_PRELOADED = 1, /* started by LD_PRELOAD: counting since start-up */
	EXTPROF_ATTACH_PREPARED = 2,  /* begin done, no entry written yet */
	EXTPROF_ATTACH_ATTACHED = 3,  /* entries written: counting */
	EXTPROF_ATTACH_DETACHED = 4,  /* entries restored, dumps finished */
};

/* extprof_attach_block.flags, set by the tracer */
#define EXTPROF_ATTACH_F_FOLLOW_FORKS (1u << 0) /* fork children count, in dumps of their own */

/*
 * One function's entry: what is there, and what the tracer writes over it.
 * A hooked function's, or one of the unwinder's (decl EXTPROF_ATTACH_REDIRECT),
 * sent to the shim's wrapper so that exceptions and backtrace(3) see through
 * the hooked frames: those stay while activations are in flight.
 */
#define EXTPROF_ATTACH_REDIRECT UINT32_MAX

struct extprof_attach_patch {
	uint64_t at;	 /* first byte written (after an endbr64) */
	uint32_t length; /* bytes of code[] and orig[] */
	uint32_t decl;	 /* its declaration's index, or EXTPROF_ATTACH_REDIRECT */
	uint8_t orig[16];
	uint8_t code[16];
};

/* A range of the shim's stubs: no thread may be inside one when the dumps end. */
struct extprof_attach_range {
	uint64_t lo, hi;
};

#define EXTPROF_ATTACH_HOOKS_MAX     8192
#define EXTPROF_ATTACH_REDIRECTS_MAX 8 /* the unwinder's entries */
/* two a declaration at most (a short patch: padding and entry), and the unwinder's */
#define EXTPROF_ATTACH_PATCHES_MAX (2 * (1u << 18) + EXTPROF_ATTACH_REDIRECTS_MAX)
#define EXTPROF_ATTACH_RANGES_MAX  1024
#define EXTPROF_ATTACH_LOG_MAX	   16384
#define EXTPROF_ATTACH_CHILDREN	   1022 /* fork children remembered per attachment */

/* The shared page where fork children that follow an attachment write their pids. */
struct extprof_attach_children {
	uint32_t n; /* slots taken; may exceed EXTPROF_ATTACH_CHILDREN (the rest is lost) */
	uint32_t reserved;
	int32_t pid[EXTPROF_ATTACH_CHILDREN];
};

struct extprof_attach_block {
	char magic[EXTPROF_ATTACH_MAGIC_LEN];
	uint32_t version;
	uint32_t size; /* sizeof(struct extprof_attach_block) */

	/* the shim's, read by the tracer */
	uint32_t state;	  /* enum extprof_attach_state */
	int32_t result;	  /* of the last begin or end: 0, a count, or -errno */
	uint64_t id;	  /* this attachment's, in every dump it made (attach_id) */
	int64_t start_ns; /* CLOCK_REALTIME: begin (T1, set again by the tracer at the patch) */
	int64_t end_ns;	  /* CLOCK_REALTIME: end (T2) */
	uint64_t patches; /* address of struct extprof_attach_patch[npatches] */
	uint32_t npatches;
	uint32_t nranges;
	uint64_t ranges;	/* address of struct extprof_attach_range[nranges]: the stubs */
	int64_t self_tpoff;	/* the shim's per-thread state from the thread pointer */
	uint32_t busy_off;	/* its 64-bit word that is non-zero inside the shim's own work */
	uint32_t depth_off;	/* its 32-bit count of activations in progress */
	uint64_t children;	/* address of the struct extprof_attach_children page, or 0 */
	uint64_t process_id;	/* the dumps' process id (of the process that began) */
	uint64_t start_ns_addr; /* where the tracer writes T1, every thread stopped */
	uint32_t log_len;	/* bytes of log[] used; the tracer empties it */
	uint32_t pad;

	/* the tracer's, read by the shim at begin */
	uint32_t flags; /* EXTPROF_ATTACH_F_* */
	uint32_t pad2;
	uint64_t next_id;		      /* the attachment's id */
	char hooks[EXTPROF_ATTACH_HOOKS_MAX]; /* as EXTPROF_HOOKS */
	char spec[4096];		      /* as EXTPROF_SPEC: an absolute path, or "" */
	char counter[128];		      /* as EXTPROF_COUNTER, or "" */
	char dir[4096];			      /* as EXTPROF_DIR: absolute */

	/* what the shim had to say, one "extprof: ..." line each */
	char log[EXTPROF_ATTACH_LOG_MAX];
};

#endif
