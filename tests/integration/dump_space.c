// SPDX-License-Identifier: MIT
/* dump_space: a dump's space on disk against its header (dump_space.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dump_space.h"
#include "extprof/dump.h"

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

int dump_space_each(const char *dir, dump_space_fn fn, void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		struct dump_space s;
		char path[4096];

		if (l < 4 || strcmp(e->d_name + l - 4, EXTPROF_DUMP_SUFFIX))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fn(path, dump_space_of(path, &s) ? NULL : &s, arg);
		n++;
	}
	closedir(d);
	return n;
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
