// SPDX-License-Identifier: MIT
/*
 * report_pprof: the report as pprof's profile.proto, gzipped, for go tool
 * pprof and pprof's web UI.  Three sample types, evaluations/count,
 * cost/UNIT and observed/UNIT (cost the default); one sample per frame of
 * the stacks every export draws (stacks.c) that has figures of its own,
 * its stack that frame and those above it, nearest first:
 *
 *   sample  location_id [BZ2_blockSort, BZ2_compressBlock, main]
 *           value [4, 80784428, 694556964]   label kind=function, per-eval=20196107 ticks
 *
 * So pprof's flat is what a function did outside the hooked functions
 * under it, its cum its cost in the report, and the samples add up to the
 * run total ("(not hooked)" holds what no hooked function took): pprof's
 * percentages are the report's shares.  Every (function, object) is one
 * Function and one Location, every object one Mapping (the executable
 * with its path and build-id, first).  Names are taken as they are: pprof
 * has functions by name already (has_functions), so it never symbolizes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export.h"
#include "util/num.h"
#include "util/vec.h"
#include "export/profile.pb-c.h"
#include "report/report.h"

#ifndef EXTPROF_VERSION
#define EXTPROF_VERSION "unknown"
#endif

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

#define PP_VALUES 3 /* evaluations, cost, observed */
#define PP_LABELS 2 /* kind, per-eval */

/* A sample before the tables stop moving: offsets into the shared arrays. */
struct pp_sample {
	size_t loc_first; /* into locs_of */
	size_t nlocs;
	int64_t value[PP_VALUES];
	int64_t kind; /* string index */
	int64_t per_eval;
};

struct pp_loc {
	uint64_t function;
	uint64_t mapping; /* 0 for none: a raw address */
};

struct pp {
	const struct xp_report *r;
	struct xp_intern strings;   /* index = id - 1; "" is index 0 */
	struct xp_intern functions; /* "function\x1fobject" */
	struct xp_intern mappings;  /* object names */
	struct xp_intern locations; /* "function\x1fobject": one per Function */
	struct pp_loc *locs;	    /* locs[id - 1] */
	size_t loc_cap;
	int64_t *fn_name; /* per function: its name's string index */
	size_t fn_cap;
	uint64_t *locs_of; /* every sample's location ids, one after another */
	size_t nlocs_of, locs_cap;
	struct pp_sample *samples;
	size_t nsamples, samples_cap;
	const char *exe_base;
	int err;
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t cap2 = *cap ? *cap : 64;
	void *w;

	if (need <= *cap)
		return 0;
	while (cap2 < need)
		cap2 *= 2;
	w = realloc(*v, cap2 * size);
	if (!w)
		return -ENOMEM;
	*v = w;
	*cap = cap2;
	return 0;
}

/* The string table index of @s; errors are kept in @p->err. */
static int64_t pp_str(struct pp *p, const char *s, size_t len)
{
	bool fresh;
	size_t id = p->err ? 0 : xp_intern(&p->strings, s, len, &fresh);

	if (!id) {
		p->err = -ENOMEM;
		return 0;
	}
	return (int64_t)id - 1;
}

static uint64_t pp_mapping(struct pp *p, const char *obj, size_t len)
{
	bool fresh;
	size_t id;

	if (!len || p->err)
		return 0;
	id = xp_intern(&p->mappings, obj, len, &fresh);
	if (!id)
		p->err = -ENOMEM;
	return id;
}

static uint64_t pp_function(struct pp *p, const char *fn, size_t fn_len, const char *obj,
			    size_t obj_len)
{
	bool fresh;
	size_t id = p->err ? 0 : xp_intern2(&p->functions, fn, fn_len, obj, obj_len, &fresh);

	if (!id || (fresh && grow((void **)&p->fn_name, &p->fn_cap, id, sizeof(*p->fn_name)))) {
		p->err = -ENOMEM;
		return 0;
	}
	if (fresh)
		p->fn_name[id - 1] = pp_str(p, fn, fn_len);
	return id;
}

/* The location of function @fn in @obj: its id. */
static uint64_t pp_location(struct pp *p, const char *fn, size_t fn_len, const char *obj,
			    size_t obj_len)
{
	bool fresh;
	size_t id = p->err ? 0 : xp_intern2(&p->locations, fn, fn_len, obj, obj_len, &fresh);

	if (!id) {
		p->err = -ENOMEM;
		return 0;
	}
	if (!fresh)
		return id;
	if (grow((void **)&p->locs, &p->loc_cap, id, sizeof(*p->locs))) {
		p->err = -ENOMEM;
		return 0;
	}
	p->locs[id - 1].function = pp_function(p, fn, fn_len, obj, obj_len);
	p->locs[id - 1].mapping = pp_mapping(p, obj, obj_len);
	return id;
}

