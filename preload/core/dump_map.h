/* SPDX-License-Identifier: MIT */
/*
 * dump_map: a worker's dump as the shim holds it in memory, the tables and
 * rows of its file mapped shared (store/dump.c makes, grows and writes
 * them).  The types only: every worker of the shared state holds one
 * (core/state.h), and the evaluation path counts into it.
 */
#ifndef EXTPROF_PRELOAD_CORE_DUMP_MAP_H
#define EXTPROF_PRELOAD_CORE_DUMP_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extprof/dump.h"

/* What every dump of a process carries: filled once at start-up. */
struct dump_meta {
	EXTPROF_DUMP_GROUP(struct extprof_dump_counter, counter_info, EXTPROF_DUMP_COUNTER_FIELDS);
	EXTPROF_DUMP_GROUP(struct extprof_dump_process, process, EXTPROF_DUMP_PROCESS_FIELDS);
	EXTPROF_DUMP_GROUP(struct extprof_dump_host, host, EXTPROF_DUMP_HOST_FIELDS);
	uint32_t callers_depth;
	uint32_t caller_slots; /* CALLERS entries per declaration */
	uint32_t late_decls;   /* room for declarations added later (dlopen) */
	uint32_t flags;	       /* EXTPROF_DUMP_F_WINDOW, ... */
	uint64_t attach_id;    /* EXTPROF_DUMP_F_ATTACHED: the attachment's id */
	char window[128];
	uint32_t step_first; /* steps: the sampling (include/extprof/dump.h) */
	uint32_t step_every;
	uint64_t step_limit;
	uint32_t rank; /* the MPI rank and job size (rank.c); job_size 0: none */
	uint32_t job_size;
};

struct dump_decl_info {
	const char *kind;
	const char *symbol;
	const char *object;
	uint64_t address;
	uint32_t flags; /* EXTPROF_DECL_F_* */
};

/*
 * A live dump's rows lie in chunks of address space, each reserved when the
 * first of its rows is taken, never moved: a signal handler on the owner's
 * thread may hold pointers into any of them.  Chunk 0 holds the tables and
 * rows 0 to DUMP_ROWS0 - 1; chunk k, DUMP_ROWS0 << k rows from row
 * DUMP_ROWS0 * (2^k - 1) on: the address space follows the rows taken, at
 * most twice them.  The file stays one piece (docs/dump-format.md): a
 * chunk maps the part of it that holds its rows, from the page where its
 * first row starts (the page before it may be mapped by the chunk before
 * too: the same page of the file, seen twice).
 */
#define DUMP_ROWS0_LOG 3u
#define DUMP_ROWS0     (1u << DUMP_ROWS0_LOG)
#define DUMP_CHUNKS    16 /* 524,280 rows: more than XP_MAX_DECLS's (core/state.h) */

struct dump_chunk {
	char *base;    /* its reservation, which stands for the file from foff */
	size_t size;   /* bytes reserved */
	size_t foff;   /* the file offset at base (page-aligned) */
	size_t mapped; /* bytes from base that may be written */
};

/*
 * A live dump: the file is mapped, chunk by chunk, over [0, file_end); the
 * rows taken since lie past the tables, and the file grows under them
 * (dump_take_row), or, once it cannot, memory does, to each chunk's
 * mapped.  Past mapped: PROT_NONE.
 */
struct dump_map {
	void *base;  /* chunk 0's: the header and the tables */
	size_t size; /* bytes reserved at base */
	struct extprof_dump_header *hdr;
	struct extprof_dump_decl *decls;
	struct extprof_dump_caller *callers; /* ndecls * caller_slots */
	const char *strings;
	uint32_t ndecls;
	uint32_t capacity; /* declarations the file has room for */
	uint32_t caller_slots;
	uint32_t nrows;	  /* rows taken, row 0 (the scratch row) included */
	uint32_t row_cap; /* rows the file may have: one a declaration, and row 0 */
	uint32_t nchunks;
	/* chunk k's row r at row_bias[k] + r * EXTPROF_HIST_ROW_BYTES (dump_row_at) */
	uint64_t row_bias[DUMP_CHUNKS];
	struct dump_chunk chunk[DUMP_CHUNKS];
	size_t strings_cap;
	size_t rows_off;   /* where row 0 starts in the file */
	size_t file_end;   /* the file's size; 0 without a file */
	uint64_t dev, ino; /* the file, to know it again when it grows */
	int grow_err;	   /* why the file stopped growing; 0 while it grows */
	char path[4096];
	bool in_memory; /* the file could not be made: counted here, written at exit */
};

#endif
