/* SPDX-License-Identifier: MIT */
/*
 * job: the file of an MPI job (EXTPROF_DUMP_F_JOB), which one rank wrote
 * at MPI_Finalize with every rank's dumps in it: its header, its table of
 * the dumps it holds (a summary of each: rank, worker, host, pid), and
 * each dump read alone, when asked, and validated as a dump file is, so
 * that a job of thousands of ranks is read a dump at a time.
 *
 *   offset 0          struct extprof_dump_header   version 4, flags JOB
 *   header_size       struct extprof_dump_section[2]
 *   RANKS.offset      struct extprof_dump_rank[n]   by rank, then worker
 *   DUMPS.offset      dump 0, dump 1, ... each whole, each 8-byte aligned
 */
#ifndef XP_JOB_H
#define XP_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "read/dump.h"
#include "util/err.h"

struct xp_job {
	char *path; /* as named in messages */
	int fd;
	uint64_t size; /* of the file */
	struct extprof_dump_header hdr;
	struct extprof_dump_rank *ranks; /* the table, checked */
	uint64_t n;
	uint64_t dumps_off, dumps_end; /* the DUMPS section */
};

/*
 * Open the job file @name relative to @dirfd (@path in messages; @nofollow
 * refuses a symbolic link) and check its header and its table: each dump
 * inside DUMPS, aligned, after the one before.  0, or -errno with @e set.
 */
int xp_job_open(struct xp_job *j, int dirfd, const char *name, const char *path, bool nofollow,
		struct xp_err *e);

/*
 * Dump @i of @j into @d, validated as a dump file is, and its header
 * checked against its summary in the table.  0, or -errno with @e set.
 */
int xp_job_read(const struct xp_job *j, uint64_t i, struct xp_dump *d, struct xp_err *e);

/* Close @j and free what it holds. */
void xp_job_close(struct xp_job *j);

#endif
