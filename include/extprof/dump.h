/* SPDX-License-Identifier: MIT */
/*
 * extprof dump format, version 4: what the shim leaves behind and the
 * analyzer reads.  The one definition both sides share.
 *
 * One file per worker per process.  The shim maps it MAP_SHARED from the
 * worker's first evaluation and counts straight into it, so whatever was
 * counted before a crash, abort, _exit or SIGKILL is already in the page
 * cache.  A declaration gets a histogram row at its first evaluation in
 * the worker, from the file's tail, which grows as rows are taken.  A
 * clean exit rewrites the file compactly (sparse histograms) and sets
 * EXTPROF_DUMP_F_COMPLETE.
 *
 *   offset 0            struct extprof_dump_header
 *   header_size         struct extprof_dump_section[nsections]
 *   section.offset      section payload, 8-byte aligned, inside the file
 *
 * All integers are little-endian (byte_order says how they were written).
 * Strings are NUL-terminated inside fixed arrays or the STRINGS section; a
 * reader must never trust either: it checks every offset, size and count.
 * docs/dump-format.md describes each field.
 */
#ifndef EXTPROF_DUMP_H
#define EXTPROF_DUMP_H

#include <stdint.h>

#define EXTPROF_DUMP_MAGIC     "XPROFDMP" /* 8 bytes, no NUL */
#define EXTPROF_DUMP_MAGIC_LEN 8
#define EXTPROF_DUMP_VERSION   4
/* the oldest version the analyzer still reads (docs/dump-format.md, "Compatibility") */
#define EXTPROF_DUMP_VERSION_OLDEST 1
#define EXTPROF_DUMP_BYTE_ORDER	    0x01020304u
#define EXTPROF_DUMP_SUFFIX	    ".xpd"

/* header.flags */
#define EXTPROF_DUMP_F_COMPLETE (1u << 0) /* the process finished cleanly */
#define EXTPROF_DUMP_F_COMPACT	(1u << 1) /* rewritten at exit: sparse histogram */
#define EXTPROF_DUMP_F_WINDOW	(1u << 2) /* a window function was configured */
#define EXTPROF_DUMP_F_EXEC	(1u << 3) /* the image ended by exec: its counts are whole */
#define EXTPROF_DUMP_F_EXIT_NOW (1u << 4) /* the process left by _exit: its counts are whole */
/* counted by an attachment (extprof attach): from start_ns to the last end_ns */
#define EXTPROF_DUMP_F_ATTACHED (1u << 5)
/*
 * Version 4: the file of an MPI job, which one rank wrote at MPI_Finalize
 * with every rank's dumps in it (EXTPROF_SECTION_RANKS and _DUMPS below),
 * instead of a dump of its own.
 */
#define EXTPROF_DUMP_F_JOB (1u << 6)

/* header.counter */
enum extprof_counter_kind {
	EXTPROF_COUNTER_NONE = 0,
	EXTPROF_COUNTER_TSC = 1,
	EXTPROF_COUNTER_NS = 2,
	EXTPROF_COUNTER_INSTRUCTIONS = 3,
	EXTPROF_COUNTER_CYCLES = 4,
	EXTPROF_COUNTER_VAR = 5,
	EXTPROF_COUNTER_STEPS = 6, /* instructions, by single-stepping a sample of evaluations */
	EXTPROF_COUNTER_MAX
};

/* header.counter_flags */
#define EXTPROF_COUNTER_F_DETERMINISTIC	      (1u << 0)
#define EXTPROF_COUNTER_F_THREAD_LOCAL	      (1u << 1) /* var: a __thread variable */
#define EXTPROF_COUNTER_F_RDPMC		      (1u << 2) /* PMU read with rdpmc */
#define EXTPROF_COUNTER_F_CALIBRATION_SETTLED (1u << 3)
/* a sample of the evaluations was measured (steps): floor, sum, max and the
 * histogram are of the measured ones, whose number is the histogram's total */
#define EXTPROF_COUNTER_F_SAMPLED (1u << 4)
/* every evaluation was counted from a code cache (steps): one with no delta
 * (the histogram's total is below the evaluations) ran in part natively,
 * code that could not be translated, and was not counted whole */
#define EXTPROF_COUNTER_F_TRANSLATED (1u << 5)