static void pp_push_loc(struct pp *p, uint64_t loc)
{
	if (p->err || grow((void **)&p->locs_of, &p->locs_cap, p->nlocs_of + 1, sizeof(uint64_t))) {
		p->err = -ENOMEM;
		return;
	}
	p->locs_of[p->nlocs_of++] = loc;
}

static int64_t pp_i64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The sample of stack node @i: its own figures, its frames up to the root. */
static void pp_sample(struct pp *p, const struct xp_stacks *st, size_t i)
{
	const struct xp_stack_node *x = &st->v[i];
	const struct xp_row *row = x->row >= 0 ? &p->r->rows[x->row] : NULL;
	struct pp_sample *s;

	if (p->err ||
	    grow((void **)&p->samples, &p->samples_cap, p->nsamples + 1, sizeof(*p->samples))) {
		p->err = -ENOMEM;
		return;
	}
	s = &p->samples[p->nsamples++];
	memset(s, 0, sizeof(*s));
	s->loc_first = p->nlocs_of;
	s->kind = row ? pp_str(p, row->kind, strlen(row->kind)) : 0;
	for (size_t at = i; at; at = st->v[at].parent)
		pp_push_loc(p, pp_location(p, st->v[at].fn, st->v[at].fn_len, st->v[at].obj,
					   st->v[at].obj_len));
	s->nlocs = p->nlocs_of - s->loc_first;
	s->value[0] = pp_i64(x->self[XP_STACK_EVALUATIONS]);
	s->value[1] = pp_i64(x->self[XP_STACK_COST]);
	s->value[2] = pp_i64(x->self[XP_STACK_OBSERVED]);
	s->per_eval = row ? pp_i64(row->per_eval) : 0;
}

static int pp_collect(struct pp *p)
{
	struct xp_stacks st;
	int err = xp_stacks_build(&st, p->r);

	if (err)
		return err;
	pp_str(p, "", 0);
	/* the executable is the first mapping: pprof takes it for the main binary */
	if (p->exe_base)
		pp_mapping(p, p->exe_base, strlen(p->exe_base));
	for (size_t i = 1; i < st.n && !p->err; i++) {
		const struct xp_stack_node *x = &st.v[i];

		/* a declaration always (listed even never called), a caller with figures */
		if (x->row >= 0 || x->self[XP_STACK_COST] || x->self[XP_STACK_OBSERVED])
			pp_sample(p, &st, i);
	}
	xp_stacks_free(&st);
	return p->err;
}

/* The tables made into protobuf-c's messages, which point into them. */
struct pp_pb {
	pb_value_type types[PP_VALUES], period;
	pb_value_type *type_ptrs[PP_VALUES];
	pb_sample *samples, **sample_ptrs;
	pb_label *labels, **label_ptrs;
	int64_t *values;
	pb_mapping *mappings, **mapping_ptrs;
	pb_location *locations, **location_ptrs;
	pb_line *lines, **line_ptrs;
	pb_function *functions, **function_ptrs;
	char **strings;
	int64_t comments[8];
};

static void pp_pb_free(struct pp_pb *b)
{
	free(b->samples);
	free(b->sample_ptrs);
	free(b->labels);
	free(b->label_ptrs);
	free(b->values);
	free(b->mappings);
	free(b->mapping_ptrs);
	free(b->locations);
	free(b->location_ptrs);
	free(b->lines);
	free(b->line_ptrs);
	free(b->functions);
	free(b->function_ptrs);
	free(b->strings);
}

static int pp_pb_alloc(struct pp_pb *b, const struct pp *p)
{
	size_t ns = p->nsamples + 1, nm = p->mappings.n + 1, nl = p->locations.n + 1,
	       nf = p->functions.n + 1;

	b->samples = calloc(ns, sizeof(*b->samples));
	b->sample_ptrs = calloc(ns, sizeof(*b->sample_ptrs));
	b->labels = calloc(ns * PP_LABELS, sizeof(*b->labels));
	b->label_ptrs = calloc(ns * PP_LABELS, sizeof(*b->label_ptrs));
	b->values = calloc(ns * PP_VALUES, sizeof(*b->values));
	b->mappings = calloc(nm, sizeof(*b->mappings));
	b->mapping_ptrs = calloc(nm, sizeof(*b->mapping_ptrs));
	b->locations = calloc(nl, sizeof(*b->locations));
	b->location_ptrs = calloc(nl, sizeof(*b->location_ptrs));
	b->lines = calloc(nl, sizeof(*b->lines));
	b->line_ptrs = calloc(nl, sizeof(*b->line_ptrs));
	b->functions = calloc(nf, sizeof(*b->functions));
	b->function_ptrs = calloc(nf, sizeof(*b->function_ptrs));
	if (!b->samples || !b->sample_ptrs || !b->labels || !b->label_ptrs || !b->values ||
	    !b->mappings || !b->mapping_ptrs || !b->locations || !b->location_ptrs || !b->lines ||
	    !b->line_ptrs || !b->functions || !b->function_ptrs)
		return -ENOMEM;
	return 0;
}

