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
	uint32_t counter;
	uint32_t counter_flags;
	char counter_name[64];
	char counter_unit[16];
	uint64_t calibration;
	uint64_t nested_overhead;
	uint64_t resolution;
	uint64_t process_id;
	uint64_t pid;
	uint64_t ppid;
	int64_t start_ns;
	char hostname[64];
	char cpu_model[128];
	char kernel[128];
	char exe_path[512];
	uint8_t build_id[32];
	uint32_t build_id_size;
	uint32_t callers_depth;
	uint32_t caller_slots; /* CALLERS entries per declaration */
	uint32_t late_decls;   /* room for declarations added later (dlopen) */
	uint32_t flags;	       /* EXTPROF_DUMP_F_WINDOW, ... */
	uint64_t attach_id;    /* EXTPROF_DUMP_F_ATTACHED: the attachment's id */
	char window[128];
	uint32_t step_first; /* steps: the sampling (include/extprof/dump.h) */
	uint32_t step_every;
	uint64_t step_limit;
};

struct dump_decl_info {
	const char *kind;
	const char *symbol;
	const char *object;
	uint64_t address;
	uint32_t flags; /* EXTPROF_DECL_F_* */
};

/* A live dump: pointers into the shared mapping. */
struct dump_map {
	void *base;
	size_t size;
	struct extprof_dump_header *hdr;
	struct extprof_dump_decl *decls;
	uint64_t *hist;			     /* ndecls * EXTPROF_HIST_BUCKETS, dense */
	struct extprof_dump_caller *callers; /* ndecls * caller_slots */
	const char *strings;
	uint32_t ndecls;
	uint32_t capacity; /* declarations the file has room for */
	uint32_t caller_slots;
	size_t strings_cap;
	char path[4096];
	bool in_memory; /* the file could not be made: counted here, written at exit */
};

/*
 * Reserve [@off, @off + @len) of the dump file @fd on its filesystem (the
 * file grows to cover it), before any of it is mapped: a page of a shared
 * mapping with no block behind it raises SIGBUS when it is touched on a
 * full filesystem.  0, or -errno: -ENOSPC, -EDQUOT, -EFBIG (past
 * RLIMIT_FSIZE, refused before the kernel raises SIGXFSZ), -EIO...
 */
int dump_reserve(int fd, uint64_t off, uint64_t len);

/*
 * Create the dump at @path (O_EXCL|O_NOFOLLOW, 0600), reserve its space, map
 * it shared and lay out its tables.  0 or -errno; on failure nothing is
 * left behind.
 */
int dump_create(struct dump_map *m, const char *path, const struct dump_meta *meta,
		const struct dump_decl_info *decls, uint32_t ndecls, uint32_t worker);
/* Names a code address: "fn+0x1a@obj", and its offset from the object's base. */
typedef int (*dump_resolve_fn)(uint64_t pc, char *buf, size_t len, uint64_t *offset);

int dump_write_compact(const struct dump_map *m, uint32_t extra_flags);
int dump_write_compact_named(const struct dump_map *m, uint32_t extra_flags,
			     dump_resolve_fn resolve);
int dump_create_anonymous(struct dump_map *m, const struct dump_meta *meta,
			  const struct dump_decl_info *decls, uint32_t ndecls, uint32_t worker);
int dump_append_decl(struct dump_map *m, const struct dump_decl_info *info);
void dump_unmap(struct dump_map *m);

#endif
