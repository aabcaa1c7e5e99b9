// SPDX-License-Identifier: MIT
/* diff_json: the comparison for tools (docs/json.md, "extprof diff"). */
#include <stdio.h>

#include "diff/diff.h"
#include "util/json_out.h"

/* What ran: the CPU and the executable (the window is the report's). */
static void json_program(struct xp_json *j, const struct xp_report_program *p)
{
	xp_json_key_str(j, "cpu_model", p->cpu_model);
	xp_json_key_str(j, "exe_path", p->exe_path);
	xp_json_key_str(j, "build_id", p->build_id);
}

static void json_side(struct xp_json *j, const char *key, const char *name,
		      const struct xp_report *r)
{
	xp_json_key_begin(j, key, '{');
	xp_json_key_str(j, "input", name);
	xp_report_json_source(j, r);
	xp_json_key_u64(j, "runs", r->runs);
	xp_json_key_bool(j, "complete", r->complete);
	xp_json_key_u64(j, "run_total", r->run_total);
	json_program(j, &r->program);
	xp_json_end(j, '}');
}

static void json_values(struct xp_json *j, const char *key, const struct xp_row *row)
{
	xp_json_key(j, key);
	if (!row) {
		xp_json_null(j);
		return;
	}
	xp_json_begin(j, '{');
	for (int m = 0; m < XP_DIFF_NMETRICS; m++)
		xp_json_key_u64(j, xp_diff_metric_keys[m],
				xp_diff_value(row, (enum xp_diff_metric)m));
	/* additions: the side's runs and how far their figures spread */
	xp_json_key_u64(j, "runs", row->runs);
	xp_json_key_u64(j, "per_eval_spread", row->per_eval_hi - row->per_eval_lo);
	xp_json_key_u64(j, "evaluations_spread", row->evaluations_hi - row->evaluations_lo);
	xp_json_end(j, '}');
}

/* "margin": what each change must exceed (null: unjudged); "real": which did. */
static void json_margins(struct xp_json *j, const struct xp_diff_row *x)
{
	xp_json_key(j, "margin");
	if (!x->base || !x->next)
		xp_json_null(j);
	else {
		xp_json_begin(j, '{');
		for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
			xp_json_key(j, xp_diff_metric_keys[m]);
			if (x->margin[m] == XP_DIFF_UNJUDGED)
				xp_json_null(j);
			else
				xp_json_u64(j, x->margin[m]);
		}
		xp_json_end(j, '}');
	}
	xp_json_key_begin(j, "real", '{');
	for (int m = 0; m < XP_DIFF_NMETRICS; m++)
		xp_json_key_bool(j, xp_diff_metric_keys[m], x->real[m]);
	xp_json_end(j, '}');
}

static void json_row(struct xp_json *j, const struct xp_diff_row *x)
{
	const struct xp_row *any = x->next ? x->next : x->base;

	xp_json_begin(j, '{');
	xp_json_key_str(j, "kind", any->kind);
	xp_json_key_str(j, "name", any->symbol);
	xp_json_key_str(j, "object", any->object);
	if (any->group)
		xp_json_key_str(j, "group", any->group);
	xp_json_key_str(j, "status", xp_diff_status_names[x->status]);
	json_values(j, "base", x->base);
	json_values(j, "new", x->next);
	xp_json_key_begin(j, "change", '{');
	for (int m = 0; m < XP_DIFF_NMETRICS; m++) {
		/* percent; null when a side lacks it or the base is 0 (grown from nothing) */
		xp_json_key_num(j, xp_diff_metric_keys[m], x->change[m]);
	}
	xp_json_end(j, '}');
	xp_json_key_bool(j, "over", x->over);
	json_margins(j, x);
	xp_json_end(j, '}');
}

int xp_diff_json(const struct xp_diff *d, FILE *out)
{
	struct xp_json j;

	xp_json_start(&j, out);
	json_side(&j, "base", d->base_name, d->base);
	json_side(&j, "new", d->next_name, d->next);
	xp_json_key_str(&j, "stat", xp_stat_name(d->base->opts.stat));
	xp_json_key_str(&j, "metric", xp_diff_metric_names[d->opts.metric]);
	xp_json_key(&j, "fail_above");
	if (d->opts.fail_above >= 0)
		xp_json_double(&j, d->opts.fail_above);
	else
		xp_json_null(&j);
	xp_json_key_u64(&j, "over", d->nover);
	/* additions: the margins' terms, and the changes they held back */
	xp_json_key_bool(&j, "deterministic", d->deterministic);
	xp_json_key_u64(&j, "step", d->step);
	xp_json_key_u64(&j, "within_margin", d->nnoise);
	xp_json_key_strs(&j, "warnings", d->warnings, d->nwarnings);
	xp_json_key_begin(&j, "declarations", '[');
	for (size_t i = 0; i < d->nrows; i++)
		json_row(&j, &d->rows[i]);
	xp_json_end(&j, ']');
	xp_json_finish(&j);
	return 0;
}
