// SPDX-License-Identifier: MIT
/*
 * report_json: the stable JSON report (SPEC.md "The JSON report is
 * stable"); keys beyond the contract's are listed in docs/json.md.
 */
#include <stdio.h>

#include "util/json_out.h"
#include "report/report.h"

void xp_report_json_counter(struct xp_json *j, const struct xp_report *r)
{
	xp_json_key(j, "counter");
	xp_json_begin(j, '{');
	xp_json_key(j, "name");
	xp_json_str(j, r->counter_name);
	xp_json_key(j, "unit");
	xp_json_str(j, r->counter_unit);
	xp_json_key(j, "deterministic");
	xp_json_bool(j, r->deterministic);
	/* additions, docs/json.md: steps, only */
	if (r->sampled) {
		xp_json_key(j, "sampled");
		xp_json_bool(j, true);
		xp_json_key(j, "step_first");
		xp_json_u64(j, r->step_first);
		xp_json_key(j, "step_every");
		xp_json_u64(j, r->step_every);
		xp_json_key(j, "step_limit");
		xp_json_u64(j, r->step_limit);
	}
	xp_json_end(j, '}');
}

static void json_u64_list(struct xp_json *j, const char *key, const uint64_t *v, size_t n)
{
	xp_json_key(j, key);
	xp_json_begin(j, '[');
	for (size_t i = 0; i < n; i++)
		xp_json_u64(j, v[i]);
	xp_json_end(j, ']');
}

static void json_head(struct xp_json *j, const struct xp_report *r)
{
	xp_report_json_counter(j, r);
	xp_json_key(j, "calibration");
	xp_json_u64(j, r->calibration);
	xp_json_key(j, "processes");
	xp_json_u64(j, r->processes);
	xp_json_key(j, "workers");
	xp_json_u64(j, r->workers);
	xp_json_key(j, "complete");
	xp_json_bool(j, r->complete);
	xp_json_key(j, "run_total");
	xp_json_u64(j, r->run_total);
	/* additions, docs/json.md */
	xp_json_key(j, "calibration_max");
	xp_json_u64(j, r->calibration_max);
	xp_json_key(j, "resolution");
	xp_json_u64(j, r->resolution);
	xp_json_key(j, "step");
	xp_json_u64(j, r->step);
	xp_json_key(j, "stat");
	xp_json_str(j, xp_stat_name(r->opts.stat));
	xp_json_key(j, "flag_ratio");
	xp_json_double(j, r->opts.flag_ratio);
	xp_json_key(j, "threads");
	xp_json_u64(j, r->threads);
	xp_json_key(j, "lost");
	xp_json_u64(j, r->lost);
	xp_json_key(j, "window");
	if (r->window[0])
		xp_json_str(j, r->window);
	else
		xp_json_null(j);
	xp_json_key(j, "attached");
	if (r->attached) {
		xp_json_begin(j, '{');
		xp_json_key(j, "from_ns");
		xp_json_u64(j, r->start_ns > 0 ? (uint64_t)r->start_ns : 0);
		xp_json_key(j, "to_ns");
		xp_json_u64(j, r->end_ns > 0 ? (uint64_t)r->end_ns : 0);
		xp_json_end(j, '}');
	} else {
		xp_json_null(j);
	}
	json_u64_list(j, "pids", r->pids, r->npids);
	if (r->by_exe) {
		xp_json_key(j, "executables");
		xp_json_begin(j, '[');
		for (size_t i = 0; i < r->nexes; i++)
			xp_json_str(j, r->exes[i]);
		xp_json_end(j, ']');
	}
	json_u64_list(j, "incomplete_pids", r->incomplete_pids, r->nincomplete);
	xp_json_key(j, "callers_depth");
	xp_json_u64(j, r->callers_depth);
	xp_json_key(j, "runs");
	xp_json_u64(j, r->runs);
	xp_json_key(j, "warmup");
	xp_json_u64(j, r->warmup);
	xp_json_key(j, "warnings");
	xp_json_begin(j, '[');
	for (size_t i = 0; i < r->nwarnings; i++)
		xp_json_str(j, r->warnings[i]);
	xp_json_end(j, ']');
}

