// SPDX-License-Identifier: MIT
/*
 * out: colour only for a terminal; a write error said once, at the end; CSV
 * fields; a file named by -o written in place, only once its content is whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/out.h"

static enum xp_colour_mode out_colour_mode;

void xp_out_colour_set(enum xp_colour_mode mode)
{
	out_colour_mode = mode;
}

/* https://no-color.org: any non-empty NO_COLOR turns colour off, unless --color says. */
bool xp_out_colour(FILE *out)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (out_colour_mode != XP_COLOUR_AUTO)
		return out_colour_mode == XP_COLOUR_ALWAYS;
	if (no && *no)
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(out));
}

/* @err, or the error flushing @out left (a full disk, a closed pipe). */
int xp_out_finish(FILE *out, int err)
{
	if (!err && (fflush(out) == EOF || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}

void xp_out_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int xp_out_file_open(struct xp_out_file *o, const char *path, struct xp_err *e)
{
	memset(o, 0, sizeof(*o));
	if (!*path)
		return xp_err_set(e, -EINVAL, "-o: empty file name");
	o->path = strdup(path);
	o->f = o->path ? open_memstream(&o->buf, &o->len) : NULL;
	if (!o->f) {
		free(o->path);
		o->path = NULL;
		return xp_err_set(e, -ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * All of @buf into @fd.  SIGPIPE is held back meanwhile: a reader that went
 * away (a FIFO's) is an error said in one line, not the end of extprof.
 */
static int out_write_all(int fd, const char *buf, size_t len)
{
	sigset_t sigpipe, old;
	int err = 0;

	sigemptyset(&sigpipe);
	sigaddset(&sigpipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigpipe, &old);
	while (len && !err) {
		ssize_t n = write(fd, buf, len);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n == 0) {
			err = -EIO;
		} else if (errno != EINTR) {
			err = -errno;
		}
	}
	if (err == -EPIPE && !sigismember(&old, SIGPIPE)) {
		/* the SIGPIPE that write raised, taken before the mask comes back */
		struct timespec none = {0, 0};

		sigtimedwait(&sigpipe, NULL, &none);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* Open @path as a shell's ">" does and write @buf there: 0 or -errno. */
static int out_write_path(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666), err;

	if (fd < 0)
		return -errno;
	err = out_write_all(fd, buf, len);
	/* a file system may say only at close that the data did not fit (NFS) */
	if (close(fd) < 0 && !err && errno != EINTR)
		err = -errno;
	return err;
}

int xp_out_file_close(struct xp_out_file *o, int err, struct xp_err *e)
{
	int werr = xp_out_finish(o->f, 0);

	if (fclose(o->f) == EOF && !werr)
		werr = errno ? -errno : -ENOMEM;
	/* the content is whole in memory: only now is PATH opened, and truncated */
	if (!err && !werr)
		werr = out_write_path(o->path, o->buf, o->len);
	if (!err && werr)
		err = xp_err_set(e, werr, "writing %s: %s", o->path, strerror(-werr));
	free(o->buf);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return err;
}

int xp_out_file_check(const char *path, const char *what, struct xp_err *e)
{
	char *dir, *slash;
	struct stat st;
	int err = 0;

	if (!*path)
		return xp_err_set(e, -EINVAL, "%s: empty file name", what);
	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return xp_err_set(e, -EISDIR, "%s %s: %s", what, path, strerror(EISDIR));
		if (access(path, W_OK) < 0)
			return xp_err_set(e, -errno, "%s %s: %s", what, path, strerror(errno));
		return 0;
	}
	if (errno != ENOENT)
		return xp_err_set(e, -errno, "%s %s: %s", what, path, strerror(errno));
	/* a new file: its directory must take it */
	dir = strdup(path);
	if (!dir)
		return xp_err_set(e, -ENOMEM, "out of memory");
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (access(slash ? dir : ".", W_OK | X_OK) < 0)
		err = xp_err_set(e, -errno, "%s %s: %s", what, path, strerror(errno));
	free(dir);
	return err;
}

int xp_write_output(const char *path, FILE *dflt, xp_print_fn print, const void *what,
		    struct xp_err *e)
{
	struct xp_out_file f;
	int err;

	if (!path) {
		err = print(what, dflt);
		return err ? xp_err_set(e, err, "writing the report: %s", strerror(-err)) : 0;
	}
	err = xp_out_file_open(&f, path, e);
	if (err)
		return err;
	err = print(what, f.f);
	if (err)
		xp_err_set(e, err, "writing %s: %s", path, strerror(-err));
	return xp_out_file_close(&f, err, e);
}
