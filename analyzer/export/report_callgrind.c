// SPDX-License-Identifier: MIT
/*
 * report_callgrind: the report in the format callgrind writes, for
 * callgrind_annotate and KCachegrind.  Cost is the first event (what both
 * sort by and open on), then Evaluations and Observed.  The stacks every
 * export draws (stacks.c) become one fn= per function, in ob= its object
 * (the executable by its path), with its self cost at line 0 ("positions:
 * line", no source files: fl=???), and an arc from each frame to each
 * frame drawn under it, with the inclusive cost of what lies there:
 *
 *   fn=(3) BZ2_compressBlock           <- its self: what it did outside
 *   0 19639260 4 377670310                BZ2_blockSort
 *   cfn=(4) BZ2_blockSort
 *   calls=4 0                          <- blockSort's evaluations inside it
 *   0 80784428 4 694556964             <- their cost, evaluations, observed
 *
 * So a function's inclusive cost is its cost in the report, and the
 * totals, with "(not hooked)" for what no hooked function took, are the
 * run total: every percentage is the report's share.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "export/export.h"
#include "util/num.h"
#include "util/vec.h"
#include "report/report.h"

#ifndef EXTPROF_VERSION
#define EXTPROF_VERSION "unknown"
#endif

#define CG_EVENTS XP_STACK_VALUES /* Cost Evaluations Observed */

struct cg_node {
	size_t obj; /* id in the object table */
	uint64_t self[CG_EVENTS];
	bool has_self;
	bool named; /* "fn=(id) name" written once; "fn=(id)" after */
};

struct cg_arc {
	size_t from, to; /* node ids: the key */
	uint64_t calls;	 /* of a declaration: its evaluations drawn there, exact */
	bool exact;	 /* else at least once, how often not recorded */
	uint64_t incl[CG_EVENTS];
	UT_hash_handle hh;
};

struct cg {
	const struct xp_report *r;
	struct xp_intern fns;  /* "function\x1fobject" */
	struct xp_intern objs; /* object names as written */
	struct cg_node *nodes; /* nodes[id - 1] */
	size_t cap;
	struct cg_arc *arcs;
	struct xp_stacks stacks;
	bool *obj_named;
	const char *exe_base;
};

/* A name on one line: control characters as '?', nothing as "???". */
static void cg_name(FILE *out, const char *s, size_t n)
{
	if (!n) {
		fputs("???", out);
		return;
	}
	for (size_t i = 0; i < n; i++)
		fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], out);
}

/* The node of function @fn in object @obj, made when new: its id, or 0. */
static size_t cg_node(struct cg *g, const char *fn, size_t fn_len, const char *obj, size_t obj_len)
{
	bool fresh;
	size_t id = xp_intern2(&g->fns, fn, fn_len, obj, obj_len, &fresh), o;

	if (!id || !fresh)
		return id;
	/* ids are handed out in turn: node id - 1 is the next one */
	if (XP_GROW(&g->nodes, &g->cap, id - 1, 64))
		return 0;
	/* the executable by its path, so that KCachegrind can find it */
	if (g->exe_base && obj_len == strlen(g->exe_base) && !memcmp(obj, g->exe_base, obj_len))
		o = xp_intern(&g->objs, g->r->exe_path, strlen(g->r->exe_path), &fresh);
	else
		o = xp_intern(&g->objs, obj, obj_len, &fresh);
	if (!o)
		return 0;
	memset(&g->nodes[id - 1], 0, sizeof(g->nodes[id - 1]));
	g->nodes[id - 1].obj = o;
	return id;
}

/* Add to the arc @from -> @to: @calls when @exact, and @incl. */
static int cg_arc(struct cg *g, size_t from, size_t to, bool exact, uint64_t calls,
		  const uint64_t incl[CG_EVENTS])
{
	struct cg_arc key = {.from = from, .to = to}, *a;

	HASH_FIND(hh, g->arcs, &key.from, 2 * sizeof(size_t), a);
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a)
			return -ENOMEM;
		a->from = from;
		a->to = to;
		HASH_ADD(hh, g->arcs, from, 2 * sizeof(size_t), a);
	}
	if (exact) {
		a->calls = xp_sat_add(a->calls, calls);
		a->exact = true;
	}
	for (int e = 0; e < CG_EVENTS; e++)
		a->incl[e] = xp_sat_add(a->incl[e], incl[e]);
	return 0;
}

static int cg_build(struct cg *g)
{
	struct xp_stacks *st = &g->stacks;
	size_t *fn_of;
	int err = xp_stacks_build(st, g->r);

	if (err)
		return err;
	fn_of = calloc(st->n + 1, sizeof(*fn_of));
	if (!fn_of)
		return -ENOMEM;
	for (size_t i = 1; i < st->n && !err; i++) {
		const struct xp_stack_node *x = &st->v[i];
		struct cg_node *n;

		fn_of[i] = cg_node(g, x->fn, x->fn_len, x->obj, x->obj_len);
		if (!fn_of[i]) {
			err = -ENOMEM;
			break;
		}
		n = &g->nodes[fn_of[i] - 1];
		n->has_self = true;
		for (int e = 0; e < CG_EVENTS; e++)
			n->self[e] = xp_sat_add(n->self[e], x->self[e]);
		if (x->parent)
			err = cg_arc(g, fn_of[x->parent], fn_of[i], x->row >= 0,
				     x->self[XP_STACK_EVALUATIONS], x->total);
	}
	free(fn_of);
	return err;
}

