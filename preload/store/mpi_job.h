/* SPDX-License-Identifier: MIT */
/*
 * mpi_job: an MPI job's dumps gathered into one file at MPI_Finalize: what
 * a rank sends and the file rank 0 writes (host/mpi.c interposes
 * MPI_Finalize and makes the collectives).
 */
#ifndef EXTPROF_PRELOAD_MPI_JOB_H
#define EXTPROF_PRELOAD_MPI_JOB_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* @size bytes of fresh anonymous memory, or NULL. */
void *mpi_map(size_t size);

/*
 * This rank's part: its dumps' files (finished), whole, with a summary of
 * each, as rank @rank's.  Into *@out (mpi_map'd, *@size bytes).  0, or
 * -errno with a part of no dump in *@out, which the rank sends all the
 * same (so that the others go on) and keeps its own files.
 */
int mpi_part_make(void **out, size_t *size, uint32_t rank);

/*
 * The job's file, from the @nranks parts gathered in @all (rank r's
 * @counts[r] bytes at @displs[r]), into EXTPROF_DIR as
 * EXE.HOST.PID.PROCESS-ID.job.xpd (its path into @path): written beside it
 * and renamed, so that a reader sees it whole or not at all.  0 or -errno
 * (-EPROTO: a part is not what it says).
 */
int mpi_job_write(const char *all, const int *counts, const int *displs, int nranks,
		  uint32_t job_size, char *path, size_t path_size);

/* Remove this rank's dump files: the job's file holds them. */
void mpi_job_unlink_own(void);

#pragma GCC visibility pop

#endif
