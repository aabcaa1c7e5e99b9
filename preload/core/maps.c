// SPDX-License-Identifier: MIT
/*
 * maps: walk /proc/PID/maps with open(2) and read(2) into small buffers
 * of the caller's, so that it can run on a thread's first evaluation (a
 * signal handler, maybe on a small sigaltstack) and at start-up alike; the
 * system calls are raw (sys.h): no cancellation point, errno untouched.
 *
 *   55d0c4a00000-55d0c4a02000 r--p 00000000 fe:01 1234567   /usr/bin/prog
 *   start        end          perms offset dev   inode     path
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/maps.h"
#include "core/sys.h"

static const char *maps_hex(const char *p, uint64_t *v)
{
	*v = 0;
	for (;; p++) {
		char c = *p;

		if (c >= '0' && c <= '9')
			*v = *v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v = *v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return p;
	}
}

static const char *maps_skip_field(const char *p)
{
	while (*p && *p != ' ')
		p++;
	while (*p == ' ')
		p++;
	return p;
}

static int maps_parse(char *line, bool truncated, maps_fn fn, void *arg)
{
	struct maps_entry e;
	const char *p = line;

	p = maps_hex(p, &e.start);
	if (*p++ != '-')
		return 0;
	p = maps_hex(p, &e.end);
	if (*p++ != ' ' || strlen(p) < 4)
		return 0;
	memcpy(e.perms, p, 4);
	e.perms[4] = '\0';
	/* perms, offset, dev, inode: the path follows, or nothing */
	for (int i = 0; i < 4; i++)
		p = maps_skip_field(p);
	e.path = p;
	e.truncated = truncated;
	return fn(&e, arg);
}

int maps_each(const char *file, char *line, size_t cap, maps_fn fn, void *arg)
{
	char chunk[512];
	size_t used = 0;
	bool truncated = false;
	int fd, ret = 0;
	ssize_t n;

	if (cap < 64)
		return -EINVAL;
	fd = sys_open(file, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd;
	while (!ret && (n = sys_read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			ret = (int)n;
			break;
		}
		for (ssize_t i = 0; i < n && !ret; i++) {
			if (chunk[i] != '\n') {
				if (used + 1 < cap)
					line[used++] = chunk[i];
				else
					truncated = true;
				continue;
			}
			line[used] = '\0';
			ret = maps_parse(line, truncated, fn, arg);
			used = 0;
			truncated = false;
		}
	}
	sys_close(fd);
	return ret;
}
