// SPDX-License-Identifier: MIT
/*
 * load: read, validate and fold dumps one by one.  Without --strict a
 * corrupt file is named on stderr and left out; with it, it is an error, and
 * so is a dump of a process that did not finish cleanly.  A dump that reads
 * fine but contradicts another (same worker twice, declarations that
 * differ) is always an error: no choice of files makes it right.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/dump_read.h"
#include "read/job.h"
#include "model/load.h"

struct xp_load_job {
	char *path;
	bool nofollow;
};

void xp_load_init(struct xp_load *l, bool strict)
{
	memset(l, 0, sizeof(*l));
	l->strict = strict;
}

void xp_load_stream(struct xp_load *l, xp_load_sink_fn sink, void *arg)
{
	l->sink = sink;
	l->sink_arg = arg;
}

void xp_load_free(struct xp_load *l)
{
	xp_procset_free(&l->set);
	xp_u64set_free(&l->done);
	for (size_t i = 0; i < l->njobs; i++)
		free(l->jobs[i].path);
	free(l->jobs);
	l->jobs = NULL;
	l->njobs = 0;
	for (size_t i = 0; i < l->skipped && l->skips; i++)
		free(l->skips[i]);
	free(l->skips);
	l->skips = NULL;
}

static int load_skip(struct xp_load *l, const struct xp_err *e)
{
	char **v;

	if (!l->defer) {
		fprintf(stderr, "extprof: %s; file skipped\n", e->msg);
		l->skipped++;
		return 0;
	}
	v = realloc(l->skips, (l->skipped + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->skips = v;
	v[l->skipped] = strdup(e->msg);
	if (!v[l->skipped])
		return -ENOMEM;
	l->skipped++;
	return 0;
}

/* The process read first handed on to the sink, and freed.  0, or -errno with @e set. */
static int load_hand_on(struct xp_load *l, struct xp_err *e)
{
	struct xp_proc *p = xp_procset_take(&l->set);
	int err = xp_u64set_add(&l->done, xp_proc_key_hash(&p->hdr)) < 0
			  ? xp_err_set(e, -ENOMEM, "out of memory")
			  : l->sink(l->sink_arg, p, e);

	xp_proc_free(p);
	return err;
}