static void cg_spec(FILE *out, const char *spec, struct xp_intern *t, size_t id, bool *named)
{
	const struct xp_intern_entry *e = t->v[id - 1];
	const char *sep = memchr(e->s, 0x1f, e->len);

	fprintf(out, "%s=(%zu)", spec, id);
	if (*named) {
		fputc('\n', out);
		return;
	}
	*named = true;
	fputc(' ', out);
	cg_name(out, e->s, sep ? (size_t)(sep - e->s) : e->len);
	fputc('\n', out);
}

static void cg_costs(FILE *out, const uint64_t v[CG_EVENTS])
{
	fprintf(out, "0 %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", v[XP_STACK_COST],
		v[XP_STACK_EVALUATIONS], v[XP_STACK_OBSERVED]);
}

static void cg_header(FILE *out, const struct xp_report *r, const uint64_t totals[CG_EVENTS])
{
	uint64_t summary[CG_EVENTS];

	/* percentages of the run total, as the report's share, where it covers them */
	memcpy(summary, totals, sizeof(summary));
	if (r->run_total > summary[XP_STACK_COST])
		summary[XP_STACK_COST] = r->run_total;
	if (r->run_total > summary[XP_STACK_OBSERVED])
		summary[XP_STACK_OBSERVED] = r->run_total;
	fputs("# callgrind format\nversion: 1\ncreator: extprof " EXTPROF_VERSION "\n", out);
	if (r->processes)
		fprintf(out, "pid: %" PRIu64 "\n", r->pids[0]);
	fputs("cmd: ", out);
	cg_name(out, r->exe_path, strlen(r->exe_path));
	fputs("\npart: 1\ndesc: Counter: ", out);
	cg_name(out, r->counter_name, strlen(r->counter_name));
	fputs(" (", out);
	cg_name(out, r->counter_unit, strlen(r->counter_unit));
	fprintf(out, "), %s\n", r->deterministic ? "deterministic" : "not deterministic");
	fprintf(out,
		"desc: Calibration: %" PRIu64 " per evaluation, subtracted\n"
		"desc: Processes: %zu, %zu workers, %s\n"
		"desc: Per-eval: %s, less calibration; Cost: per-eval x evaluations\n"
		"desc: Run total: %" PRIu64 "; " XP_STACK_NOT_HOOKED
		": what no hooked function took\n"
		"desc: Trigger: extprof report\n"
		"positions: line\n",
		r->calibration, r->processes, r->workers, r->complete ? "complete" : "incomplete",
		xp_stat_name(r->opts.stat), r->run_total);
	fputs("event: Cost : cost (", out);
	cg_name(out, r->counter_unit, strlen(r->counter_unit));
	fputs("): per-eval x evaluations\n"
	      "event: Evaluations : evaluations (completed calls)\n"
	      "event: Observed : observed (",
	      out);
	cg_name(out, r->counter_unit, strlen(r->counter_unit));
	fputs("): sum of deltas less calibration\nevents: Cost Evaluations Observed\n", out);
	fprintf(out, "summary: %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", summary[XP_STACK_COST],
		summary[XP_STACK_EVALUATIONS], summary[XP_STACK_OBSERVED]);
}

static int cg_arc_cmp(const struct cg_arc *a, const struct cg_arc *b)
{
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

static void cg_write(FILE *out, struct cg *g)
{
	uint64_t totals[CG_EVENTS] = {0};
	struct cg_arc *a;

	for (size_t i = 0; i < g->fns.n; i++)
		for (int e = 0; e < CG_EVENTS; e++)
			totals[e] = xp_sat_add(totals[e], g->nodes[i].self[e]);
	cg_header(out, g->r, totals);
	fputs("\nfl=(1) ???\n", out);
	/* the arcs grouped by caller, the callers in the order their nodes were made */
	HASH_SRT(hh, g->arcs, cg_arc_cmp);
	a = g->arcs;
	for (size_t id = 1; id <= g->fns.n; id++) {
		struct cg_node *n = &g->nodes[id - 1];

		if (!n->has_self && !(a && a->from == id))
			continue;
		fputc('\n', out);
		cg_spec(out, "ob", &g->objs, n->obj, &g->obj_named[n->obj - 1]);
		cg_spec(out, "fn", &g->fns, id, &n->named);
		if (n->has_self)
			cg_costs(out, n->self);
		for (; a && a->from == id; a = a->hh.next) {
			struct cg_node *to = &g->nodes[a->to - 1];

			if (to->obj != n->obj)
				cg_spec(out, "cob", &g->objs, to->obj, &g->obj_named[to->obj - 1]);
			cg_spec(out, "cfn", &g->fns, a->to, &to->named);
			fprintf(out, "calls=%" PRIu64 " 0\n", a->exact ? a->calls : 1);
			cg_costs(out, a->incl);
		}
	}
	fprintf(out, "\ntotals: %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", totals[XP_STACK_COST],
		totals[XP_STACK_EVALUATIONS], totals[XP_STACK_OBSERVED]);
}

static void cg_free(struct cg *g)
{
	struct cg_arc *a, *tmp;

	HASH_ITER(hh, g->arcs, a, tmp)
	{
		HASH_DEL(g->arcs, a);
		free(a);
	}
	xp_stacks_free(&g->stacks);
	xp_intern_free(&g->fns);
	xp_intern_free(&g->objs);
	free(g->nodes);
	free(g->obj_named);
}

int xp_report_callgrind(const struct xp_report *r, FILE *out)
{
	struct cg g = {.r = r};
	const char *slash = strrchr(r->exe_path, '/');
	int err;

	g.exe_base = r->exe_path[0] ? (slash ? slash + 1 : r->exe_path) : NULL;
	err = cg_build(&g);
	if (!err) {
		g.obj_named = calloc(g.objs.n + 1, sizeof(*g.obj_named));
		if (!g.obj_named)
			err = -ENOMEM;
	}
	if (!err)
		cg_write(out, &g);
	cg_free(&g);
	return err;
}
