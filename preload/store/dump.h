/* SPDX-License-Identifier: MIT */
/* dump: one worker's dump file, mapped shared while the process runs. */
#ifndef EXTPROF_PRELOAD_DUMP_H
#define EXTPROF_PRELOAD_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dump_map.h"
#include "extprof/dump.h"

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
