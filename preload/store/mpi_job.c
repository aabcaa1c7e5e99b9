// SPDX-License-Identifier: MIT
/*
 * mpi_job: what the ranks of an MPI job send each other at MPI_Finalize
 * (host/mpi.c), and the one file rank 0 writes of it.  A rank sends its dumps,
 * finished as at exit (compact, complete), whole, with a summary of each:
 *
 *   a rank's part     struct mpi_part | struct extprof_dump_rank[n] | dump 0 | dump 1 ...
 *                     (offsets from the first dump's byte, each 8-aligned)
 *
 *   the job's file    header (flags JOB) | sections[2] | RANKS: every rank's summaries
 *                     | DUMPS: every rank's dumps, one after another
 *
 * so that the file holds the very bytes of every rank's dumps (the
 * analyzer reads them as it reads the files they came from: each process
 * finalized with its own calibration), in one file instead of one per
 * rank and thread (docs/dump-format.md, "Job files").  Not on the
 * evaluation path: mmap'd memory, plain reads and writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "store/mpi_job.h"
#include "core/state.h"
#include "store/dump.h"
#include "core/sys.h"
#include "store/process.h"

#define MPI_ALIGN(n) (((n) + 7) & ~(size_t)7)

/* A part's head: how many dumps, and their bytes after the summaries. */
struct mpi_part {
	uint64_t n;
	uint64_t bytes;
};

void *mpi_map(size_t size)
{
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The worker dumps of this rank that are files (finished): @w's compact file exists. */
static bool mpi_has_file(const struct xp_worker *w, struct stat *st)
{
	return w->map.base && w->map.path[0] && !stat(w->map.path, st) && S_ISREG(st->st_mode);
}

/* All of file @path (@size bytes) into @buf: 0 or -errno. */
static int mpi_read_file(const char *path, char *buf, size_t size)
{
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (done < size && (n = read(fd, buf + done, size - done)) > 0)
		done += (size_t)n;
	close(fd);
	return done == size ? 0 : n < 0 ? -errno : -EIO;
}

/* Worker @w's summary, its dump @size bytes at @offset of the part's dumps. */
static void mpi_summary(struct extprof_dump_rank *x, const struct xp_worker *w, uint32_t rank,
			uint64_t offset, uint64_t size)
{
	memset(x, 0, sizeof(*x));
	x->rank = rank;
	x->worker = w->map.hdr->worker;
	x->pid = xp.meta.pid;
	x->process_id = xp.meta.process_id;
	x->offset = offset;
	x->size = size;
	x->run_total = w->map.hdr->run_total;
	for (uint32_t i = 0; i < w->map.ndecls; i++)
		x->evaluations += w->map.decls[i].evaluations;
	memcpy(x->hostname, xp.meta.hostname, sizeof(x->hostname) - 1);
}

/* A part of no dump: what a rank that cannot send its own sends, so that the others go on. */
static struct mpi_part mpi_part_none;

int mpi_part_make(void **out, size_t *size, uint32_t rank)
{
	uint32_t nw = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE), n = 0;
	struct extprof_dump_rank *sums;
	size_t bytes = 0, at = 0;
	struct mpi_part *head;
	struct stat st;
	char *data;
	int err = 0;

	for (uint32_t i = 0; i < nw; i++)
		if (mpi_has_file(&xp.workers[i], &st)) {
			n++;
			bytes += MPI_ALIGN((size_t)st.st_size);
		}
	*out = &mpi_part_none;
	*size = sizeof(mpi_part_none);
	head = mpi_map(sizeof(*head) + n * sizeof(*sums) + bytes);
	if (!head)
		return -ENOMEM;
	sums = (struct extprof_dump_rank *)(head + 1);
	data = (char *)(sums + n);
	n = 0;
	for (uint32_t i = 0; i < nw && !err; i++) {
		const struct xp_worker *w = &xp.workers[i];

		/* a file that changed size since is not read: the part must hold what it says */
		if (!mpi_has_file(w, &st) || at + (size_t)st.st_size > bytes)
			continue;
		err = mpi_read_file(w->map.path, data + at, (size_t)st.st_size);
		mpi_summary(&sums[n++], w, rank, at, (uint64_t)st.st_size);
		at += MPI_ALIGN((size_t)st.st_size);
	}
	head->n = n;
	head->bytes = bytes;
	if (err || at != bytes) {
		sys_munmap(head, sizeof(*head) + n * sizeof(*sums) + bytes);
		return err ? err : -EAGAIN;
	}
	*out = head;
	*size = sizeof(*head) + n * sizeof(*sums) + bytes;
	return 0;
}