static void pp_pb_samples(struct pp_pb *b, struct pp *p, int64_t per_eval_key, int64_t kind_key,
			  int64_t unit)
{
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pp_sample *s = &p->samples[i];
		pb_sample *x = &b->samples[i];
		pb_label *l = &b->labels[i * PP_LABELS];

		perftools__profiles__sample__init(x);
		x->n_location_id = s->nlocs;
		x->location_id = &p->locs_of[s->loc_first];
		x->n_value = PP_VALUES;
		x->value = &b->values[i * PP_VALUES];
		memcpy(x->value, s->value, sizeof(s->value));
		perftools__profiles__label__init(&l[0]);
		l[0].key = kind_key;
		l[0].str = s->kind;
		perftools__profiles__label__init(&l[1]);
		l[1].key = per_eval_key;
		l[1].num = s->per_eval;
		l[1].num_unit = unit;
		x->n_label = PP_LABELS;
		x->label = &b->label_ptrs[i * PP_LABELS];
		x->label[0] = &l[0];
		x->label[1] = &l[1];
		b->sample_ptrs[i] = x;
	}
}

static void pp_pb_tables(struct pp_pb *b, struct pp *p, int64_t build_id)
{
	for (size_t i = 0; i < p->mappings.n; i++) {
		pb_mapping *m = &b->mappings[i];
		const char *name = p->mappings.v[i]->s;
		bool exe = p->exe_base && !strcmp(name, p->exe_base);

		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->filename = exe ? pp_str(p, p->r->exe_path, strlen(p->r->exe_path))
				  : pp_str(p, name, p->mappings.v[i]->len);
		m->build_id = exe ? build_id : 0;
		m->has_functions = true;
		b->mapping_ptrs[i] = m;
	}
	for (size_t i = 0; i < p->locations.n; i++) {
		pb_location *l = &b->locations[i];

		perftools__profiles__location__init(l);
		perftools__profiles__line__init(&b->lines[i]);
		l->id = i + 1;
		l->mapping_id = p->locs[i].mapping;
		b->lines[i].function_id = p->locs[i].function;
		b->line_ptrs[i] = &b->lines[i];
		l->n_line = 1;
		l->line = &b->line_ptrs[i];
		b->location_ptrs[i] = l;
	}
	for (size_t i = 0; i < p->functions.n; i++) {
		pb_function *f = &b->functions[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = p->fn_name[i];
		f->system_name = p->fn_name[i];
		b->function_ptrs[i] = f;
	}
}

/* The profile's comment lines (pprof -comments), interned: how many. */
static size_t pp_comments(struct pp_pb *b, struct pp *p)
{
	const struct xp_report *r = p->r;
	char **v = NULL;
	size_t n = 0;

	/* a line that could not be made is missing from @v: fewer than six */
	xp_strv_appendf(&v, &n, "extprof %s report", EXTPROF_VERSION);
	xp_strv_appendf(&v, &n, "counter %s (%s), %s", r->counter_name, r->counter_unit,
			r->deterministic ? "deterministic" : "not deterministic");
	xp_strv_appendf(&v, &n, "calibration %" PRIu64 " %s per evaluation, subtracted",
			r->calibration, r->counter_unit);
	xp_strv_appendf(&v, &n, "per-eval %s; cost = per-eval x evaluations",
			xp_stat_name(r->opts.stat));
	xp_strv_appendf(&v, &n, "run total %" PRIu64 " %s", r->run_total, r->counter_unit);
	xp_strv_appendf(&v, &n, "%zu process%s, %zu workers, %s", r->processes,
			r->processes == 1 ? "" : "es", r->workers,
			r->complete ? "complete" : "incomplete");
	if (n < 6)
		p->err = -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		b->comments[i] = pp_str(p, v[i], strlen(v[i]));
		free(v[i]);
	}
	free(v);
	return n;
}

