/* SPDX-License-Identifier: MIT */
/*
 * diff: two reports, each merged and finalized as "extprof report" does,
 * compared declaration by declaration (kind, symbol, object basename):
 * per_eval, evaluations and cost before and after, the change in percent,
 * the declarations that appeared or vanished, and whether any grew by more
 * than --fail-above.
 */
#ifndef XP_DIFF_H
#define XP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "report/report.h"

/* The metrics of a report row (report.h), as diff names them. */
enum xp_diff_metric {
	XP_DIFF_PER_EVAL = XP_METRIC_PER_EVAL,
	XP_DIFF_EVALUATIONS = XP_METRIC_EVALUATIONS,
	XP_DIFF_COST = XP_METRIC_COST,
	XP_DIFF_NMETRICS = XP_NMETRICS
};

/* "per_eval", "evaluations", "cost" (JSON keys, CSV columns) */
extern const char *const xp_diff_metric_keys[XP_DIFF_NMETRICS];
/* "per-eval", "evaluations", "cost" (the text, --metric) */
extern const char *const xp_diff_metric_names[XP_DIFF_NMETRICS];

enum xp_diff_status { XP_DIFF_CHANGED, XP_DIFF_SAME, XP_DIFF_APPEARED, XP_DIFF_VANISHED };

extern const char *const xp_diff_status_names[4];

struct xp_diff_opts {
	enum xp_format format;
	enum xp_diff_metric metric; /* what --fail-above compares */
	double fail_above;	    /* percent; < 0: no threshold */
};

/* The defaults: text, --metric cost, no --fail-above. */
void xp_diff_opts_init(struct xp_diff_opts *o);
/* Parse --metric's value: 0 or -EINVAL with @e set. */
int xp_diff_opt_metric(struct xp_diff_opts *o, const char *v, struct xp_err *e);
/* Parse --fail-above's percentage: 0 or -EINVAL with @e set. */
int xp_diff_opt_fail_above(struct xp_diff_opts *o, const char *v, struct xp_err *e);

/* A margin that cannot be promised: a floor of one evaluation on a side of one run. */
#define XP_DIFF_UNJUDGED XP_MARGIN_UNJUDGED

struct xp_diff_row {
	const struct xp_row *base; /* NULL: appeared */
	const struct xp_row *next; /* NULL: vanished */
	enum xp_diff_status status;
	/* (next - base) / base x 100; +INFINITY when only base is 0; NAN when a side lacks it */
	double change[XP_DIFF_NMETRICS];
	/* What a change must exceed to be real (diff_margin.c); XP_DIFF_UNJUDGED */
	uint64_t margin[XP_DIFF_NMETRICS];
	bool real[XP_DIFF_NMETRICS]; /* |new - base| > margin */
	bool over;		     /* real[metric] and change[metric] > fail_above */
};

struct xp_diff {
	struct xp_diff_opts opts;
	const struct xp_report *base; /* not owned */
	const struct xp_report *next; /* not owned */
	const char *base_name;	      /* how the inputs were named, for the header */
	const char *next_name;
	struct xp_diff_row *rows; /* real changes by change[metric], the rest, appeared, vanished */
	size_t nrows;
	size_t nover;	    /* rows over the threshold */
	size_t nnoise;	    /* rows whose metric changed within its margin, or unjudged */
	bool deterministic; /* both counters are: every change is real */
	uint64_t step;	    /* the larger of the sides' (report.h) */
	char **warnings;
	size_t nwarnings;
};

/* The value @m of a report row. */
static inline uint64_t xp_diff_value(const struct xp_row *row, enum xp_diff_metric m)
{
	return xp_metric_value(row, (enum xp_metric)m);
}

/*
 * Compare @base and @next (both built with the same --stat).  Warns when
 * their counters, CPU models or executables differ.  0 or -ENOMEM with @e
 * set.
 */
int xp_diff_build(struct xp_diff *d, const struct xp_report *base, const struct xp_report *next,
		  const struct xp_diff_opts *o, struct xp_err *e);
/* Free what xp_diff_build made. */
void xp_diff_free(struct xp_diff *d);

/*
 * The margins of a row whose both sides are present, and which of its
 * changes are real (diff_margin.c, over xp_margin_between).  Nothing is
 * real when a side lacks it.
 */
void xp_diff_margins(const struct xp_diff *d, struct xp_diff_row *x);
/* Whether @x's --metric changed but not beyond its margin. */
bool xp_diff_within_margin(const struct xp_diff *d, const struct xp_diff_row *x);

/* Print @d as a table onto @out (in colour with @colour): 0 or -errno. */
int xp_diff_text(const struct xp_diff *d, FILE *out, bool colour);
/* Print @d as JSON onto @out (docs/json.md): 0. */
int xp_diff_json(const struct xp_diff *d, FILE *out);
/* Print @d as CSV onto @out, a line a declaration: 0. */
int xp_diff_csv(const struct xp_diff *d, FILE *out);

/* "+12.5%", "-3.0%", "0.0%", "+inf%" (from 0), "-" (a side lacks it) into @buf. */
char *xp_diff_fmt_change(char *buf, size_t size, double change);

#endif
