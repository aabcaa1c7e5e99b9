// SPDX-License-Identifier: MIT
/*
 * attach_proc: what /proc says of a process: its status, its mappings,
 * its threads, its start time; and its memory, read and written through
 * /proc/PID/mem (which reaches read-only code too: the kernel copies the
 * page on write, as a debugger's breakpoint does).  A process whose main
 * thread has ended (pthread_exit) has a zombie leader, whose /proc/PID
 * shows no memory: its maps, mem, exe and root are read through a thread
 * still alive (xp_proc_view).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach.h"
#include "util/vec.h"

static bool proc_thread_alive(pid_t pid, pid_t tid)
{
	struct xp_pstatus s;

	return !xp_pstatus_read(pid, tid, &s) && s.state != 'Z' && s.state != 'X';
}

pid_t xp_proc_view(pid_t pid)
{
	pid_t *tids, view = pid;
	size_t n;

	if (proc_thread_alive(pid, 0) || xp_tasks_list(pid, &tids, &n))
		return pid;
	for (size_t i = 0; i < n; i++)
		if (proc_thread_alive(pid, tids[i])) {
			view = tids[i];
			break;
		}
	free(tids);
	return view;
}

bool xp_proc_alive(pid_t pid)
{
	return proc_thread_alive(pid, xp_proc_view(pid));
}

int xp_maps_read(pid_t pid, struct xp_maps *m, struct xp_err *e)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)xp_proc_view(pid));
	f = fopen(path, "re");
	if (!f)
		return xp_err_set(e, -errno, "%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		struct xp_map x;
		unsigned long long lo, hi, off;
		char perms[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &at) < 4)
			continue;
		if (XP_GROW(&m->v, &m->cap, m->n, 64))
			goto nomem;
		x.lo = lo;
		x.hi = hi;
		x.off = off;
		memcpy(x.perms, perms, sizeof(x.perms) - 1);
		x.perms[sizeof(x.perms) - 1] = '\0';
		line[strcspn(line, "\n")] = '\0';
		x.path = strdup(at ? line + at : "");
		if (!x.path)
			goto nomem;
		m->v[m->n++] = x;
	}
	free(line);
	fclose(f);
	return 0;
nomem:
	free(line);
	fclose(f);
	xp_maps_free(m);
	return xp_err_set(e, -ENOMEM, "out of memory");
}

void xp_maps_free(struct xp_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

const struct xp_map *xp_maps_at(const struct xp_maps *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (addr >= m->v[i].lo && addr < m->v[i].hi)
			return &m->v[i];
	return NULL;
}

static const char *maps_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void xp_maps_object(const struct xp_maps *m, const char *prefix, struct xp_object *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < m->n; i++) {
		const struct xp_map *x = &m->v[i];

		if (x->path[0] != '/' || strncmp(maps_base(x->path), prefix, strlen(prefix)))
			continue;
		if (!o->found) {
			snprintf(o->path, sizeof(o->path), "%s", x->path);
			o->found = true;
		} else if (strcmp(o->path, x->path)) {
			continue;
		}
		if (x->off == 0 && !o->base)
			o->base = x->lo;
		if (x->perms[2] == 'x') {
			if (!o->text_lo || x->lo < o->text_lo)
				o->text_lo = x->lo;
			if (x->hi > o->text_hi)
				o->text_hi = x->hi;
		}
	}
}

static void status_ids(const char *v, unsigned *out)
{
	sscanf(v, "%u %u %u %u", &out[0], &out[1], &out[2], &out[3]);
}

int xp_pstatus_read(pid_t pid, pid_t tid, struct xp_pstatus *s)
{
	char path[96], line[512];
	FILE *f;

	memset(s, 0, sizeof(*s));
	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = '\0';
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "Name"))
			snprintf(s->name, sizeof(s->name), "%s", v);
		else if (!strcmp(line, "State"))
			s->state = v[0];
		else if (!strcmp(line, "PPid"))
			s->ppid = (pid_t)atoi(v);
		else if (!strcmp(line, "TracerPid"))
			s->tracer = (pid_t)atoi(v);
		else if (!strcmp(line, "Uid"))
			status_ids(v, s->uid);
		else if (!strcmp(line, "Gid"))
			status_ids(v, s->gid);
		else if (!strcmp(line, "CapEff"))
			s->cap_eff = strtoull(v, NULL, 16);
		else if (!strcmp(line, "SigPnd"))
			s->sig_pending = strtoull(v, NULL, 16);
		else if (!strcmp(line, "ShdPnd"))
			s->shd_pending = strtoull(v, NULL, 16);
	}
	fclose(f);
	return 0;
}

static int tid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int xp_tasks_list(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*tids = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (XP_GROW(tids, &cap, *n, 16)) {
			closedir(d);
			free(*tids);
			*tids = NULL;
			return -ENOMEM;
		}
		(*tids)[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	qsort(*tids, *n, sizeof(**tids), tid_cmp);
	return 0;
}

uint64_t xp_proc_starttime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	/* after the command's closing parenthesis: state is field 3, starttime 22 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2,
			 "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			 "%*d %*d %*d %llu",
			 &start) != 1)
		return 0;
	return start;
}

static int mem_io(pid_t pid, uint64_t addr, void *buf, size_t len, bool write_it)
{
	char path[64];
	size_t done = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)xp_proc_view(pid));
	fd = open(path, (write_it ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t k =
			write_it ? pwrite(fd, (char *)buf + done, len - done, (off_t)(addr + done))
				 : pread(fd, (char *)buf + done, len - done, (off_t)(addr + done));

		if (k <= 0) {
			int err = k < 0 ? -errno : -EIO;

			close(fd);
			errno = -err;
			return err;
		}
		done += (size_t)k;
	}
	close(fd);
	return 0;
}

int xp_mem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return mem_io(pid, addr, buf, len, false);
}

int xp_mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	xp_trace_test_point();
	return mem_io(pid, addr, (void *)buf, len, true);
}
