// SPDX-License-Identifier: MIT
/* out: colour only for a terminal; a write error said once, at the end; CSV fields. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	memset(o, 0, sizeof(*o));
	if (!*path)
		return xp_err_set(e, -EINVAL, "-o: empty file name");
	if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0) {
		o->tmp = NULL;
		return xp_err_set(e, -ENOMEM, "out of memory");
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		xp_err_set(e, err, "%s: %s", path, strerror(-err));
		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	if (fchmod(fd, 0666 & ~mask) < 0 || !(o->f = fdopen(fd, "w"))) {
		int err = -errno;

		xp_err_set(e, err, "%s: %s", o->tmp, strerror(-err));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	o->path = strdup(path);
	if (!o->path)
		return xp_out_file_close(o, xp_err_set(e, -ENOMEM, "out of memory"), e);
	return 0;
}

int xp_out_file_close(struct xp_out_file *o, int err, struct xp_err *e)
{
	int werr = xp_out_finish(o->f, 0);

	if (fclose(o->f) == EOF && !werr)
		werr = errno ? -errno : -EIO;
	if (!err && werr)
		err = xp_err_set(e, werr, "writing %s: %s", o->path, strerror(-werr));
	if (!err && rename(o->tmp, o->path) < 0)
		err = xp_err_set(e, -errno, "%s: %s", o->path, strerror(errno));
	if (err)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return err;
}
