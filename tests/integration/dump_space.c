// SPDX-License-Identifier: MIT
/* dump_space: a dump's space on disk against its header (dump_space.h). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dump_space.h"
#include "extprof/dump.h"
#include "harness.h"

int dump_space_of(const char *path, struct dump_space *s)
{
	struct extprof_dump_section sec[EXTPROF_DUMP_MAX_SECTIONS];
	struct extprof_dump_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int ok;

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return -1;
	/* the space first: the header read after it says at least as many rows */
	ok = !fstat(fd, &st) && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     !memcmp(h.magic, EXTPROF_DUMP_MAGIC, EXTPROF_DUMP_MAGIC_LEN) &&
	     h.version == EXTPROF_DUMP_VERSION && h.nsections <= EXTPROF_DUMP_MAX_SECTIONS &&
	     pread(fd, sec, h.nsections * sizeof(sec[0]), h.header_size) ==
		     (ssize_t)(h.nsections * sizeof(sec[0]));
	close(fd);
	if (!ok)
		return -1;
	s->alloc = (unsigned long long)st.st_blocks * 512;
	s->size = (unsigned long long)st.st_size;
	s->compact = h.flags & EXTPROF_DUMP_F_COMPACT;
	for (unsigned i = 0; i < h.nsections; i++) {
		if (sec[i].type == EXTPROF_SECTION_DECLS)
			s->ndecls = sec[i].count;
		if (sec[i].type == EXTPROF_SECTION_HIST_ROWS) {
			s->rows_off = sec[i].offset;
			s->rows = sec[i].count;
		}
		if (sec[i].type == EXTPROF_SECTION_HIST_SPARSE)
			s->sparse = sec[i].count;
	}
	return 0;
}

unsigned long long dump_space_bound(const struct dump_space *s)
{
	unsigned long long room = s->rows + 1 < 32 ? s->rows + 1 : 32;

	return s->rows_off + (s->rows + room + 2) * EXTPROF_HIST_ROW_BYTES + 8192;
}

struct dump_space_call {
	dump_space_fn fn;
	void *arg;
};

static void dump_space_one(const char *dir, const char *name, void *arg)
{
	struct dump_space_call *c = arg;
	struct dump_space s;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	c->fn(path, dump_space_of(path, &s) ? NULL : &s, c->arg);
}

int dump_space_each(const char *dir, dump_space_fn fn, void *arg)
{
	struct dump_space_call c = {fn, arg};
	int n = harness_each_file(dir, EXTPROF_DUMP_SUFFIX, dump_space_one, &c);

	return n < 0 ? 0 : n;
}

struct dump_space_max {
	struct dump_space *max;
	int seen;
};

static void dump_space_keep_max(const char *path, const struct dump_space *s, void *arg)
{
	struct dump_space_max *m = arg;

	(void)path;
	if (!s || s->compact)
		return;
	m->seen = 1;
	if (s->alloc > m->max->alloc)
		*m->max = *s;
}

/* Every live dump in @dir now: the one holding the most space into @max. */
static int dump_space_look(const char *dir, struct dump_space *max)
{
	struct dump_space_max m = {max, 0};

	dump_space_each(dir, dump_space_keep_max, &m);
	return m.seen;
}

int dump_space_watch(int pid, const char *dir, struct dump_space *max)
{
	const struct timespec pause = {0, 5 * 1000 * 1000};
	siginfo_t info;
	int looks = 0;

	memset(max, 0, sizeof(*max));
	for (;;) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) || info.si_pid)
			break;
		looks += dump_space_look(dir, max);
		nanosleep(&pause, NULL);
	}
	return looks;
}
