// SPDX-License-Identifier: MIT
/*
 * dump_read: read a dump file whole with plain read() and hand it to the
 * checks.  No mmap: a file that is truncated or rewritten under us (the
 * shim renames its compact form over the live one) must not fault us.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/dump_check.h"
#include "read/dump_read.h"

int xp_dump_open(int dirfd, const char *name, const char *path, bool nofollow, struct xp_err *e)
{
	/* O_NONBLOCK: opening a FIFO planted in the directory must not hang. */
	int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0);
	int fd = openat(dirfd, name, flags);

	if (fd >= 0)
		return fd;
	if (errno == ELOOP && nofollow)
		return xp_err_set(
			e, -ELOOP,
			"%s: is a symbolic link; links inside a directory are not followed", path);
	return xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
}

/* The file as it was: a change between two looks means it was written meanwhile. */
static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_ino == b->st_ino &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * The header first: a file that is no dump, or not a whole one, is said so
 * without reading it all (a 2 GB sparse file full of zeros, say).
 */
static int dump_check_first(int fd, const struct stat *st, const char *path, struct xp_err *e)
{
	struct extprof_dump_header h;
	size_t want = (uint64_t)st->st_size < sizeof(h) ? (size_t)st->st_size : sizeof(h);
	size_t done = 0;
	ssize_t n;

	while (done < want) {
		n = pread(fd, (char *)&h + done, want - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return xp_dump_check_start(&h, done, (uint64_t)st->st_size, path, e);
}

/*
 * Read the whole file once: 0, -EAGAIN when it changed meanwhile (its size
 * or times moved, or it had more bytes than its size said), or -errno.
 */
static int dump_slurp_once(int fd, const char *path, unsigned char **out, size_t *size,
			   struct xp_err *e)
{
	unsigned char *buf, extra;
	struct stat st, after;
	size_t done = 0;
	ssize_t n = 0;

	if (fstat(fd, &st) < 0)
		return xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return xp_err_set(e, -EINVAL, "%s: not a regular file", path);
	if ((unsigned long long)st.st_size > XP_DUMP_MAX_SIZE)
		return xp_err_at(e, path, XP_DUMP_MAX_SIZE,
				 "file too large for a dump (%lld bytes)", (long long)st.st_size);
	n = dump_check_first(fd, &st, path, e);
	if (n)
		return (int)n;
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		return xp_err_set(e, -ENOMEM, "%s: out of memory", path);
	while (done < (size_t)st.st_size) {
		n = pread(fd, buf + done, (size_t)st.st_size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (n < 0) {
		free(buf);
		return xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
	}
	if ((done == (size_t)st.st_size && pread(fd, &extra, 1, (off_t)done) > 0) ||
	    fstat(fd, &after) < 0 || !same_stat(&st, &after)) {
		free(buf);
		return xp_err_set(e, -EAGAIN, "%s: the file changed while it was read", path);
	}
	*out = buf;
	*size = done;
	return 0;
}

/*
 * A dump being rewritten under us is read again, a few times: what we
 * parse is one state of the file, or nothing.  (The shim never rewrites a
 * file in place: it renames a new one over it, and the descriptor we hold
 * keeps the old one.  Anyone else's writes are caught here, or by the
 * checks.)
 */
#define SLURP_TRIES 4

static int dump_slurp(int fd, const char *path, unsigned char **out, size_t *size, struct xp_err *e)
{
	int err = -EAGAIN;

	for (int i = 0; i < SLURP_TRIES && err == -EAGAIN; i++)
		err = dump_slurp_once(fd, path, out, size, e);
	return err;
}

int xp_dump_read(struct xp_dump *d, int dirfd, const char *name, const char *path, bool nofollow,
		 struct xp_err *e)
{
	unsigned char *buf = NULL;
	size_t size = 0;
	int fd, err;

	memset(d, 0, sizeof(*d));
	fd = xp_dump_open(dirfd, name, path, nofollow, e);
	if (fd < 0)
		return fd;
	err = dump_slurp(fd, path, &buf, &size, e);
	close(fd);
	if (err)
		return err;
	return xp_dump_parse(d, buf, size, path, e);
}

int xp_dump_parse(struct xp_dump *d, void *buf, size_t size, const char *path, struct xp_err *e)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->size = size;
	d->path = strdup(path);
	if (!d->path) {
		err = xp_err_set(e, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	err = xp_dump_check_header(d, e);
	if (!err)
		err = xp_dump_check_sections(d, e);
	if (!err)
		err = xp_dump_upgrade_decls(d, e);
	if (!err)
		err = xp_dump_check_decls(d, e);
	if (!err)
		err = xp_dump_check_hist(d, e);
	if (!err)
		err = xp_dump_check_callers(d, e);
	if (!err)
		return 0;
fail:
	xp_dump_free(d);
	return err;
}

void xp_dump_free(struct xp_dump *d)
{
	free(d->order);
	free(d->decls_v1);
	free(d->buf);
	free(d->path);
	memset(d, 0, sizeof(*d));
}
