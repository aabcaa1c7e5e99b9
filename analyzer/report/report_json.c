// SPDX-License-Identifier: MIT
/*
 * report_json: the JSON report, whose keys keep their names, types and
 * meaning from one version to the next (docs/json.md lists them all).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "util/json_out.h"
#include "report/nest.h"
#include "report/report.h"

static void json_counter(struct xp_json *j, const struct xp_report *r)
{
	xp_json_key_begin(j, "counter", '{');
	xp_json_key_str(j, "name", r->counter_name);
	xp_json_key_str(j, "unit", r->counter_unit);
	xp_json_key_bool(j, "deterministic", r->deterministic);
	/* additions, docs/json.md: steps, only */
	if (r->translated)
		xp_json_key_str(j, "engine", "translate");
	if (r->sampled) {
		xp_json_key_str(j, "engine", "trap");
		xp_json_key_bool(j, "sampled", true);
		xp_json_key_u64(j, "step_first", r->step_first);
		xp_json_key_u64(j, "step_every", r->step_every);
		xp_json_key_u64(j, "step_limit", r->step_limit);
	}
	xp_json_end(j, '}');
}

void xp_report_json_source(struct xp_json *j, const struct xp_report *r)
{
	json_counter(j, r);
	xp_json_key_u64(j, "calibration", r->calibration);
	xp_json_key_u64(j, "processes", r->processes);
	xp_json_key_u64(j, "workers", r->workers);
}

/* "attached": {"from_ns", "to_ns"} for extprof attach's window, else null. */
static void json_attached(struct xp_json *j, const struct xp_report *r)
{
	xp_json_key(j, "attached");
	if (!r->attached) {
		xp_json_null(j);
		return;
	}
	xp_json_begin(j, '{');
	xp_json_key_u64(j, "from_ns", r->start_ns > 0 ? (uint64_t)r->start_ns : 0);
	xp_json_key_u64(j, "to_ns", r->end_ns > 0 ? (uint64_t)r->end_ns : 0);
	xp_json_end(j, '}');
}

static void json_head(struct xp_json *j, const struct xp_report *r)
{
	xp_report_json_source(j, r);
	xp_json_key_bool(j, "complete", r->complete);
	xp_json_key_u64(j, "run_total", r->run_total);
	/* additions, docs/json.md */
	xp_json_key_u64(j, "calibration_max", r->calibration_max);
	xp_json_key_u64(j, "resolution", r->resolution);
	xp_json_key_u64(j, "step", r->step);
	xp_json_key_str(j, "stat", xp_stat_name(r->opts.stat));
	xp_json_key_double(j, "flag_ratio", r->opts.flag_ratio);
	xp_json_key_u64(j, "threads", r->threads);
	xp_json_key_u64(j, "lost", r->lost);
	xp_json_key_str(j, "window", r->window[0] ? r->window : NULL);
	json_attached(j, r);
	xp_json_key_u64s(j, "pids", r->pids, r->npids);
	if (r->by_exe)
		xp_json_key_strs(j, "executables", r->exes, r->nexes);
	xp_json_key_u64s(j, "incomplete_pids", r->incomplete_pids, r->nincomplete);
	xp_json_key_u64(j, "callers_depth", r->callers_depth);
	xp_json_key_u64(j, "runs", r->runs);
	xp_json_key_u64(j, "warmup", r->warmup);
	xp_json_key_strs(j, "warnings", r->warnings, r->nwarnings);
	xp_json_key_bool(j, "nesting", r->nesting);
	xp_json_key_strs(j, "cpu_models", r->cpus, r->ncpus);
	xp_json_key_bool(j, "by_cpu", r->by_cpu);
	xp_json_key_str(j, "by", xp_by_name(r->opts.by));
	if (r->opts.by != XP_BY_NONE) {
		xp_json_key_strs(j, "groups", r->groups, r->ngroups);
		xp_json_key_u64s(j, "group_run_totals", r->group_totals, r->ngroups);
	}
}

/* {"host": "alpha", "pid": 1234, "rank": 3 or null} */
static void json_who(struct xp_json *j, const char *key, const struct xp_who *w)
{
	xp_json_key_begin(j, key, '{');
	xp_json_key_str(j, "host", w->host);
	xp_json_key_u64(j, "pid", w->pid);
	xp_json_key(j, "rank");
	if (w->rank < 0)
		xp_json_null(j);
	else
		xp_json_u64(j, (uint64_t)w->rank);
	xp_json_end(j, '}');
}

/* "least", "median", "greatest" of one figure over the processes, and who had the ends. */
static void json_spread_of(struct xp_json *j, const char *key, const struct xp_vhist *v,
			   const struct xp_spread_end *lo, const struct xp_spread_end *hi)
{
	xp_json_key_begin(j, key, '{');
	xp_json_key_u64(j, "least", lo->value);
	xp_json_key_u64(j, "median", xp_spread_median(v));
	xp_json_key_u64(j, "greatest", hi->value);
	json_who(j, "least_at", &lo->who);
	json_who(j, "greatest_at", &hi->who);
	xp_json_end(j, '}');
}

/* "spread": how the declaration's figures spread over its processes (docs/json.md). */
static void json_spread(struct xp_json *j, const struct xp_report *r, const struct xp_row *row)
{
	const struct xp_spread *s = &row->spread;
	uint64_t margin;

	xp_spread_imbalance(row, r, &margin);
	xp_json_key_begin(j, "spread", '{');
	xp_json_key_u64(j, "processes", s->processes);
	xp_json_key_u64(j, "measured", s->measured);
	if (s->measured) {
		json_spread_of(j, "per_eval", &s->per_eval, &s->per_eval_lo, &s->per_eval_hi);
		xp_json_key_num(j, "per_eval_margin",
				margin == XP_MARGIN_UNJUDGED ? NAN : (double)margin);
	}
	json_spread_of(j, "evaluations", &s->evaluations, &s->evaluations_lo, &s->evaluations_hi);
	xp_json_key_bool(j, "ranks", s->ranks);
	xp_json_end(j, '}');
}

