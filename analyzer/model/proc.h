/* SPDX-License-Identifier: MIT */
/*
 * proc: dumps grouped into processes by (hostname, pid, process_id), their
 * workers merged.  Nothing is finalized here.
 */
#ifndef XP_PROC_H
#define XP_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>

#include "model/acc.h"
#include "read/dump.h"
#include "util/err.h"

struct xp_proc_key {
	char hostname[64];
	uint64_t pid;
	uint64_t process_id;
};

struct xp_pdecl {
	char *kind;
	char *symbol;
	char *object;
	struct xp_acc acc;
};

struct xp_worker {
	uint32_t index;
	char *path;
};

struct xp_proc {
	struct xp_proc_key key;		/* zero-padded: hashed as bytes */
	struct extprof_dump_header hdr; /* of its first dump */
	bool complete;			/* every dump says it ended by exit or exec */
	uint64_t run_total;
	uint64_t threads;
	uint64_t lost;
	int64_t start_ns;
	int64_t end_ns;
	size_t nworkers;
	struct xp_worker *workers; /* workers[0].path names the process in messages */
	size_t ndecls;
	struct xp_pdecl *decls; /* ascending (kind, symbol, object) */
	UT_hash_handle hh;
};

struct xp_procset {
	struct xp_proc *by_key;
	struct xp_proc **list; /* in order of first appearance */
	size_t n;
	size_t cap;
};

/*
 * Fold one validated dump into its process: a new process, or one more
 * worker merged into it.  Refuses a worker seen twice, a header that
 * disagrees with the process's other dumps, and a declaration set that
 * differs from theirs.  0, or -errno with @e set.
 */
int xp_procset_add(struct xp_procset *s, const struct xp_dump *d, struct xp_err *e);
/* Free every process of @s. */
void xp_procset_free(struct xp_procset *s);
/* The process of @s seen first, taken out of it (NULL when empty): xp_proc_free() it. */
struct xp_proc *xp_procset_take(struct xp_procset *s);
/* Free one process. */
void xp_proc_free(struct xp_proc *p);
/* A hash of the process that wrote @h: its (hostname, pid, process_id). */
uint64_t xp_proc_key_hash(const struct extprof_dump_header *h);

#endif