/* An MPI job's file, kept to be read after every other dump: 0 or -ENOMEM. */
static int load_defer_job(struct xp_load *l, const char *path, bool nofollow)
{
	struct xp_load_job *v = realloc(l->jobs, (l->njobs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->jobs = v;
	v[l->njobs].nofollow = nofollow;
	v[l->njobs].path = strdup(path);
	if (!v[l->njobs].path)
		return -ENOMEM;
	l->njobs++;
	return 0;
}

/* Dump @d, read from @path, folded into its process (and freed).  0, or -errno with @e set. */
static int load_fold(struct xp_load *l, struct xp_dump *d, const char *path, struct xp_err *e)
{
	int err = 0;

	if (l->strict && !xp_dump_finished(d->hdr))
		err = xp_err_at(e, path, offsetof(struct extprof_dump_header, flags),
				"incomplete: process %" PRIu64
				" did not finish cleanly, and --strict refuses incomplete runs",
				d->hdr->pid);
	if (!err && l->sink && xp_u64set_has(&l->done, xp_proc_key_hash(d->hdr)))
		err = xp_err_set(e, -EINVAL,
				 "%s: a dump of process %" PRIu64 " on %s, whose other dumps were "
				 "read more than %d processes before: name a process's dumps "
				 "together (a directory lists them so)",
				 path, d->hdr->pid, d->hdr->hostname, XP_LOAD_PENDING);
	if (!err)
		err = xp_procset_add(&l->set, d, e);
	if (!err)
		l->files++;
	xp_dump_free(d);
	while (!err && l->sink && l->set.n > XP_LOAD_PENDING)
		err = load_hand_on(l, e);
	return err;
}

static int load_one(struct xp_load *l, int dirfd, const char *name, const char *path, bool nofollow,
		    struct xp_err *e)
{
	struct xp_dump d;
	int err = xp_dump_read(&d, dirfd, name, path, nofollow, e);

	if (err == XP_DUMP_JOB)
		return load_defer_job(l, path, nofollow) ? xp_err_set(e, -ENOMEM, "out of memory")
							 : 0;
	if (err == -ENOMEM || (err && l->strict))
		return err;
	if (err)
		return load_skip(l, e) ? xp_err_set(e, -ENOMEM, "out of memory") : 0;
	return load_fold(l, &d, path, e);
}

/* The processes read so far: handed on, and still open.  0 or -ENOMEM. */
static int load_seen(const struct xp_load *l, struct xp_u64set *seen)
{
	for (size_t i = 0; i < l->done.cap; i++)
		if (l->done.slots[i] && xp_u64set_add(seen, l->done.slots[i] - 1) < 0)
			return -ENOMEM;
	if (l->done.has_max && xp_u64set_add(seen, UINT64_MAX) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < l->set.n; i++)
		if (xp_u64set_add(seen, xp_proc_key_hash(&l->set.list[i]->hdr)) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * The dumps of one MPI job's file, a dump at a time, those of processes
 * read before it (@seen) left out: their ranks kept their own files.
 */
static int load_job(struct xp_load *l, const struct xp_load_job *jf, const struct xp_u64set *seen,
		    struct xp_err *e)
{
	struct xp_job j;
	size_t again = 0;
	int err = xp_job_open(&j, AT_FDCWD, jf->path, jf->path, jf->nofollow, e);

	if (err == -ENOMEM || (err && l->strict))
		return err;
	if (err)
		return load_skip(l, e) ? xp_err_set(e, -ENOMEM, "out of memory") : 0;
	for (uint64_t i = 0; i < j.n && !err; i++) {
		struct xp_dump d;

		err = xp_job_read(&j, i, &d, e);
		if (err && err != -ENOMEM && !l->strict) {
			err = load_skip(l, e) ? xp_err_set(e, -ENOMEM, "out of memory") : 0;
			continue;
		}
		if (!err && xp_u64set_has(seen, xp_proc_key_hash(d.hdr))) {
			again++;
			xp_dump_free(&d);
			continue;
		}
		if (!err)
			err = load_fold(l, &d, j.path, e);
	}
	if (!err && again)
		xp_warn("%s: %zu of its %" PRIu64 " dumps were read already, from files of their "
			"own (kept by EXTPROF_MPI=keep, or by ranks the job's merge did not "
			"finish for): read once",
			j.path, again, j.n);
	xp_job_close(&j);
	return err;
}

/* Every MPI job's file met, after every other dump.  0, or -errno with @e set. */
static int load_jobs(struct xp_load *l, struct xp_err *e)
{
	struct xp_u64set seen = {0};
	int err = 0;

	for (size_t i = 0; i < l->njobs && !err; i++) {
		xp_u64set_free(&seen);
		err = load_seen(l, &seen) ? xp_err_set(e, -ENOMEM, "out of memory")
					  : load_job(l, &l->jobs[i], &seen, e);
	}
	xp_u64set_free(&seen);
	for (size_t i = 0; i < l->njobs; i++)
		free(l->jobs[i].path);
	free(l->jobs);
	l->jobs = NULL;
	l->njobs = 0;
	return err;
}

int xp_load_finish(struct xp_load *l, struct xp_err *e)
{
	int err = load_jobs(l, e);

	while (l->sink && l->set.n && !err)
		err = load_hand_on(l, e);
	if (err)
		return err;
	if (!l->files && l->skipped == 1 && l->skips)
		return xp_err_set(e, -EINVAL, "%s", l->skips[0]);
	for (size_t i = 0; i < l->skipped && l->skips; i++)
		fprintf(stderr, "extprof: %s; file skipped\n", l->skips[i]);
	if (!l->files)
		return xp_err_set(e, -ENOENT, "no usable dump: all %zu were skipped", l->skipped);
	return 0;
}

static int load_join(char **out, const char *dir, const char *name)
{
	size_t n = strlen(dir);
	const char *sep = n && dir[n - 1] == '/' ? "" : "/";

	return asprintf(out, "%s%s%s", dir, sep, name) < 0 ? -ENOMEM : 0;
}

int xp_load_names(struct xp_load *l, const char *dir, const struct xp_names *names,
		  struct xp_err *e)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = 0;

	if (dirfd < 0)
		return xp_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	for (size_t i = 0; i < names->n && !err; i++) {
		char *path;

		err = load_join(&path, dir, names->v[i]);
		if (err) {
			err = xp_err_set(e, err, "out of memory");
			break;
		}
		err = load_one(l, dirfd, names->v[i], path, true, e);
		free(path);
	}
	close(dirfd);
	return err;
}

static int load_dir(struct xp_load *l, const char *dir, struct xp_err *e)
{
	struct xp_names dumps, others;
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err;

	if (dirfd < 0)
		return xp_err_set(e, -errno, "%s: %s", dir, strerror(errno));
	err = xp_dir_names(dirfd, dir, &dumps, &others, e);
	close(dirfd);
	if (err)
		return err;
	for (size_t i = 0; i < others.n; i++)
		fprintf(stderr, "extprof: warning: %s%s%s: not a dump (no %s suffix), ignored\n",
			dir, dir[strlen(dir) - 1] == '/' ? "" : "/", others.v[i],
			EXTPROF_DUMP_SUFFIX);
	if (!dumps.n)
		err = xp_err_set(e, -ENOENT, "%s: no dump files (*%s) in this directory", dir,
				 EXTPROF_DUMP_SUFFIX);
	else
		err = xp_load_names(l, dir, &dumps, e);
	xp_names_free(&dumps);
	xp_names_free(&others);
	return err;
}

/* What a glob pattern matches, each a file or a directory, in name order. */
static int load_glob(struct xp_load *l, const char *pattern, struct xp_err *e)
{
	glob_t g;
	int err = 0, r = glob(pattern, GLOB_ERR, NULL, &g);

	if (r == GLOB_NOMATCH)
		return xp_err_set(e, -ENOENT,
				  "%s: no such file or directory, and no file matches it", pattern);
	if (r)
		return xp_err_set(e, r == GLOB_NOSPACE ? -ENOMEM : -EIO, "%s: %s", pattern,
				  r == GLOB_NOSPACE ? "out of memory" : "cannot be read");
	for (size_t i = 0; i < g.gl_pathc && !err; i++)
		err = xp_load_arg(l, g.gl_pathv[i], e);
	globfree(&g);
	return err;
}

int xp_load_arg(struct xp_load *l, const char *arg, struct xp_err *e)
{
	struct stat st;

	if (stat(arg, &st) < 0 && errno == ENOENT && strpbrk(arg, "*?["))
		return load_glob(l, arg, e);
	if (stat(arg, &st) < 0)
		return xp_err_set(e, -errno, "%s: %s", arg, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return load_dir(l, arg, e);
	/* A file named on the command line is the user's choice: links are followed. */
	return load_one(l, AT_FDCWD, arg, arg, false, e);
}
