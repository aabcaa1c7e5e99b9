// SPDX-License-Identifier: MIT
/*
 * report_head: what the header of a report says about the run as a whole,
 * and the check that every process counted in the same unit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "util/vec.h"
#include "report/report.h"

static bool same_counter(const struct extprof_dump_header *a, const struct extprof_dump_header *b)
{
	return a->counter == b->counter && !strcmp(a->counter_name, b->counter_name) &&
	       !strcmp(a->counter_unit, b->counter_unit);
}

/* The same executable: the same build-id, or, without build-ids, the same path. */
static bool same_exe(const struct extprof_dump_header *a, const struct extprof_dump_header *b)
{
	if (a->build_id_size || b->build_id_size)
		return a->build_id_size == b->build_id_size &&
		       !memcmp(a->build_id, b->build_id, a->build_id_size);
	return !strcmp(a->exe_path, b->exe_path);
}

static void head_first(struct xp_report *r, const struct xp_proc *p)
{
	const struct extprof_dump_header *h = &p->hdr;

	r->counter = h->counter;
	memcpy(r->counter_name, h->counter_name, sizeof(r->counter_name));
	memcpy(r->counter_unit, h->counter_unit, sizeof(r->counter_unit));
	r->deterministic = h->counter_flags & EXTPROF_COUNTER_F_DETERMINISTIC;
	r->sampled = h->counter_flags & EXTPROF_COUNTER_F_SAMPLED;
	r->translated = h->counter_flags & EXTPROF_COUNTER_F_TRANSLATED;
	r->step_first = h->step_first;
	r->step_every = h->step_every;
	r->step_limit = h->step_limit;
	r->calibration = h->calibration;
	r->calibration_max = h->calibration;
	r->calibration_settled = true;
	memcpy(r->window, h->window, sizeof(r->window));
	r->complete = true;
	r->nesting = true;
	r->start_ns = p->start_ns;
	r->end_ns = p->end_ns;
	r->attached = h->flags & EXTPROF_DUMP_F_ATTACHED;
	memcpy(r->cpu_model, h->cpu_model, sizeof(r->cpu_model));
	memcpy(r->exe_path, h->exe_path, sizeof(r->exe_path));
	xp_build_id_hex(r->build_id, h);
	r->runs = 1;
}

int xp_strv_add_once(char ***v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return 0;
	return xp_strv_appendf(v, n, "%s", s);
}

/* @pid onto the list @v (of *@n, room for *@cap) unless @seen has it: 0 or -ENOMEM. */
static int pid_list(uint64_t **v, size_t *n, size_t *cap, struct xp_u64set *seen, uint64_t pid)
{
	int fresh = xp_u64set_add(seen, pid);

	if (fresh <= 0)
		return fresh;
	if (XP_GROW(v, cap, *n, 16))
		return -ENOMEM;
	(*v)[(*n)++] = pid;
	return 0;
}

static int head_add(struct xp_report *r, const struct xp_proc *p)
{
	const struct extprof_dump_header *h = &p->hdr;
	struct xp_report_building *b = r->building;
	int err;

	if (h->calibration < r->calibration)
		r->calibration = h->calibration;
	if (h->calibration > r->calibration_max)
		r->calibration_max = h->calibration;
	if (h->resolution > r->resolution)
		r->resolution = h->resolution;
	if (!(h->counter_flags & EXTPROF_COUNTER_F_CALIBRATION_SETTLED))
		r->calibration_settled = false;
	r->processes++;
	err = pid_list(&r->pids, &r->npids, &b->cap_pids, &b->pids, p->key.pid);
	if (err)
		return err;
	r->workers += p->nworkers;
	r->threads = xp_sat_add(r->threads, p->threads);
	r->lost = xp_sat_add(r->lost, p->lost);
	/* a sampled counter (steps) measured the stepped evaluations, not the run */
	if (!r->sampled)
		r->run_total = xp_sat_add(r->run_total, p->run_total);
	if (!p->complete) {
		err = pid_list(&r->incomplete_pids, &r->nincomplete, &b->cap_incomplete,
			       &b->incomplete, p->key.pid);
		if (err)
			return err;
		r->complete = false;
	}
	if (p->start_ns && (!r->start_ns || p->start_ns < r->start_ns))
		r->start_ns = p->start_ns;
	if (p->end_ns > r->end_ns)
		r->end_ns = p->end_ns;
	if (h->callers_depth > r->callers_depth)
		r->callers_depth = h->callers_depth;
	if (h->flags & EXTPROF_DUMP_F_ATTACHED)
		r->attached = true;
	/* the nesting of hooked calls is recorded from dump format 3 on */
	if (h->version < 3)
		r->nesting = false;
	return 0;
}

