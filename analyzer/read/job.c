// SPDX-License-Identifier: MIT
/*
 * job: an MPI job's file read a dump at a time (job.h).  The header and
 * the table are read and checked whole; each dump's bytes are read when it
 * is asked for, with pread, and handed to xp_dump_parse.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/dump_check.h"
#include "read/dump_read.h"
#include "read/job.h"

#define SEC_OFF(j, i, f)                                                                           \
	((uint64_t)(j)->hdr.header_size + (uint64_t)(i) * sizeof(struct extprof_dump_section) +    \
	 offsetof(struct extprof_dump_section, f))

/* @size bytes at @off of @fd, whole: 0, or -errno with @e set. */
static int job_pread(int fd, void *buf, size_t size, uint64_t off, const char *path,
		     struct xp_err *e)
{
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = pread(fd, (char *)buf + done, size - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
		if (n == 0)
			return xp_err_at(e, path, off + done, "truncated while it was read");
		done += (size_t)n;
	}
	return 0;
}

/* A section of the job: of @type, its entries @entry_size bytes, inside the file. */
static int job_section(const struct xp_job *j, const struct extprof_dump_section *s, uint32_t i,
		       uint32_t type, uint32_t entry_size, const char *name, uint64_t table_end,
		       struct xp_err *e)
{
	uint64_t bytes, end;

	if (s->type != type)
		return xp_err_at(e, j->path, SEC_OFF(j, i, type),
				 "section %u: type %u, a job file's section %u is %s", i, s->type,
				 i, name);
	if (s->entry_size != entry_size)
		return xp_err_at(e, j->path, SEC_OFF(j, i, entry_size),
				 "section %u (%s): entry_size %u, expected %u", i, name,
				 s->entry_size, entry_size);
	if (s->offset % 8 || s->offset < table_end)
		return xp_err_at(e, j->path, SEC_OFF(j, i, offset),
				 "section %u (%s): offset %" PRIu64 " is %s", i, name, s->offset,
				 s->offset % 8 ? "not 8-byte aligned" : "inside the header");
	if (__builtin_mul_overflow(s->count, (uint64_t)s->entry_size, &bytes) ||
	    __builtin_add_overflow(s->offset, bytes, &end) || end > j->size)
		return xp_err_at(e, j->path, SEC_OFF(j, i, count),
				 "section %u (%s): %" PRIu64 " entries at offset %" PRIu64
				 " run past the end of the file (%" PRIu64 " bytes)",
				 i, name, s->count, s->offset, j->size);
	return 0;
}

/* The header, whole, as a dump's is checked, but for its flags: a job's. */
static int job_header(struct xp_job *j, struct xp_err *e)
{
	struct xp_dump d = {.path = j->path, .size = j->size};
	size_t have = j->size < sizeof(j->hdr) ? (size_t)j->size : sizeof(j->hdr);
	int err = job_pread(j->fd, &j->hdr, have, 0, j->path, e);

	if (err)
		return err;
	d.buf = (unsigned char *)&j->hdr;
	if (j->size < sizeof(j->hdr))
		return xp_err_at(e, j->path, j->size, "truncated: %" PRIu64 " bytes", j->size);
	err = xp_dump_check_job_header(&d, e);
	if (!err && j->hdr.nsections != 2)
		err = xp_err_at(e, j->path, offsetof(struct extprof_dump_header, nsections),
				"nsections %u, a job file has 2 (RANKS, DUMPS)", j->hdr.nsections);
	return err;
}

/* One dump's summary: inside DUMPS, aligned, after the one before (@prev_end). */
static int job_rank(const struct xp_job *j, uint64_t i, uint64_t ranks_off, uint64_t *prev_end,
		    struct xp_err *e)
{
	const struct extprof_dump_rank *x = &j->ranks[i];
	uint64_t at = ranks_off + i * sizeof(*x), end;

	if (!memchr(x->hostname, '\0', sizeof(x->hostname)))
		return xp_err_at(e, j->path, at + offsetof(struct extprof_dump_rank, hostname),
				 "ranks[%" PRIu64 "].hostname is not NUL-terminated", i);
	if (x->offset % 8 || x->offset < *prev_end ||
	    x->size < sizeof(struct extprof_dump_header) ||
	    __builtin_add_overflow(x->offset, x->size, &end) || end > j->dumps_end)
		return xp_err_at(e, j->path, at + offsetof(struct extprof_dump_rank, offset),
				 "ranks[%" PRIu64 "]: a dump of %" PRIu64 " bytes at %" PRIu64
				 " is not inside DUMPS (%" PRIu64 " to %" PRIu64
				 "), aligned, after the one before",
				 i, x->size, x->offset, j->dumps_off, j->dumps_end);
	if (j->hdr.job_size && x->rank >= j->hdr.job_size)
		return xp_err_at(e, j->path, at, "ranks[%" PRIu64 "]: rank %u of a job of %u", i,
				 x->rank, j->hdr.job_size);
	*prev_end = end;
	return 0;
}

