// SPDX-License-Identifier: MIT
/*
 * mpi: at MPI_Finalize, the dumps of every rank of the job gathered into
 * one file by rank 0, so that a job leaves one file instead of one per
 * rank and thread (parallel filesystems suffer from file counts).  The
 * shim interposes MPI_Finalize; every MPI function it calls is found at
 * run time (dlsym, their PMPI_ names, which tools that interpose MPI
 * leave alone), so nothing of MPI is linked into the shim and a program
 * without MPI never comes here.  The handles are Open MPI's (a
 * communicator, a datatype: pointers to its predefined objects); under
 * another MPI the ranks keep their own dumps, as they do with
 * EXTPROF_MPI=0.
 *
 *   every rank                              rank 0
 *   finish its dumps, as at exit            (the same)
 *   Comm_idup(WORLD)         ─────────────
 *   Igather(its part's size) ─────────────▶ sizes: go, unless > 2 GB
 *   Ibcast(go)               ◀─────────────
 *   Igatherv(its part)       ─────────────▶ write DIR/...job.xpd, renamed whole
 *   Ibcast(written)          ◀─────────────
 *   written: remove its own files
 *
 * Bounded: each step is a non-blocking collective, tested until
 * EXTPROF_MPI_TIMEOUT seconds (default 60) after the rank entered
 * MPI_Finalize, and abandoned past it (a blocking collective could not be
 * left); a rank that gives up keeps its files, and the analyzer reads a
 * rank's dumps once when both its files and the job's hold them.  The
 * buffers of an abandoned collective are never freed: MPI may still write
 * into them.  A rank that died before MPI_Finalize leaves its live dumps;
 * the others time out, keep theirs, and call the real MPI_Finalize (which
 * Open MPI, unless --enable-recovery, never lets them reach: mpirun ends
 * the job when a rank dies, and their live dumps hold what they counted).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/interpose.h"
#include "core/log.h"
#include "store/mpi_job.h"
#include "core/state.h"
#include "host/init.h"

#define XP_EXPORT	    __attribute__((visibility("default")))
#define MPI_TIMEOUT_DEFAULT 60

/* Open MPI's handles: pointers to its objects (mpi.h's MPI_Comm, MPI_Request...). */
typedef void *mpi_handle;

struct mpi_api {
	int (*initialized)(int *flag);
	int (*finalized)(int *flag);
	int (*comm_idup)(mpi_handle comm, mpi_handle *out, mpi_handle *req);
	int (*comm_rank)(mpi_handle comm, int *rank);
	int (*comm_size)(mpi_handle comm, int *size);
	int (*igather)(const void *sbuf, int scount, mpi_handle stype, void *rbuf, int rcount,
		       mpi_handle rtype, int root, mpi_handle comm, mpi_handle *req);
	int (*igatherv)(const void *sbuf, int scount, mpi_handle stype, void *rbuf,
			const int *rcounts, const int *displs, mpi_handle rtype, int root,
			mpi_handle comm, mpi_handle *req);
	int (*ibcast)(void *buf, int count, mpi_handle type, int root, mpi_handle comm,
		      mpi_handle *req);
	int (*test)(mpi_handle *req, int *flag, void *status);
	mpi_handle world; /* MPI_COMM_WORLD */
	mpi_handle byte;  /* MPI_BYTE */
};

/* The functions and handles, found in the process: 0, or -ENOSYS (not Open MPI's). */
static int mpi_find(struct mpi_api *m)
{
	static const char *const names[] = {
		"PMPI_Initialized", "PMPI_Finalized",	   "PMPI_Comm_idup", "PMPI_Comm_rank",
		"PMPI_Comm_size",   "PMPI_Igather",	   "PMPI_Igatherv",  "PMPI_Ibcast",
		"PMPI_Test",	    "ompi_mpi_comm_world", "ompi_mpi_byte",
	};
	void **slots[] = {
		(void **)&m->initialized,
		(void **)&m->finalized,
		(void **)&m->comm_idup,
		(void **)&m->comm_rank,
		(void **)&m->comm_size,
		(void **)&m->igather,
		(void **)&m->igatherv,
		(void **)&m->ibcast,
		(void **)&m->test,
		&m->world,
		&m->byte,
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*slots[i] = dlsym(RTLD_DEFAULT, names[i])))
			return -ENOSYS;
	return 0;
}

