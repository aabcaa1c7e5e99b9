/* SPDX-License-Identifier: MIT */
/* dump: one worker's dump file, mapped shared while the process runs. */
#ifndef EXTPROF_PRELOAD_DUMP_H
#define EXTPROF_PRELOAD_DUMP_H

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

/* The chunk that holds row @row. */
static inline uint32_t dump_chunk_of(uint32_t row)
{
	return 31u - (uint32_t)__builtin_clz((row >> DUMP_ROWS0_LOG) + 1u);
}

/* Row @row's buckets, for a row taken (its chunk exists). */
static inline uint64_t *dump_row_at(const struct dump_map *map, uint32_t row)
{
	return (uint64_t *)(map->row_bias[dump_chunk_of(row)] +
			    (uint64_t)row * EXTPROF_HIST_ROW_BYTES);
}

/*
 * The header of a file of @size bytes of @meta's process, @worker
 * (not complete, not compact; NSEC sections): its magic written last.
 */
void dump_fill_header(struct extprof_dump_header *header, const struct dump_meta *meta,
		      uint32_t worker, size_t size);

/*
 * Reserve [@off, @off + @len) of the dump file @fd on its filesystem (the
 * file grows to cover it), before any of it is mapped: a page of a shared
 * mapping with no block behind it raises SIGBUS when it is touched on a
 * full filesystem.  0, or -errno: -ENOSPC, -EDQUOT, -EFBIG (past
 * RLIMIT_FSIZE, refused before the kernel raises SIGXFSZ), -EIO...
 */
int dump_reserve(int fd, uint64_t off, uint64_t len);

/*
 * Create the dump at @path (O_EXCL|O_NOFOLLOW, 0600), reserve the space of
 * its tables and its row 0, map it shared and lay out its tables.  0 or
 * -errno; on failure nothing is left behind.
 */
int dump_create(struct dump_map *map, const char *path, const struct dump_meta *meta,
		const struct dump_decl_info *decls, uint32_t ndecls, uint32_t worker);
/* Names a code address: "fn+0x1a@obj", and its offset from the object's base. */
typedef int (*dump_resolve_fn)(uint64_t pc, char *buf, size_t len, uint64_t *offset);

/* Rewrite @map's file compact (flags | @extra_flags), renamed over the live one: 0 or -errno. */
int dump_write_compact(const struct dump_map *map, uint32_t extra_flags);
/* The same, with the callers' addresses named by @resolve. */
int dump_write_compact_named(const struct dump_map *map, uint32_t extra_flags,
			     dump_resolve_fn resolve);
/* The same tables as dump_create in anonymous memory: counted, not kept.  0 or -errno. */
int dump_create_anonymous(struct dump_map *map, const struct dump_meta *meta,
			  const struct dump_decl_info *decls, uint32_t ndecls, uint32_t worker);
/* Add a declaration registered after the dump was made: 0, or -ENOSPC without room. */
int dump_append_decl(struct dump_map *map, const struct dump_decl_info *info);

/*
 * Give @decl its histogram row, the next one, growing the file
 * under it (dump_reserve, then a mapping of the new part in place) when it
 * has no room left.  Where the file cannot grow (no space, RLIMIT_FSIZE,
 * the file gone or replaced), the rows from then on are memory, and their
 * declarations are marked EXTPROF_DECL_F_HIST_MEMORY, and m->grow_err says
 * why.  0, or -errno when no row could be had (no memory): the declaration
 * is marked EXTPROF_DECL_F_HIST_LOST, its deltas go to row 0.  Not
 * reentrant: the caller keeps a signal handler's calls out (eval.c).
 */
int dump_take_row(struct dump_map *map, uint32_t decl);

/* The row of @decl, or NULL if it has none that may be read. */
const uint64_t *dump_row(const struct dump_map *map, uint32_t decl);

/*
 * Before a seccomp filter: every chunk @map's rows may need reserved now (a
 * new one is an mmap), and the rest of each writable, as memory, so that no
 * row taken later needs a system call (rows past the file are marked
 * EXTPROF_DECL_F_HIST_MEMORY as when the file cannot grow).  Rows past what
 * could be made writable are refused from then on, histogram-lost, with no
 * system call either.  0 or -errno.
 */
int dump_enter_sandbox(struct dump_map *map);

/* Let @map's mappings go, every chunk's (the file stays as it is). */
void dump_unmap(struct dump_map *map);

#endif