static void json_key_u64(struct xp_json *j, const char *key, uint64_t v)
{
	xp_json_key(j, key);
	xp_json_u64(j, v);
}

/* {"chain": ["search+0x1d@checker", ...], "evaluations": ...}; "other" has chain []. */
static void json_chains(struct xp_json *j, const struct xp_row *row)
{
	xp_json_key(j, "callers");
	xp_json_begin(j, '[');
	for (size_t i = 0; i < row->nchains; i++) {
		const struct xp_chain *c = row->chains[i];

		xp_json_begin(j, '{');
		xp_json_key(j, "chain");
		xp_json_begin(j, '[');
		for (const char *f = c->depth ? c->key : NULL; f; f = xp_chain_next(c, f))
			xp_json_str(j, f);
		xp_json_end(j, ']');
		json_key_u64(j, "evaluations", c->evaluations);
		json_key_u64(j, "per_eval", c->per_eval);
		json_key_u64(j, "cost", c->cost);
		json_key_u64(j, "observed", c->sum);
		xp_json_key(j, "settled");
		xp_json_bool(j, c->settled);
		json_key_u64(j, "hits", c->hits);
		xp_json_end(j, '}');
	}
	xp_json_end(j, ']');
}

static void json_row(struct xp_json *j, const struct xp_row *row, bool callers, bool sampled)
{
	xp_json_begin(j, '{');
	xp_json_key(j, "kind");
	xp_json_str(j, row->kind);
	xp_json_key(j, "name");
	xp_json_str(j, row->symbol);
	xp_json_key(j, "object");
	xp_json_str(j, row->object);
	if (row->exe) {
		xp_json_key(j, "executable");
		xp_json_str(j, row->exe);
	}
	json_key_u64(j, "evaluations", row->fin.evaluations);
	json_key_u64(j, "per_eval", row->per_eval);
	json_key_u64(j, "cost", row->cost);
	xp_json_key(j, "share");
	xp_json_double(j, row->share);
	json_key_u64(j, "observed", row->fin.observed);
	xp_json_key(j, "settled");
	xp_json_bool(j, row->settled);
	json_key_u64(j, "recursive", row->fin.recursive);
	json_key_u64(j, "abandoned", row->fin.abandoned);
	json_key_u64(j, "outside", row->fin.outside);
	json_key_u64(j, "p50", row->p50);
	json_key_u64(j, "p99", row->p99);
	xp_json_key(j, "flags");
	xp_json_begin(j, '[');
	for (int f = 0; f < XP_NFLAGS; f++)
		if (row->flags & (1u << f))
			xp_json_str(j, xp_flag_names[f]);
	xp_json_end(j, ']');
	/* additions */
	json_key_u64(j, "hits", row->fin.hits);
	xp_json_key(j, "observed_share");
	xp_json_double(j, row->observed_share);
	json_key_u64(j, "negative", row->fin.negative);
	if (sampled)
		json_key_u64(j, "stepped", row->fin.samples);
	json_key_u64(j, "histogram_lost", row->fin.hist_lost);
	if (callers)
		json_chains(j, row);
	xp_json_end(j, '}');
}

int xp_report_json(const struct xp_report *r, FILE *out)
{
	struct xp_json j;

	xp_json_init(&j, out);
	xp_json_begin(&j, '{');
	json_head(&j, r);
	xp_json_key(&j, "declarations");
	xp_json_begin(&j, '[');
	for (size_t i = 0; i < r->nrows; i++)
		json_row(&j, &r->rows[i], r->callers_depth > 0, r->sampled);
	xp_json_end(&j, ']');
	xp_json_end(&j, '}');
	return 0;
}