/* section.type */
enum extprof_section_type {
	EXTPROF_SECTION_DECLS = 1,   /* struct extprof_dump_decl[count] */
	EXTPROF_SECTION_STRINGS = 2, /* char[size], NUL-terminated strings */
	EXTPROF_SECTION_HIST_DENSE =
		3, /* version 1 only: uint64_t[ndecls * EXTPROF_HIST_BUCKETS] */
	EXTPROF_SECTION_HIST_SPARSE = 4, /* struct extprof_dump_hist_entry[count] */
	EXTPROF_SECTION_CALLERS = 5,	 /* struct extprof_dump_caller[count] */
	EXTPROF_SECTION_HIST_ROWS =
		6, /* uint64_t[count][EXTPROF_HIST_BUCKETS]: one row per entry */
	/* a job file's (EXTPROF_DUMP_F_JOB): struct extprof_dump_rank[count], one per dump */
	EXTPROF_SECTION_RANKS = 7,
	EXTPROF_SECTION_DUMPS = 8, /* a job file's: the ranks' dumps, whole, one after another */
};

#define EXTPROF_DUMP_MAX_SECTIONS 16
#define EXTPROF_CALLERS_MAX_DEPTH 8

/*
 * Fields of the header that the shim also gathers once at start-up, for
 * every dump of the process (preload/store/dump.h): each group is written once,
 * here, named field by field and as a whole (as the kernel's struct_group),
 * so that one assignment copies it.
 */
#define EXTPROF_DUMP_GROUP(type, name, fields)                                                     \
	union {                                                                                    \
		struct {                                                                           \
			fields                                                                     \
		};                                                                                 \
		type name;                                                                         \
	}

/* The process: pid may be reused and hosts differ, so a random id too. */
#define EXTPROF_DUMP_PROCESS_FIELDS                                                                \
	uint64_t process_id;                                                                       \
	uint64_t pid;                                                                              \
	uint64_t ppid;                                                                             \
	int64_t start_ns; /* CLOCK_REALTIME when the shim started */

struct extprof_dump_process {
	EXTPROF_DUMP_PROCESS_FIELDS
};

/* The counter and the machine's own cost of reading it. */
#define EXTPROF_DUMP_COUNTER_FIELDS                                                                \
	uint32_t counter; /* enum extprof_counter_kind */                                          \
	uint32_t counter_flags;                                                                    \
	char counter_name[64];	  /* "tsc", "steps", "var:work", ... */                            \
	char counter_unit[16];	  /* "ticks", "ns", "instructions", ... */                         \
	uint64_t calibration;	  /* raw floor of the hook around an empty function */             \
	uint64_t nested_overhead; /* subtracted by the shim per nested evaluation */               \
	uint64_t resolution;	  /* smallest step the counter was seen to take */

struct extprof_dump_counter {
	EXTPROF_DUMP_COUNTER_FIELDS
};

/* The machine and the program: what a comparison between runs needs. */
#define EXTPROF_DUMP_HOST_FIELDS                                                                   \
	char hostname[64];                                                                         \
	char cpu_model[128];                                                                       \
	char kernel[128];                                                                          \
	char exe_path[512];                                                                        \
	uint8_t build_id[32];                                                                      \
	uint32_t build_id_size;

struct extprof_dump_host {
	EXTPROF_DUMP_HOST_FIELDS
};

struct extprof_dump_header {
	char magic[EXTPROF_DUMP_MAGIC_LEN];
	uint32_t version;
	uint32_t header_size; /* sections start here */
	uint32_t byte_order;
	uint32_t flags;
	uint64_t file_size; /* what the writer meant: a shorter file is truncated */
	uint32_t nsections;
	uint32_t worker; /* worker index within its process */

	EXTPROF_DUMP_GROUP(struct extprof_dump_process, process, EXTPROF_DUMP_PROCESS_FIELDS);
	int64_t end_ns; /* CLOCK_REALTIME at the last update; 0 if none */
	EXTPROF_DUMP_GROUP(struct extprof_dump_counter, counter_info, EXTPROF_DUMP_COUNTER_FIELDS);

	/* this worker's share of the run */
	uint64_t run_total;
	uint64_t threads; /* threads that have used this worker */
	uint64_t lost;	  /* evaluations that could not be recorded */

	EXTPROF_DUMP_GROUP(struct extprof_dump_host, host, EXTPROF_DUMP_HOST_FIELDS);
	uint32_t callers_depth; /* EXTPROF_CALLERS, 0 when off */
	char window[128];	/* EXTPROF_WINDOW as given, "" for the whole run */
	uint64_t attach_id;	/* the attachment's id (EXTPROF_DUMP_F_ATTACHED), else 0 */
	/*
	 * Version 4: the process's MPI rank and the job's size, as its
	 * launcher said them (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID
	 * and their sizes); job_size 0: not a rank of a job (rank 0 then).
	 */
	uint32_t rank;
	uint32_t job_size;
	uint64_t reserved[4];
	/* steps: the evaluations stepped, of each declaration on each worker: the
	 * first step_first, then every step_every-th (0: no more); one that runs
	 * past step_limit instructions is given up */
	uint32_t step_first;
	uint32_t step_every;
	uint64_t step_limit;
};

