// SPDX-License-Identifier: MIT
/* doubling_json: the doubling test for tools (schema in docs/doubling.md). */
#include <math.h>
#include <stdio.h>

#include "doubling/doubling.h"
#include "util/json_out.h"

static void json_head(struct xp_json *j, const struct xp_doubling *d)
{
	xp_json_key_begin(j, "counter", '{');
	xp_json_key_str(j, "name", d->counter_name);
	xp_json_key_str(j, "unit", d->counter_unit);
	xp_json_key_bool(j, "deterministic", d->deterministic);
	xp_json_end(j, '}');
	xp_json_key_str(j, "stat", xp_stat_name(d->opts.stat));
	xp_json_key_u64(j, "resolution", d->resolution);
	xp_json_key_u64(j, "step", d->step); /* addition */
	xp_json_key_begin(j, "sizes", '[');
	for (size_t i = 0; i < d->nsizes; i++) {
		const struct xp_dbl_size *s = &d->sizes[i];

		xp_json_begin(j, '{');
		xp_json_key_u64(j, "n", s->n);
		xp_json_key_u64(j, "runs", s->runs);
		xp_json_key_u64(j, "calibration", s->calibration);
		xp_json_key_u64(j, "calibration_max", s->calibration_max);
		xp_json_key_u64(j, "run_total", s->run_total);
		xp_json_key_bool(j, "complete", s->complete);
		xp_json_end(j, '}');
	}
	xp_json_end(j, ']');
}

static void json_runs(struct xp_json *j, const struct xp_doubling *d)
{
	xp_json_key_begin(j, "runs", '[');
	for (size_t i = 0; i < d->ninputs; i++) {
		xp_json_begin(j, '{');
		xp_json_key_u64(j, "n", d->inputs[i].n);
		xp_json_key_str(j, "dir", d->inputs[i].dir);
		xp_json_key_num(j, "seconds",
				d->inputs[i].seconds >= 0 ? d->inputs[i].seconds : NAN);
		xp_json_end(j, '}');
	}
	xp_json_end(j, ']');
	xp_json_key_str(j, "dumps", d->base);
	xp_json_key_u64(j, "warmup", d->warmup);
	xp_json_key_num(j, "timeout", d->timeout > 0 ? d->timeout : NAN);
	xp_json_key(j, "stopped");
	if (d->stopped) {
		xp_json_begin(j, '{');
		xp_json_key_u64(j, "n", d->stopped_at);
		xp_json_key_num(j, "seconds", d->stopped_seconds);
		xp_json_key_u64(j, "sizes_asked", d->sizes_asked);
		xp_json_end(j, '}');
	} else {
		xp_json_null(j);
	}
	xp_json_key_strs(j, "warnings", d->warnings, d->nwarnings);
}

static void json_fit(struct xp_json *j, const struct xp_dbl_fit *f)
{
	xp_json_key_begin(j, "fit", '{');
	xp_json_key_str(j, "model", f->ok ? xp_dbl_model_name(f->best, false) : NULL);
	if (!f->ok) {
		xp_json_key_str(j, "reason", f->why);
		xp_json_end(j, '}');
		return;
	}
	xp_json_key_num(j, "a", f->a[f->best]);
	xp_json_key_num(j, "c", f->c[f->best]);
	xp_json_key_num(j, "error", f->nrms[f->best]);
	xp_json_key_num(j, "noise", f->noise); /* addition */
	xp_json_key_begin(j, "models", '[');
	for (int m = 0; m < XP_NMODELS; m++) {
		xp_json_begin(j, '{');
		xp_json_key_str(j, "model", xp_dbl_model_name((enum xp_dbl_model)m, false));
		xp_json_key_bool(j, "valid", f->valid[m]);
		xp_json_key_num(j, "a", f->a[m]);
		xp_json_key_num(j, "c", f->c[m]);
		xp_json_key_num(j, "error", f->nrms[m]);
		xp_json_end(j, '}');
	}
	xp_json_end(j, ']');
	xp_json_end(j, '}');
}