/*
 * Processes on different CPU models: a deterministic counter counts the
 * same work alike on any, and they merge; a time counter does not, and
 * each model's rows are its own, unless --allow-mixed merges them, with a
 * warning.  The models are listed either way.
 */
static int head_cpu(struct xp_report *r, const struct xp_proc *first, const struct xp_proc *p,
		    unsigned *said)
{
	const struct extprof_dump_header *a = &first->hdr, *b = &p->hdr;
	int err = xp_strv_add_once(&r->cpus, &r->ncpus, b->cpu_model);

	if (err || *said & 1 || !strcmp(a->cpu_model, b->cpu_model))
		return err;
	*said |= 1;
	if (!r->opts.allow_mixed) {
		r->by_cpu = !r->deterministic;
		return 0;
	}
	return xp_strv_appendf(&r->warnings, &r->nwarnings,
			       "processes ran on different CPUs: \"%s\" (pid %" PRIu64
			       ") and \"%s\" (pid %" PRIu64 ")",
			       a->cpu_model, first->key.pid, b->cpu_model, p->key.pid);
}

/*
 * Processes of different executables measure different things: each
 * executable's rows are its own, unless --allow-mixed merges them, with a
 * warning.  Different windows are always only a warning.
 */
static int head_compare(struct xp_report *r, const struct xp_proc *first, const struct xp_proc *p,
			unsigned *said, struct xp_err *e)
{
	const struct extprof_dump_header *a = &first->hdr, *b = &p->hdr;
	bool mixed = r->opts.allow_mixed;
	char ia[65], ib[65];
	int err = head_cpu(r, first, p, said);

	if (!err && !(*said & 2) && !same_exe(a, b)) {
		*said |= 2;
		xp_build_id_hex(ia, a);
		xp_build_id_hex(ib, b);
		/* a shell and what it runs: each executable's rows of its own */
		if (!mixed) {
			r->by_exe = true;
			return 0;
		}
		err = xp_strv_appendf(
			&r->warnings, &r->nwarnings,
			"processes ran different executables: %s (build-id %s, pid %" PRIu64
			") and %s (build-id %s, pid %" PRIu64 ")",
			a->exe_path, ia, first->key.pid, b->exe_path, ib, p->key.pid);
	}
	if (!err && !(*said & 4) && strcmp(a->window, b->window)) {
		*said |= 4;
		err = xp_strv_appendf(&r->warnings, &r->nwarnings,
				      "processes used different windows: \"%s\" (pid %" PRIu64
				      ") and \"%s\" (pid %" PRIu64 ")",
				      a->window, first->key.pid, b->window, p->key.pid);
	}
	if (err)
		return xp_err_set(e, err, "out of memory");
	return 0;
}

static int head_warnings(struct xp_report *r, size_t skipped)
{
	int err = 0;

	if (skipped)
		err = xp_strv_appendf(
			&r->warnings, &r->nwarnings,
			"%zu corrupt or unreadable dump file%s skipped (named on stderr)", skipped,
			skipped == 1 ? "" : "s");
	if (!err && r->lost)
		err = xp_strv_appendf(
			&r->warnings, &r->nwarnings,
			"%" PRIu64 " evaluations could not be recorded (the shim ran out of room)",
			r->lost);
	if (!err && !r->calibration_settled)
		err = xp_strv_appendf(
			&r->warnings, &r->nwarnings,
			"the calibration did not settle: per-eval may be off by a unit or two");
	return err;
}

int xp_report_head_add(struct xp_report *r, const struct xp_proc *first, const struct xp_proc *p,
		       unsigned *said, struct xp_err *e)
{
	int err;

	if (!r->processes)
		head_first(r, first);
	if (!same_counter(&first->hdr, &p->hdr))
		return xp_err_set(e, -EINVAL,
				  "%s: counter %s (%s) does not match counter %s (%s) of %s; runs "
				  "measured with different counters cannot be merged",
				  p->workers[0].path, p->hdr.counter_name, p->hdr.counter_unit,
				  first->hdr.counter_name, first->hdr.counter_unit,
				  first->workers[0].path);
	err = head_add(r, p);
	if (!err)
		err = xp_strv_add_once(&r->exes, &r->nexes, p->hdr.exe_path);
	if (err)
		return xp_err_set(e, err, "out of memory");
	return head_compare(r, first, p, said, e);
}

int xp_report_head_end(struct xp_report *r, size_t skipped)
{
	return head_warnings(r, skipped);
}
