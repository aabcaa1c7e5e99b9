// SPDX-License-Identifier: MIT
/*
 * report_stream: a report made a process at a time.  Each process, once
 * its dumps are all read, is finalized with its own calibration into the
 * rows (a row per declaration, executable, CPU model and --by group) and
 * counted into the header; then it may be freed.  So what a report holds
 * while thousands of dumps are read is its rows, not the processes:
 *
 *   dumps ──read──▶ process (workers merged) ──finalize──▶ rows ──end──▶ report
 *                    freed once added                       merged where shown together
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "util/num.h"
#include "util/vec.h"
#include "model/load.h"
#include "report/report.h"

void xp_report_begin(struct xp_report *r, const struct xp_report_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->opts = *o;
}

/* Keep what the header compares every later process with: the first one's header and name. */
static int keep_first(struct xp_report_building *b, const struct xp_proc *p)
{
	b->first = *p;
	b->first.decls = NULL;
	b->first.ndecls = 0;
	b->first.nworkers = 1;
	memset(&b->first.hh, 0, sizeof(b->first.hh));
	b->first.workers = calloc(1, sizeof(*b->first.workers));
	if (!b->first.workers)
		return -ENOMEM;
	b->first.workers[0] = p->workers[0];
	b->first.workers[0].path = strdup(p->workers[0].path);
	return b->first.workers[0].path ? 0 : -ENOMEM;
}

/* Process @p's group (--by): its label, listed when new, and its run total counted. */
static int group_add(struct xp_report *r, const char *label, const struct xp_proc *p)
{
	struct xp_report_building *b = r->building;
	struct xp_group_index *g;

	HASH_FIND_STR(b->groups, label, g);
	if (!g) {
		g = calloc(1, sizeof(*g));
		if (!g || XP_GROW(&r->group_totals, &b->cap_groups, r->ngroups, 8) ||
		    xp_strv_appendf(&r->groups, &r->ngroups, "%s", label) ||
		    !(g->label = strdup(label))) {
			free(g);
			return -ENOMEM;
		}
		g->at = r->ngroups - 1;
		r->group_totals[g->at] = 0;
		HASH_ADD_KEYPTR(hh, b->groups, g->label, strlen(g->label), g);
	}
	/* a sampled counter (steps) measured the stepped evaluations, not the run */
	if (!r->sampled)
		r->group_totals[g->at] = xp_sat_add(r->group_totals[g->at], p->run_total);
	return 0;
}

int xp_report_add(struct xp_report *r, const struct xp_proc *p, struct xp_err *e)
{
	struct xp_report_building *b = r->building;
	char label[XP_GROUP_LABEL];
	const char *group = NULL;
	int err;

	if (!b) {
		b = r->building = calloc(1, sizeof(*b));
		if (!b || keep_first(b, p))
			return xp_err_set(e, -ENOMEM, "out of memory");
	}
	err = xp_report_head_add(r, &b->first, p, &b->said, e);
	if (err)
		return err;
	if (r->opts.by != XP_BY_NONE)
		group = xp_group_label(label, sizeof(label), p, r->opts.by);
	err = group ? group_add(r, group, p) : 0;
	if (!err)
		err = xp_report_rows_add(r, &b->rows, p, group);
	if (err)
		return xp_err_set(e, err, "out of memory");
	return 0;
}

int xp_report_end(struct xp_report *r, size_t skipped, struct xp_err *e)
{
	int err;

	if (!r->building || !r->processes) {
		xp_report_free(r);
		return xp_err_set(e, -ENOENT, "no dumps to report on");
	}
	err = xp_report_head_end(r, skipped);
	if (!err)
		err = xp_report_rows_settle(r, &r->building->rows);
	for (size_t i = 0; !err && i < r->nrows; i++) {
		struct xp_group_index *g = NULL;

		if (r->rows[i].group)
			HASH_FIND_STR(r->building->groups, r->rows[i].group, g);
		r->rows[i].group_at = g ? (ssize_t)g->at : -1;
	}
	xp_report_building_free(r);
	if (err) {
		xp_report_free(r);
		return xp_err_set(e, err, "out of memory");
	}
	return 0;
}

int xp_report_build(struct xp_report *r, const struct xp_procset *s, const struct xp_report_opts *o,
		    size_t skipped, struct xp_err *e)
{
	int err = 0;

	xp_report_begin(r, o);
	for (size_t i = 0; i < s->n && !err; i++)
		err = xp_report_add(r, s->list[i], e);
	if (err) {
		xp_report_free(r);
		return err;
	}
	return xp_report_end(r, skipped, e);
}

/* One process of the load into report @arg. */
static int report_sink(void *arg, const struct xp_proc *p, struct xp_err *e)
{
	return xp_report_add(arg, p, e);
}

void xp_report_stream(struct xp_report *r, struct xp_load *l, const struct xp_report_opts *o)
{
	xp_report_begin(r, o);
	xp_load_stream(l, report_sink, r);
}

int xp_report_stream_end(struct xp_report *r, struct xp_load *l, struct xp_err *e)
{
	int err = xp_load_finish(l, e);

	if (err) {
		xp_report_free(r);
		return err;
	}
	return xp_report_end(r, l->skipped, e);
}