/* The section table and the table of dumps. */
static int job_tables(struct xp_job *j, struct xp_err *e)
{
	struct extprof_dump_section s[2];
	uint64_t table_end = j->hdr.header_size + sizeof(s), prev;
	int err = job_pread(j->fd, s, sizeof(s), j->hdr.header_size, j->path, e);

	if (!err)
		err = job_section(j, &s[0], 0, EXTPROF_SECTION_RANKS,
				  sizeof(struct extprof_dump_rank), "RANKS", table_end, e);
	if (!err)
		err = job_section(j, &s[1], 1, EXTPROF_SECTION_DUMPS, 1, "DUMPS", table_end, e);
	if (err)
		return err;
	if (s[0].offset + s[0].count * sizeof(struct extprof_dump_rank) > s[1].offset)
		return xp_err_at(e, j->path, SEC_OFF(j, 1, offset),
				 "section 1 (DUMPS) does not follow section 0 (RANKS)");
	j->n = s[0].count;
	j->dumps_off = s[1].offset;
	j->dumps_end = s[1].offset + s[1].count;
	j->ranks = malloc((size_t)j->n * sizeof(*j->ranks) + 1);
	if (!j->ranks)
		return xp_err_set(e, -ENOMEM, "%s: out of memory", j->path);
	err = job_pread(j->fd, j->ranks, (size_t)j->n * sizeof(*j->ranks), s[0].offset, j->path, e);
	prev = j->dumps_off;
	for (uint64_t i = 0; i < j->n && !err; i++)
		err = job_rank(j, i, s[0].offset, &prev, e);
	return err;
}

int xp_job_open(struct xp_job *j, int dirfd, const char *name, const char *path, bool nofollow,
		struct xp_err *e)
{
	struct stat st;
	int err;

	memset(j, 0, sizeof(*j));
	j->fd = -1;
	j->path = strdup(path);
	if (!j->path)
		return xp_err_set(e, -ENOMEM, "%s: out of memory", path);
	j->fd = xp_dump_open(dirfd, name, path, nofollow, e);
	if (j->fd < 0) {
		err = j->fd;
		goto fail;
	}
	if (fstat(j->fd, &st) < 0) {
		err = xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = xp_err_set(e, -EINVAL, "%s: not a regular file", path);
		goto fail;
	}
	j->size = (uint64_t)st.st_size;
	err = job_header(j, e);
	if (!err)
		err = job_tables(j, e);
	if (!err)
		return 0;
fail:
	xp_job_close(j);
	return err;
}

/* The dump's header says what the table says of it. */
static int job_agree(const struct xp_job *j, const struct extprof_dump_rank *x,
		     const struct xp_dump *d, struct xp_err *e)
{
	const struct extprof_dump_header *h = d->hdr;

	if (h->pid == x->pid && h->process_id == x->process_id && h->worker == x->worker &&
	    (h->job_size ? h->rank : 0) == x->rank && !strcmp(h->hostname, x->hostname))
		return 0;
	return xp_err_at(e, j->path, x->offset,
			 "the dump of rank %u, worker %u (pid %" PRIu64 " on %s) says it is "
			 "worker %u of pid %" PRIu64 " on %s, rank %u",
			 x->rank, x->worker, x->pid, x->hostname, h->worker, h->pid, h->hostname,
			 h->rank);
}

int xp_job_read(const struct xp_job *j, uint64_t i, struct xp_dump *d, struct xp_err *e)
{
	const struct extprof_dump_rank *x = &j->ranks[i];
	char *path = NULL;
	void *buf;
	int err;

	memset(d, 0, sizeof(*d));
	if (x->size > SIZE_MAX - 1 || !(buf = malloc((size_t)x->size + 1)))
		return xp_err_set(e, -ENOMEM, "%s: out of memory", j->path);
	if (asprintf(&path, "%s[rank %u, worker %u]", j->path, x->rank, x->worker) < 0) {
		free(buf);
		return xp_err_set(e, -ENOMEM, "%s: out of memory", j->path);
	}
	err = job_pread(j->fd, buf, (size_t)x->size, x->offset, j->path, e);
	if (err)
		free(buf);
	else
		err = xp_dump_parse(d, buf, (size_t)x->size, path, e);
	if (!err && (err = job_agree(j, x, d, e)))
		xp_dump_free(d);
	free(path);
	return err;
}

void xp_job_close(struct xp_job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	free(j->ranks);
	free(j->path);
	memset(j, 0, sizeof(*j));
	j->fd = -1;
}