struct extprof_dump_section {
	uint32_t type;	     /* enum extprof_section_type */
	uint32_t entry_size; /* bytes per entry; 1 for STRINGS */
	uint64_t offset;     /* from the start of the file, 8-byte aligned */
	uint64_t count;	     /* entries */
};

#define EXTPROF_FLOOR_NONE UINT64_MAX

/* extprof_dump_decl.flags */
#define EXTPROF_DECL_F_WINDOW (1u << 0) /* the window function (EXTPROF_WINDOW) */
/*
 * Live dumps: the declaration's row lies in the shim's memory, not in this
 * file, which could not grow (no space, RLIMIT_FSIZE, the file gone); the
 * compact dump written at exit holds it.  A reader of this file has no
 * histogram for it.
 */
#define EXTPROF_DECL_F_HIST_MEMORY (1u << 1)
/* Some evaluations found no row for their delta (no memory for one): the
 * histogram holds fewer deltas than there were evaluations. */
#define EXTPROF_DECL_F_HIST_LOST (1u << 2)

/* One declaration as one worker saw it: what the shim collects for it. */
struct extprof_dump_decl {
	uint32_t kind;	 /* offset into STRINGS */
	uint32_t symbol; /* offset into STRINGS */
	uint32_t object; /* offset into STRINGS: the object's basename */
	uint32_t flags;
	uint64_t address; /* entry, as an offset from the object's load base */
	uint64_t evaluations;
	uint64_t floor;	     /* minimum delta; EXTPROF_FLOOR_NONE if no evaluation */
	uint64_t floor_hits; /* evaluations within the margin of the floor */
	uint64_t sum;	     /* sum of deltas */
	uint64_t max;
	uint64_t recursive;
	uint64_t abandoned;
	uint64_t outside;
	uint64_t open;	      /* activations in progress at the last update: abandoned, if the
			       * process never finished */
	uint64_t floor_limit; /* the shim's own: floor + its margin, for its fast path;
			       * readers ignore it */
	uint64_t negative;    /* evaluations whose delta, less the nested hooks' overhead,
			       * fell below zero: recorded as 0 */
	uint32_t row;	      /* live dumps: its entry of HIST_ROWS; 0: none (yet) */
	/*
	 * Version 3: the nesting of hooked activations.  parent is 1 + the
	 * index of the declaration whose activation its nested evaluations
	 * ran in (the one on top of the thread's shadow stack), 0 while none
	 * did, EXTPROF_PARENT_SEVERAL once two differed; nested and
	 * nested_sum count those evaluations and their deltas.  inner and
	 * inner_sum count the evaluations of declarations that ran directly
	 * inside this one's activations, and their deltas.
	 */
	uint32_t parent;
	uint64_t nested;
	uint64_t nested_sum;
	uint64_t inner;
	uint64_t inner_sum;
	/* the shim's own (steps): samples held so far; readers ignore it */
	uint32_t step_redo;
	uint32_t reserved32;
	/* the shim's own (steps): 1 + the least held sample's delta, 0: none; readers ignore it */
	uint64_t step_held;
	uint64_t reserved;
};

/* extprof_dump_decl.parent: its nested evaluations ran inside several declarations */
#define EXTPROF_PARENT_SEVERAL UINT32_MAX

/*
 * A job file's summary of one of the dumps it holds (EXTPROF_SECTION_RANKS):
 * whose it is, and where it lies in EXTPROF_SECTION_DUMPS.  The dump's own
 * header says the same of it; a reader checks that they agree.
 */
struct extprof_dump_rank {
	uint32_t rank;
	uint32_t worker;
	uint64_t pid;
	uint64_t process_id;
	uint64_t offset;      /* the dump's first byte, from the start of the file (8-aligned) */
	uint64_t size;	      /* its bytes */
	uint64_t evaluations; /* of all its declarations */
	uint64_t run_total;
	char hostname[64];
};

struct extprof_dump_hist_entry {
	uint32_t decl;
	uint32_t bucket;
	uint64_t count;
};

/* Evaluations of one declaration through one chain of callers. */
struct extprof_dump_caller {
	uint32_t decl;
	uint32_t depth; /* frames used in pcs; 0: "other" */
	uint64_t evaluations;
	uint64_t floor;
	uint64_t floor_hits;
	uint64_t sum;
	uint32_t symbol[EXTPROF_CALLERS_MAX_DEPTH]; /* STRINGS offsets: "fn+0x12@obj" */
	uint64_t pc[EXTPROF_CALLERS_MAX_DEPTH];	    /* offsets from each object's base */
};

/*
 * The log-linear histogram: exact below 128, then 64 buckets per power of
 * two.  A bucket is at most 1/64 of its lower bound wide, so its midpoint
 * is within 1/128 (< 1 %) of any value in it.
 */