/* "self_cost", "self_observed", "inside": [{kind, name, object, evaluations, cost, observed}] */
static void json_nesting(struct xp_json *j, const struct xp_report *r, const struct xp_nest *n)
{
	xp_json_key_u64(j, "self_cost", n->self_cost);
	xp_json_key_u64(j, "self_observed", n->self_observed);
	xp_json_key_begin(j, "inside", '[');
	for (size_t k = 0; k < n->nparts; k++) {
		const struct xp_nest_part *p = &n->parts[k];

		if (p->parent < 0)
			continue;
		xp_json_begin(j, '{');
		xp_json_key_str(j, "kind", r->rows[p->parent].kind);
		xp_json_key_str(j, "name", r->rows[p->parent].symbol);
		xp_json_key_str(j, "object", r->rows[p->parent].object);
		xp_json_key_u64(j, "evaluations", p->evaluations);
		xp_json_key_u64(j, "cost", p->cost);
		xp_json_key_u64(j, "observed", p->observed);
		xp_json_end(j, '}');
	}
	xp_json_end(j, ']');
}

/* {"chain": ["search+0x1d@checker", ...], "evaluations": ...}; "other" has chain []. */
static void json_chains(struct xp_json *j, const struct xp_row *row)
{
	xp_json_key_begin(j, "callers", '[');
	for (size_t i = 0; i < row->nchains; i++) {
		const struct xp_chain *c = row->chains[i];

		xp_json_begin(j, '{');
		xp_json_key_begin(j, "chain", '[');
		for (const char *f = c->depth ? c->key : NULL; f; f = xp_chain_next(c, f))
			xp_json_str(j, f);
		xp_json_end(j, ']');
		xp_json_key_u64(j, "evaluations", c->evaluations);
		xp_json_key_u64(j, "per_eval", c->per_eval);
		xp_json_key_u64(j, "cost", c->cost);
		xp_json_key_u64(j, "observed", c->sum);
		xp_json_key_bool(j, "settled", c->settled);
		xp_json_key_u64(j, "hits", c->hits);
		xp_json_end(j, '}');
	}
	xp_json_end(j, ']');
}

static void json_flags(struct xp_json *j, unsigned flags)
{
	xp_json_key_begin(j, "flags", '[');
	for (int f = 0; f < XP_NFLAGS; f++)
		if (flags & (1u << f))
			xp_json_str(j, xp_flag_names[f]);
	xp_json_end(j, ']');
}

static void json_row(struct xp_json *j, const struct xp_report *r, size_t i,
		     const struct xp_nest *nest)
{
	const struct xp_row *row = &r->rows[i];
	bool callers = r->callers_depth > 0, sampled = r->sampled, translated = r->translated;

	xp_json_begin(j, '{');
	xp_json_key_str(j, "kind", row->kind);
	xp_json_key_str(j, "name", row->symbol);
	xp_json_key_str(j, "object", row->object);
	if (row->exe)
		xp_json_key_str(j, "executable", row->exe);
	if (row->cpu)
		xp_json_key_str(j, "cpu_model", row->cpu);
	if (row->group)
		xp_json_key_str(j, "group", row->group);
	xp_json_key_u64(j, "evaluations", row->fin.evaluations);
	xp_json_key_u64(j, "per_eval", row->per_eval);
	xp_json_key_u64(j, "cost", row->cost);
	xp_json_key_double(j, "share", row->share);
	xp_json_key_u64(j, "observed", row->fin.observed);
	xp_json_key_bool(j, "settled", row->settled);
	xp_json_key_u64(j, "recursive", row->fin.recursive);
	xp_json_key_u64(j, "abandoned", row->fin.abandoned);
	xp_json_key_u64(j, "outside", row->fin.outside);
	xp_json_key_u64(j, "p50", row->p50);
	xp_json_key_u64(j, "p99", row->p99);
	json_flags(j, row->flags);
	/* additions */
	xp_json_key_u64(j, "hits", row->fin.hits);
	xp_json_key_double(j, "observed_share", row->observed_share);
	xp_json_key_u64(j, "negative", row->fin.negative);
	if (sampled)
		xp_json_key_u64(j, "stepped", row->fin.samples);
	if (translated)
		xp_json_key_u64(j, "not_whole", row->fin.evaluations - row->fin.samples);
	xp_json_key_u64(j, "histogram_lost", row->fin.hist_lost);
	if (callers)
		json_chains(j, row);
	json_nesting(j, r, &nest[i]);
	json_spread(j, r, row);
	xp_json_end(j, '}');
}

int xp_report_json(const struct xp_report *r, FILE *out)
{
	struct xp_decl_index x;
	struct xp_nest *nest = NULL;
	struct xp_json j;
	int err = xp_decl_index_build(&x, r);

	if (!err)
		err = xp_report_nest(r, &x, &nest);
	xp_decl_index_free(&x);
	if (err)
		return err;
	xp_json_start(&j, out);
	json_head(&j, r);
	xp_json_key_begin(&j, "declarations", '[');
	for (size_t i = 0; i < r->nrows; i++)
		json_row(&j, r, i, nest);
	xp_json_end(&j, ']');
	xp_json_finish(&j);
	xp_nest_free(nest, r->nrows);
	return 0;
}