/* The profile, packed: a malloc'd buffer of @size bytes.  0 or -ENOMEM. */
static int pp_pack(struct pp *p, uint8_t **buf, size_t *size)
{
	pb_profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	const struct xp_report *r = p->r;
	struct pp_pb b = {0};
	const char *names[PP_VALUES] = {"evaluations", "cost", "observed"};
	int64_t unit = pp_str(p, r->counter_unit, strlen(r->counter_unit));
	int64_t count = pp_str(p, "count", 5);
	int64_t kind_key = pp_str(p, "kind", 4), per_eval_key = pp_str(p, "per-eval", 8);
	int64_t build_id =
		pp_str(p, r->build_id, strcmp(r->build_id, "none") ? strlen(r->build_id) : 0);
	int err;

	prof.n_comment = pp_comments(&b, p);
	for (int i = 0; i < PP_VALUES; i++) {
		perftools__profiles__value_type__init(&b.types[i]);
		b.types[i].type = pp_str(p, names[i], strlen(names[i]));
		b.types[i].unit = i ? unit : count;
		b.type_ptrs[i] = &b.types[i];
	}
	err = pp_pb_alloc(&b, p);
	if (!err)
		pp_pb_tables(&b, p, build_id); /* before the strings are listed: it adds some */
	if (!err && !p->err && !(b.strings = calloc(p->strings.n + 1, sizeof(*b.strings))))
		err = -ENOMEM;
	err = err ? err : p->err;
	if (err) {
		pp_pb_free(&b);
		return err;
	}
	pp_pb_samples(&b, p, per_eval_key, kind_key, unit);
	for (size_t i = 0; i < p->strings.n; i++)
		b.strings[i] = p->strings.v[i]->s;
	perftools__profiles__value_type__init(&b.period);
	b.period = b.types[1];
	prof.n_sample_type = PP_VALUES;
	prof.sample_type = b.type_ptrs;
	prof.n_sample = p->nsamples;
	prof.sample = b.sample_ptrs;
	prof.n_mapping = p->mappings.n;
	prof.mapping = b.mapping_ptrs;
	prof.n_location = p->locations.n;
	prof.location = b.location_ptrs;
	prof.n_function = p->functions.n;
	prof.function = b.function_ptrs;
	prof.n_string_table = p->strings.n;
	prof.string_table = b.strings;
	prof.comment = b.comments;
	prof.time_nanos = r->start_ns;
	/* hostile times must not overflow the subtraction */
	if (r->end_ns <= r->start_ns ||
	    __builtin_sub_overflow(r->end_ns, r->start_ns, &prof.duration_nanos))
		prof.duration_nanos = r->end_ns > r->start_ns ? INT64_MAX : 0;
	prof.period_type = &b.period;
	prof.period = 1;
	prof.default_sample_type = b.types[1].type;
	*size = perftools__profiles__profile__get_packed_size(&prof);
	*buf = malloc(*size + 1);
	if (*buf)
		perftools__profiles__profile__pack(&prof, *buf);
	pp_pb_free(&b);
	return *buf ? 0 : -ENOMEM;
}

/* @buf gzipped onto @out. */
static int pp_gzip(FILE *out, const uint8_t *buf, size_t size)
{
	uint8_t chunk[1 << 16];
	z_stream z = {0};
	int zr;

	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	do {
		size_t take = size > (1u << 30) ? (1u << 30) : size;

		z.next_in = (Bytef *)buf;
		z.avail_in = (uInt)take;
		buf += take;
		size -= take;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			zr = deflate(&z, size ? Z_NO_FLUSH : Z_FINISH);
			fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out);
		} while (z.avail_out == 0);
	} while (size);
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : -EIO;
}

static void pp_free(struct pp *p)
{
	xp_intern_free(&p->strings);
	xp_intern_free(&p->functions);
	xp_intern_free(&p->mappings);
	xp_intern_free(&p->locations);
	free(p->locs);
	free(p->fn_name);
	free(p->locs_of);
	free(p->samples);
}

int xp_report_pprof(const struct xp_report *r, FILE *out)
{
	struct pp p = {.r = r};
	const char *slash = strrchr(r->exe_path, '/');
	uint8_t *buf = NULL;
	size_t size = 0;
	int err;

	p.exe_base = r->exe_path[0] ? (slash ? slash + 1 : r->exe_path) : NULL;
	err = pp_collect(&p);
	if (!err)
		err = pp_pack(&p, &buf, &size);
	if (!err)
		err = pp_gzip(out, buf, size);
	free(buf);
	pp_free(&p);
	return err;
}