static void json_growth(struct xp_json *j, const struct xp_doubling *d,
			const struct xp_dbl_growth *g, const char *key)
{
	xp_json_key_begin(j, key, '{');
	xp_json_key_begin(j, "steps", '[');
	for (size_t i = 0; i + 1 < d->nsizes; i++) {
		xp_json_begin(j, '{');
		xp_json_key_u64(j, "from", d->sizes[i].n);
		xp_json_key_u64(j, "to", d->sizes[i + 1].n);
		xp_json_key_num(j, "ratio", g->ratio[i]);
		xp_json_key_num(j, "per_doubling", g->per_dbl[i]);
		xp_json_key_str(j, "class",
				g->cls[i] == XP_CLASS_NONE ? NULL
							   : xp_dbl_class_name(g->cls[i], false));
		xp_json_end(j, '}');
	}
	xp_json_end(j, ']');
	xp_json_key(j, "slope");
	if (g->slope.ok) {
		xp_json_begin(j, '{');
		xp_json_key_num(j, "exponent", g->slope.exponent);
		xp_json_key_num(j, "r2", g->slope.r2);
		xp_json_key_u64(j, "points", g->slope.points);
		xp_json_end(j, '}');
	} else {
		xp_json_null(j);
	}
	json_fit(j, &g->fit);
	xp_json_end(j, '}');
}

static void json_summary(struct xp_json *j, const struct xp_doubling *d,
			 const struct xp_dbl_decl *x)
{
	struct xp_dbl_split s;

	xp_json_key(j, "summary");
	if (!xp_dbl_decl_split(d, x, &s)) {
		xp_json_null(j);
		return;
	}
	xp_json_begin(j, '{');
	xp_json_key_u64(j, "from", s.n1);
	xp_json_key_u64(j, "to", s.n2);
	xp_json_key_num(j, "cost", s.cost);
	xp_json_key_num(j, "evaluations", s.evaluations);
	xp_json_key_num(j, "per_eval", s.per_eval);
	xp_json_key_num(j, "evaluations_share", s.evaluations_share);
	xp_json_key_num(j, "per_eval_share", 1.0 - s.evaluations_share);
	xp_json_end(j, '}');
}

static void json_decl(struct xp_json *j, const struct xp_doubling *d, const struct xp_dbl_decl *x)
{
	xp_json_begin(j, '{');
	xp_json_key_str(j, "kind", x->kind);
	xp_json_key_str(j, "name", x->symbol);
	xp_json_key_str(j, "object", x->object);
	xp_json_key_str(j, "stat", xp_stat_name(x->stat)); /* addition: what its per_eval is */
	xp_json_key_begin(j, "points", '[');
	for (size_t i = 0; i < d->nsizes; i++) {
		xp_json_begin(j, '{');
		xp_json_key_u64(j, "n", d->sizes[i].n);
		for (int v = 0; v < XP_DBL_NVALUES; v++) {
			xp_json_key(j, xp_dbl_value_keys[v]);
			if (x->pts[i].present)
				xp_json_u64(j, x->pts[i].v[v]);
			else
				xp_json_null(j);
		}
		xp_json_end(j, '}');
	}
	xp_json_end(j, ']');
	for (int v = 0; v < XP_DBL_NVALUES; v++)
		json_growth(j, d, &x->g[v], xp_dbl_value_keys[v]);
	json_summary(j, d, x);
	xp_json_end(j, '}');
}

int xp_dbl_json(const struct xp_doubling *d, FILE *out)
{
	struct xp_json j;

	xp_json_start(&j, out);
	json_head(&j, d);
	json_runs(&j, d);
	xp_json_key_begin(&j, "declarations", '[');
	for (size_t i = 0; i < d->ndecls; i++)
		json_decl(&j, d, &d->decls[i]);
	xp_json_end(&j, ']');
	xp_json_finish(&j);
	return 0;
}