/* The parts' sizes, each checked against what it says of itself: the total of their dumps. */
static int mpi_parts_check(const char *all, const int *counts, const int *displs, int nranks,
			   uint64_t *nsums, uint64_t *bytes)
{
	*nsums = *bytes = 0;
	for (int r = 0; r < nranks; r++) {
		const struct mpi_part *p = (const struct mpi_part *)(all + displs[r]);

		if ((size_t)counts[r] < sizeof(*p) ||
		    (size_t)counts[r] !=
			    sizeof(*p) + p->n * sizeof(struct extprof_dump_rank) + p->bytes)
			return -EPROTO;
		*nsums += p->n;
		*bytes += p->bytes;
	}
	return 0;
}

/* Write @size bytes of @buf to @fd, whole: 0 or -errno. */
static int mpi_write_all(int fd, const char *buf, size_t size)
{
	while (size) {
		ssize_t n = write(fd, buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		size -= (size_t)n;
	}
	return 0;
}

/* The job file laid out in @f (@fsize bytes): header, sections, summaries, dumps. */
static void mpi_lay_out(char *f, size_t fsize, const char *all, const int *displs, int nranks,
			uint64_t nsums, uint64_t bytes, uint32_t job_size)
{
	struct extprof_dump_header *h = (struct extprof_dump_header *)f;
	struct extprof_dump_section *sec = (struct extprof_dump_section *)(h + 1);
	size_t ranks_off = MPI_ALIGN(sizeof(*h) + 2 * sizeof(*sec));
	size_t dumps_off = MPI_ALIGN(ranks_off + nsums * sizeof(struct extprof_dump_rank));
	struct extprof_dump_rank *out = (struct extprof_dump_rank *)(f + ranks_off);
	size_t at = dumps_off;

	for (int r = 0; r < nranks; r++) {
		const struct mpi_part *p = (const struct mpi_part *)(all + displs[r]);
		const struct extprof_dump_rank *in = (const struct extprof_dump_rank *)(p + 1);
		const char *data = (const char *)(in + p->n);

		for (uint64_t i = 0; i < p->n; i++) {
			*out = in[i];
			out->offset = at + in[i].offset;
			h->run_total += in[i].run_total;
			out++;
		}
		memcpy(f + at, data, p->bytes);
		at += p->bytes;
	}
	sec[0] = (struct extprof_dump_section){EXTPROF_SECTION_RANKS,
					       sizeof(struct extprof_dump_rank), ranks_off, nsums};
	sec[1] = (struct extprof_dump_section){EXTPROF_SECTION_DUMPS, 1, dumps_off, bytes};
	dump_fill_header(h, &xp.meta, 0, fsize);
	h->flags = EXTPROF_DUMP_F_JOB | EXTPROF_DUMP_F_COMPLETE;
	h->nsections = 2;
	h->rank = 0;
	h->job_size = job_size;
	h->end_ns = process_now_ns();
}

int mpi_job_write(const char *all, const int *counts, const int *displs, int nranks,
		  uint32_t job_size, char *path, size_t path_size)
{
	struct extprof_dump_header *h;
	uint64_t nsums, bytes;
	size_t fsize, ranks_off;
	char tmp[4096 + 8];
	char *f;
	int fd, err = mpi_parts_check(all, counts, displs, nranks, &nsums, &bytes);

	if (err)
		return err;
	if (!xp.dir_ok)
		return -ENOENT; /* this rank has no usable EXTPROF_DIR */
	ranks_off = MPI_ALIGN(sizeof(*h) + 2 * sizeof(struct extprof_dump_section));
	fsize = MPI_ALIGN(ranks_off + nsums * sizeof(struct extprof_dump_rank)) + bytes;
	if (log_format(path, path_size, "%s/%s.%s.%llu.%016llx.job" EXTPROF_DUMP_SUFFIX, xp.dir,
		       xp.file_exe, xp.file_host, (unsigned long long)xp.meta.pid,
		       (unsigned long long)xp.meta.process_id) +
		    5 >=
	    path_size)
		return -ENAMETOOLONG;
	f = mpi_map(fsize);
	if (!f)
		return -ENOMEM;
	mpi_lay_out(f, fsize, all, displs, nranks, nsums, bytes, job_size);
	log_format(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	err = fd < 0 ? -errno : mpi_write_all(fd, f, fsize);
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err && fd >= 0)
		unlink(tmp);
	sys_munmap(f, fsize);
	return err;
}

void mpi_job_unlink_own(void)
{
	uint32_t nw = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	struct stat st;

	for (uint32_t i = 0; i < nw; i++)
		if (mpi_has_file(&xp.workers[i], &st))
			unlink(xp.workers[i].map.path);
}
