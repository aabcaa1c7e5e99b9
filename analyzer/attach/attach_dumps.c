// SPDX-License-Identifier: MIT
/*
 * attach_dumps: the dumps an attachment made, found in its directory by
 * the attachment's id in their headers; while the process still writes
 * them (live, mapped shared), only their header and declarations are
 * read, with pread: how many activations are in flight, and, for a
 * process that exec'd meanwhile, the mark its shim could not make.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach.h"
#include "extprof/dump.h"

/* The header of @name in @dirfd, if it is one of attachment @id's (and @pid's). */
static int dumps_header(int dirfd, const char *name, uint64_t id, pid_t pid,
			struct extprof_dump_header *h)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, h, sizeof(*h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(*h) ||
	    memcmp(h->magic, EXTPROF_DUMP_MAGIC, EXTPROF_DUMP_MAGIC_LEN) ||
	    h->version != EXTPROF_DUMP_VERSION || h->header_size != sizeof(*h))
		return -EINVAL;
	if (!(h->flags & EXTPROF_DUMP_F_ATTACHED) || h->attach_id != id ||
	    (pid && h->pid != (uint64_t)pid))
		return -ENOENT;
	return 0;
}

int xp_attach_dumps(const char *dir, uint64_t id, pid_t pid, struct xp_names *out, struct xp_err *e)
{
	struct xp_names all;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return xp_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	err = xp_dir_names(fd, dir, &all, NULL, e);
	if (!err) {
		for (size_t i = 0; i < all.n; i++) {
			struct extprof_dump_header h;

			if (!dumps_header(fd, all.v[i], id, pid, &h))
				all.v[k++] = all.v[i];
			else
				free(all.v[i]);
		}
		all.n = k;
		*out = all;
	}
	close(fd);
	return err;
}

/* The declarations of a dump: pread, bounds checked against the file. */
static struct extprof_dump_decl *dumps_decls(int fd, uint64_t *n, uint64_t *at)
{
	struct extprof_dump_header h;
	struct extprof_dump_section sec[EXTPROF_DUMP_MAX_SECTIONS];
	struct extprof_dump_decl *d;
	off_t size = lseek(fd, 0, SEEK_END);

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.nsections > EXTPROF_DUMP_MAX_SECTIONS ||
	    pread(fd, sec, h.nsections * sizeof(sec[0]), h.header_size) !=
		    (ssize_t)(h.nsections * sizeof(sec[0])))
		return NULL;
	for (uint32_t i = 0; i < h.nsections; i++) {
		if (sec[i].type != EXTPROF_SECTION_DECLS ||
		    sec[i].entry_size != sizeof(struct extprof_dump_decl) || sec[i].count > 65536 ||
		    sec[i].offset + sec[i].count * sizeof(*d) > (uint64_t)size)
			continue;
		d = calloc(sec[i].count ? sec[i].count : 1, sizeof(*d));
		if (!d || pread(fd, d, sec[i].count * sizeof(*d), (off_t)sec[i].offset) !=
				  (ssize_t)(sec[i].count * sizeof(*d))) {
			free(d);
			return NULL;
		}
		*n = sec[i].count;
		*at = sec[i].offset;
		return d;
	}
	return NULL;
}

uint64_t xp_attach_in_flight(const char *dir, uint64_t id, pid_t pid)
{
	struct xp_names names;
	struct xp_err e;
	uint64_t open_total = 0;
	int dfd;

	if (xp_attach_dumps(dir, id, pid, &names, &e))
		return 0;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; dfd >= 0 && i < names.n; i++) {
		int fd = openat(dfd, names.v[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		uint64_t n = 0, at = 0;
		struct extprof_dump_decl *d = fd >= 0 ? dumps_decls(fd, &n, &at) : NULL;

		for (uint64_t k = 0; d && k < n; k++)
			open_total += d[k].open;
		free(d);
		if (fd >= 0)
			close(fd);
	}
	if (dfd >= 0)
		close(dfd);
	xp_names_free(&names);
	return open_total;
}

/* One dump: EXEC, its open activations abandoned, as the shim's exec.c does. */
static int dumps_mark_one(int fd, int64_t when)
{
	struct extprof_dump_header h;
	uint64_t n = 0, at = 0;
	struct extprof_dump_decl *d;
	int err = 0;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -EIO;
	if (h.flags & (EXTPROF_DUMP_F_COMPLETE | EXTPROF_DUMP_F_EXEC))
		return 0;
	d = dumps_decls(fd, &n, &at);
	if (!d)
		return -EINVAL;
	for (uint64_t k = 0; k < n; k++)
		d[k].abandoned += d[k].open;
	h.flags |= EXTPROF_DUMP_F_EXEC;
	if (when > h.end_ns)
		h.end_ns = when;
	if (pwrite(fd, d, n * sizeof(*d), (off_t)at) != (ssize_t)(n * sizeof(*d)) ||
	    pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		err = -EIO;
	free(d);
	return err;
}

int xp_attach_mark_exec(const char *dir, uint64_t id, pid_t pid, int64_t when, struct xp_err *e)
{
	struct xp_names names;
	int err = xp_attach_dumps(dir, id, pid, &names, e), dfd;

	if (err)
		return err;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; dfd >= 0 && i < names.n && !err; i++) {
		int fd = openat(dfd, names.v[i], O_RDWR | O_CLOEXEC | O_NOFOLLOW);

		if (fd < 0 || dumps_mark_one(fd, when))
			err = xp_err_set(e, -EIO, "%s/%s: cannot mark it as ended by exec", dir,
					 names.v[i]);
		if (fd >= 0)
			close(fd);
	}
	if (dfd >= 0)
		close(dfd);
	xp_names_free(&names);
	return err;
}
