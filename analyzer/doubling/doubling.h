/* SPDX-License-Identifier: MIT */
/*
 * doubling: the doubling test (docs/doubling.md), how each
 * declaration's cost grows with the input.  Runs at several sizes N, each
 * merged and finalized as "extprof report" does; per declaration the values
 * at each size (repeats aggregated with --stat), the ratios from one size
 * to the next with their class, and the fits over all sizes.
 */
#ifndef XP_DOUBLING_H
#define XP_DOUBLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "doubling/doubling_fit.h"
#include "util/err.h"
#include "report/report.h"

enum xp_dbl_value { XP_DBL_PER_EVAL, XP_DBL_EVALUATIONS, XP_DBL_COST, XP_DBL_NVALUES };

/* "per_eval", "evaluations", "cost" (JSON keys); the text says "per-eval". */
extern const char *const xp_dbl_value_keys[XP_DBL_NVALUES];
extern const char *const xp_dbl_value_names[XP_DBL_NVALUES];

/* One run's dumps: a directory (or dump file) measured at size @n. */
struct xp_dbl_input {
	uint64_t n;
	char *dir;
	double seconds; /* wall time of the run when we ran it, else < 0 */
};

/* A size and what was read for it. */
struct xp_dbl_size {
	uint64_t n;
	size_t runs;	      /* inputs at this size (repeats) */
	uint64_t calibration; /* smallest of its processes' */
	uint64_t calibration_max;
	uint64_t run_total; /* aggregated over repeats like the values */
	bool complete;
};

/* One declaration at one size: @present when some run at that size had it. */
struct xp_dbl_point {
	bool present;
	uint64_t v[XP_DBL_NVALUES]; /* cost = per_eval x evaluations, after aggregation */
	/* the spread of its runs (repeats): the least and the largest, v of one run */
	uint64_t lo[XP_DBL_NVALUES];
	uint64_t hi[XP_DBL_NVALUES];
	/* --stat auto: the same with per-eval the mean, and the floor's flag */
	uint64_t mean[XP_DBL_NVALUES];
	bool state_dependent;
};

/* How one value of one declaration grows. */
struct xp_dbl_growth {
	double *ratio;	 /* nsizes - 1: v[i+1] / v[i]; NAN when not defined */
	double *per_dbl; /* the ratio as if sizes doubled (xp_dbl_per_doubling) */
	enum xp_dbl_class *cls;
	struct xp_dbl_slope slope;
	struct xp_dbl_fit fit;
};

struct xp_dbl_decl {
	char *kind;
	char *symbol;
	char *object;		  /* basename */
	char *hkey;		  /* "kind\x1fsymbol\x1fobject" */
	struct xp_dbl_point *pts; /* nsizes */
	struct xp_dbl_growth g[XP_DBL_NVALUES];
	/*
	 * The per-eval statistic of its points: --stat, or with --stat auto
	 * the floor (min), and the mean where the declaration is
	 * state-dependent at most of its sizes (its floor is its cheapest call, which
	 * need not grow with N).
	 */
	enum xp_stat stat;
};

struct xp_doubling {
	struct xp_report_opts opts;

	char counter_name[64];
	char counter_unit[16];
	bool deterministic;
	uint64_t resolution; /* the largest of every run's */
	uint64_t step;	     /* the largest of every run's (report.h): a per-eval's noise */

	size_t nsizes;
	struct xp_dbl_size *sizes; /* ascending */
	size_t ninputs;
	const struct xp_dbl_input *inputs; /* not owned */

	size_t ndecls;
	struct xp_dbl_decl *decls; /* by opts.sort at the largest size */

	char **warnings;
	size_t nwarnings;

	/* When extprof ran the program itself (NULL/0 otherwise). */
	const char *base; /* the directory of every run's dumps */
	unsigned warmup;
	double timeout;		/* seconds, 0 for none */
	bool stopped;		/* a run passed the timeout: no larger size was run */
	uint64_t stopped_at;	/* the size of that run */
	double stopped_seconds; /* how long it took */
	size_t sizes_asked;	/* --sizes given */
};

/*
 * Read every input (merged and finalized per input as "extprof report"
 * does), aggregate repeats at each size with @o->stat, and compute the
 * ratios and fits.  Inputs must be sorted by n.  0, or -errno with @e set.
 */
int xp_dbl_build(struct xp_doubling *d, const struct xp_dbl_input *in, size_t nin,
		 const struct xp_report_opts *o, struct xp_err *e);
/* Free what xp_dbl_build made. */
void xp_dbl_free(struct xp_doubling *d);

/* Ratios, classes and fits of every declaration (doubling_grow.c). */
int xp_dbl_grow(struct xp_doubling *d);

/*
 * The whole-range decomposition of cost growth: from the first to the last
 * size where all three values are > 0.  false when there is no such pair.
 */
struct xp_dbl_split {
	uint64_t n1, n2;
	double cost, evaluations, per_eval; /* ratios; cost = evaluations x per_eval */
	double evaluations_share;	    /* log(evaluations) / log(cost); NAN when cost ~ 1 */
};

/* The split of declaration @x into @s: false when it has none. */
bool xp_dbl_decl_split(const struct xp_doubling *d, const struct xp_dbl_decl *x,
		       struct xp_dbl_split *s);

/* Print @d as text onto @out, the Alnoms table (docs/doubling.md) per declaration: 0 or -errno. */
int xp_dbl_text(const struct xp_doubling *d, FILE *out);
/* Print @d as JSON onto @out (docs/doubling.md): 0. */
int xp_dbl_json(const struct xp_doubling *d, FILE *out);
/* Print @d as CSV onto @out, a line a declaration and size: 0. */
int xp_dbl_csv(const struct xp_doubling *d, FILE *out);

/* The 0s a plot of @v marks under its axis: points of declarations called at some size. */
size_t xp_dbl_plot_zeros(const struct xp_doubling *d, enum xp_dbl_value v);
/* A log-log plot of @v against N, PNG or SVG by @path's extension (doubling_plot.c). */
int xp_dbl_plot(const struct xp_doubling *d, enum xp_dbl_value v, const char *path,
		struct xp_err *e);
/* The same plot onto @out, SVG when @svg, else PNG: 0 or -EIO. */
int xp_dbl_plot_stream(const struct xp_doubling *d, enum xp_dbl_value v, bool svg, FILE *out);
/* @d as one HTML page (doubling_html.c): the table, the plot of @v inline.  0 or -errno. */
int xp_dbl_html(const struct xp_doubling *d, enum xp_dbl_value v, FILE *out);

#endif