/* The monotonic clock, in ns. */
static int64_t mpi_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Test @req until it completes (0) or @deadline passes (-ETIMEDOUT): never blocks in MPI. */
static int mpi_wait(const struct mpi_api *m, mpi_handle *req, int64_t deadline)
{
	const struct timespec pause = {0, 500000};
	int done = 0;

	for (;;) {
		if (m->test(req, &done, NULL))
			return -EIO;
		if (done)
			return 0;
		if (mpi_now() > deadline)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}

/* EXTPROF_MPI_TIMEOUT in ns: whole seconds from 1 to 86400. */
static int64_t mpi_timeout(void)
{
	const char *v = getenv("EXTPROF_MPI_TIMEOUT");
	char *end;
	long s;

	if (!v || !*v)
		return (int64_t)MPI_TIMEOUT_DEFAULT * 1000000000;
	s = strtol(v, &end, 10);
	if (*end || s < 1 || s > 86400) {
		log_msg("EXTPROF_MPI_TIMEOUT=%s: not a number of seconds from 1 to 86400; %d", v,
			MPI_TIMEOUT_DEFAULT);
		s = MPI_TIMEOUT_DEFAULT;
	}
	return (int64_t)s * 1000000000;
}

/*
 * One job's gathering: what the steps share.  Every buffer a collective
 * reads or writes is here (the communicator Comm_idup writes, the size
 * Igather sends, the flags Ibcast writes), in one static run, never on a
 * stack: a collective abandoned at the timeout may still complete in the
 * real MPI_Finalize, and must find its buffer where it left it.
 */
struct mpi_run {
	const struct mpi_api *m;
	int64_t deadline;
	mpi_handle comm;
	int rank, size;
	uint64_t mine;	  /* this rank's part's size, sent to rank 0 */
	char go, written; /* rank 0's word to every rank */
	void *part;	  /* this rank's part */
	size_t part_size;
	int *counts, *displs; /* rank 0's: each part's size and place */
	char *all;	      /* rank 0's: every part */
	char path[4096];      /* rank 0's: the job's file */
};

/* Step 2 of the picture: the parts' sizes to rank 0, and whether all fit (go). */
static int mpi_sizes(struct mpi_run *r, char *go)
{
	const struct mpi_api *m = r->m;
	uint64_t *sizes = NULL, total = 0;
	mpi_handle req;
	int err;

	r->mine = r->part_size;
	if (!r->rank && !(sizes = mpi_map((size_t)r->size * sizeof(*sizes))))
		return -ENOMEM;
	if (m->igather(&r->mine, sizeof(r->mine), m->byte, sizes, sizeof(r->mine), m->byte, 0,
		       r->comm, &req))
		return -EIO;
	err = mpi_wait(m, &req, r->deadline);
	if (err || r->rank)
		return err;
	r->counts = mpi_map((size_t)r->size * sizeof(int));
	r->displs = mpi_map((size_t)r->size * sizeof(int));
	if (!r->counts || !r->displs)
		return -ENOMEM;
	for (int i = 0; i < r->size; i++) {
		if (sizes[i] > INT_MAX || total + sizes[i] > INT_MAX) {
			*go = 0;
			return 0;
		}
		r->counts[i] = (int)sizes[i];
		r->displs[i] = (int)total;
		total += sizes[i];
	}
	r->all = mpi_map((size_t)total);
	*go = r->all != NULL;
	return 0;
}

/* Rank 0's @flag to every rank: 0, or the step's failure. */
static int mpi_say(struct mpi_run *r, char *flag)
{
	mpi_handle req;

	if (r->m->ibcast(flag, 1, r->m->byte, 0, r->comm, &req))
		return -EIO;
	return mpi_wait(r->m, &req, r->deadline);
}

/* The steps after finishing the dumps: 0 when the job's file holds this rank's dumps. */
static int mpi_gather(struct mpi_run *r, const char **why)
{
	const struct mpi_api *m = r->m;
	bool sent;
	mpi_handle req;
	int err;

	r->go = 1;
	r->written = 0;
	*why = "the ranks did not join in";
	if (m->comm_idup(m->world, &r->comm, &req) || mpi_wait(m, &req, r->deadline))
		return -ETIMEDOUT;
	m->comm_rank(r->comm, &r->rank);
	m->comm_size(r->comm, &r->size);
	/* a rank that cannot send its dumps sends none: the others go on, it keeps its files */
	sent = !mpi_part_make(&r->part, &r->part_size, (uint32_t)r->rank);
	*why = "the ranks' sizes did not gather";
	err = mpi_sizes(r, &r->go);
	if (!err) {
		*why = "rank 0 did not say whether to go on";
		err = mpi_say(r, &r->go);
	}
	if (!err && !r->go) {
		*why = "their dumps are more than 2 GB, or rank 0 had no room for them";
		err = -E2BIG;
	}
	if (err)
		return err;
	*why = "the ranks' dumps did not gather";
	if (m->igatherv(r->part, (int)r->part_size, m->byte, r->all, r->counts, r->displs, m->byte,
			0, r->comm, &req) ||
	    mpi_wait(m, &req, r->deadline))
		return -ETIMEDOUT;
	if (!r->rank) {
		err = mpi_job_write(r->all, r->counts, r->displs, r->size, (uint32_t)r->size,
				    r->path, sizeof(r->path));
		r->written = !err;
		if (err)
			log_msg("MPI_Finalize: cannot write the job's file %s: %s", r->path,
				log_strerror(-err));
	}
	*why = "rank 0 did not say whether it wrote the job's file";
	err = mpi_say(r, &r->written);
	if (!err && !r->written) {
		*why = "rank 0 could not write the job's file";
		err = -EIO;
	}
	if (!err && !sent) {
		*why = "this rank could not read its own dumps back";
		err = -EIO;
	}
	return err;
}

/*
 * EXTPROF_MPI: unset or 1, the job's dumps gathered; keep, gathered and
 * each rank's kept too; 0, each rank keeps its own.  Only where something
 * is profiled: the shim was told what to hook.
 */
static int mpi_mode(void)
{
	const char *v = getenv("EXTPROF_MPI"), *hooks = getenv("EXTPROF_HOOKS");
	const char *spec = getenv("EXTPROF_SPEC");

	if ((!hooks || !*hooks) && (!spec || !*spec))
		return 0;
	if (!v || !*v || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "keep"))
		return 2;
	if (strcmp(v, "0"))
		log_msg("EXTPROF_MPI=%s: not 0, 1 or keep; each rank keeps its own dumps", v);
	return 0;
}

