// SPDX-License-Identifier: MIT
/* out: colour only for a terminal; a write error said once, at the end; CSV fields. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out.h"

/* https://no-color.org: any non-empty NO_COLOR turns colour off. */
bool xp_out_colour(FILE *out)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

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

/* Append a formatted string to the list @v of @n: 0 or -ENOMEM. */
int xp_strv_vappendf(char ***v, size_t *n, const char *fmt, va_list ap)
{
	char **w = realloc(*v, (*n + 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	*v = w;
	if (vasprintf(&w[*n], fmt, ap) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
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
