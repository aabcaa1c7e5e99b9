// SPDX-License-Identifier: MIT
/* err: build one-line error messages; print them once. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"

int xp_err_set(struct xp_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int xp_err_at(struct xp_err *e, const char *path, uint64_t off, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(e->msg, sizeof(e->msg), "%s: %s (offset %" PRIu64 ")", path, what, off);
	return -EINVAL;
}

void xp_err_print(const struct xp_err *e)
{
	fprintf(stderr, "extprof: %s\n", e->msg[0] ? e->msg : "unknown error");
}

void xp_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("extprof: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