#define EXTPROF_HIST_EXACT    128u
#define EXTPROF_HIST_SUB_BITS 6u
#define EXTPROF_HIST_SUB      (1u << EXTPROF_HIST_SUB_BITS)
#define EXTPROF_HIST_BUCKETS  (EXTPROF_HIST_EXACT + (64u - 7u) * EXTPROF_HIST_SUB)
/*
 * One row of HIST_ROWS: a declaration's buckets.  Row 0 is the shim's own
 * (the deltas of declarations that have no row land there): readers ignore it.
 */
#define EXTPROF_HIST_ROW_BYTES (EXTPROF_HIST_BUCKETS * (uint32_t)sizeof(uint64_t))

/* The bucket value @v falls in. */
static inline uint32_t extprof_hist_bucket(uint64_t v)
{
	uint32_t e, sub;

	if (v < EXTPROF_HIST_EXACT)
		return (uint32_t)v;
	e = 63u - (uint32_t)__builtin_clzll(v); /* 7..63 */
	sub = (uint32_t)(v >> (e - EXTPROF_HIST_SUB_BITS)) & (EXTPROF_HIST_SUB - 1u);
	return EXTPROF_HIST_EXACT + (e - 7u) * EXTPROF_HIST_SUB + sub;
}

/* Smallest value that falls in bucket b. */
static inline uint64_t extprof_hist_lower(uint32_t b)
{
	uint32_t e, sub;

	if (b < EXTPROF_HIST_EXACT)
		return b;
	e = 7u + (b - EXTPROF_HIST_EXACT) / EXTPROF_HIST_SUB;
	sub = (b - EXTPROF_HIST_EXACT) % EXTPROF_HIST_SUB;
	return (uint64_t)(EXTPROF_HIST_SUB + sub) << (e - EXTPROF_HIST_SUB_BITS);
}

/* Number of values in bucket b. */
static inline uint64_t extprof_hist_width(uint32_t b)
{
	if (b < EXTPROF_HIST_EXACT)
		return 1;
	return 1ull << (7u + (b - EXTPROF_HIST_EXACT) / EXTPROF_HIST_SUB - EXTPROF_HIST_SUB_BITS);
}

/*
 * The margin of "settled": how far above the floor an evaluation may land
 * and still count as a hit.  2 units for the deterministic counters and
 * cycles; for the clocks, the larger of 1 % of the floor and 2 units.
 */
static inline uint64_t extprof_floor_margin(uint32_t counter, uint64_t floor)
{
	if ((counter == EXTPROF_COUNTER_TSC || counter == EXTPROF_COUNTER_NS) && floor / 100 > 2)
		return floor / 100;
	return 2;
}

/*
 * The floor refined below the counter's step (docs/floors.md).  A counter
 * that moves in steps (the TSC of some VMs moves 26 ticks at a time) reads
 * a call whose true cost lies between two steps as the lower or the upper
 * one, about in proportion to where between them it lies; so the mean of
 * the deltas from the floor to floor + step gives the floor to a fraction
 * of a step.  Feed it the histogram's buckets (any order, each once), then
 * read it; step 0 (a deterministic counter) leaves the floor as it is.
 */
struct extprof_refine {
	uint64_t floor;
	uint64_t step;
	uint64_t n;
	uint64_t above; /* sum of (value - floor) */
};

/* Start refining @floor, for a counter that moves by @step. */
static inline void extprof_refine_init(struct extprof_refine *r, uint64_t floor, uint64_t step)
{
	r->floor = floor;
	r->step = floor + step < floor ? 0 : step;
	r->n = 0;
	r->above = 0;
}

/*
 * Bucket @b holds @count deltas: the floor's own bucket counts at the floor
 * (above 128 a bucket is wider than one value, and a counter that moves in
 * steps puts nothing between the floor and the next step), any other at
 * its midpoint, kept inside [floor, floor + step].
 */
static inline void extprof_refine_add(struct extprof_refine *r, uint32_t b, uint64_t count)
{
	uint64_t lo = extprof_hist_lower(b), hi = lo + extprof_hist_width(b) - 1;
	uint64_t v = lo + (hi - lo) / 2;

	if (!r->step || hi < r->floor || lo > r->floor + r->step)
		return;
	if (lo <= r->floor)
		v = r->floor;
	if (v > r->floor + r->step)
		v = r->floor + r->step;
	r->n += count;
	r->above += count * (v - r->floor);
}

/* The floor, refined by what was added. */
static inline uint64_t extprof_refine_floor(const struct extprof_refine *r)
{
	if (!r->n)
		return r->floor;
	return r->floor + (r->above + r->n / 2) / r->n;
}

#endif /* EXTPROF_DUMP_H */