/* The job's dumps gathered into one file, before the real MPI_Finalize. */
static void mpi_finish_job(void)
{
	/* static: see struct mpi_run (MPI_Finalize is called once, by one thread) */
	static struct mpi_api m;
	static struct mpi_run r;
	const char *why = "";
	int mode = mpi_mode(), flag = 0;

	/* (a vfork child's MPI_Finalize is not this process's) */
	if (!mode || (xp.enabled && (uint64_t)getpid() != xp.meta.pid) || mpi_find(&m))
		return;
	if (m.initialized(&flag) || !flag || m.finalized(&flag) || flag)
		return;
	r.m = &m;
	/* the launcher's rank says who speaks until MPI's own is known */
	r.rank = xp.meta.job_size ? (int)xp.meta.rank : -1;
	r.deadline = mpi_now() + mpi_timeout();
	/* the rank's counts end here, as at exit: its dumps compact and complete */
	if (xp.enabled && !xp.finished)
		init_finish_here();
	if (mpi_gather(&r, &why)) {
		log_msg("MPI_Finalize: rank %d: %s within EXTPROF_MPI_TIMEOUT; it keeps its own "
			"dumps",
			r.rank, why);
		return;
	}
	if (mode == 1)
		mpi_job_unlink_own();
	if (!r.rank)
		log_msg("MPI_Finalize: the dumps of %d ranks are in %s", r.size, r.path);
}

enum { MPI_FINALIZE, MPI_N };
static const char *const mpi_names[MPI_N] = {"MPI_Finalize"};
static void *mpi_cache[MPI_N];
static const struct interpose_table mpi_reals = {mpi_names, mpi_cache, MPI_N};

XP_EXPORT int MPI_Finalize(void)
{
	int (*real)(void) = (int (*)(void))interpose_real(&mpi_reals, MPI_FINALIZE);

	if (!real)
		real = (int (*)(void))dlsym(RTLD_DEFAULT, "PMPI_Finalize");
	mpi_finish_job();
	return real ? real() : 0;
}
