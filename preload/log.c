// SPDX-License-Identifier: MIT
/*
 * log: every message the shim has for the user is one line starting
 * "extprof: ", written with a single write(2) so that lines from several
 * threads or processes never interleave.  Formatting is vsnprintf into a
 * stack buffer: no stdio stream, no allocation, the program's own stderr
 * buffering untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static int log_fd = STDERR_FILENO;
static bool log_said[LOG_ONCE_MAX];

/* EXTPROF_LOG: "stderr" (default), "off", or a file to append to. */
int log_setup(const char *spec)
{
	int fd;

	if (!spec || !*spec || !strcmp(spec, "stderr"))
		return 0;
	if (!strcmp(spec, "off")) {
		log_fd = -1;
		return 0;
	}
	fd = open(spec, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	log_fd = fd;
	return 0;
}

static void log_vmsg(const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n = sizeof("extprof: ") - 1;
	int saved = errno, k;

	if (log_fd < 0)
		return;
	memcpy(buf, "extprof: ", n);
	k = vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	if (k < 0)
		k = 0;
	n += (size_t)k < sizeof(buf) - n - 1 ? (size_t)k : sizeof(buf) - n - 2;
	buf[n++] = '\n';
	if (write(log_fd, buf, n) < 0) {
		/* Nowhere left to say it. */
	}
	errno = saved;
}

void log_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(fmt, ap);
	va_end(ap);
}

void log_once(enum log_once_id id, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&log_said[id], true, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	log_vmsg(fmt, ap);
	va_end(ap);
}
