/* SPDX-License-Identifier: MIT */
/*
 * doubling_fit: the arithmetic of the doubling test, on plain numbers.
 * The ratio of one size to the next and its class (the Alnoms table), the
 * least-squares slope of log value on log N with its R², and the model
 * among 1, log N, N, N log N, N², N³ and 2^N that fits best with an
 * intercept (value = a + c g(N)).  No I/O, so the unit tests reach it.
 */
#ifndef XP_DOUBLING_FIT_H
#define XP_DOUBLING_FIT_H

#include <stdbool.h>
#include <stddef.h>

/* The classes of the Alnoms doubling table, by the ratio of a doubling. */
enum xp_dbl_class {
	XP_CLASS_NONE, /* no ratio: a value of 0 before, or missing */
	XP_CLASS_LOG,  /* R < 1.4: O(1) or O(log N) */
	XP_CLASS_N,    /* 1.4 <= R < 2.8 */
	XP_CLASS_N2,   /* 2.8 <= R < 5.5 */
	XP_CLASS_N3,   /* 5.5 <= R < 10 */
	XP_CLASS_EXP,  /* R >= 10 */
	XP_NCLASSES
};

/* The class of @r2, the ratio of one doubling (normalised, see below). */
enum xp_dbl_class xp_dbl_classify(double r2);

/*
 * The ratio @r between sizes @n1 < @n2 as if they were a doubling: 2^e with
 * e = log r / log(n2 / n1).  NAN when @r is not a finite positive number.
 */
double xp_dbl_per_doubling(double r, double n1, double n2);

/* "O(1)/O(log N)", "O(N)", "O(N²)" (or "O(N^2)" when !@utf8), ..., "-" for NONE. */
const char *xp_dbl_class_name(enum xp_dbl_class c, bool utf8);

/* ln value = b0 + exponent x ln N, over the points whose value is > 0. */
struct xp_dbl_slope {
	bool ok;       /* at least XP_DBL_FIT_MIN_SIZES such points, at different sizes */
	size_t points; /* how many were used */
	double exponent;
	double r2; /* 1 when every value is the same */
};

/* The slope of @v against @n over @k sizes, into @out (ok false when too few points). */
void xp_dbl_slope(const double *n, const double *v, size_t k, struct xp_dbl_slope *out);

enum xp_dbl_model {
	XP_MODEL_1,
	XP_MODEL_LOGN,
	XP_MODEL_N,
	XP_MODEL_NLOGN,
	XP_MODEL_N2,
	XP_MODEL_N3,
	XP_MODEL_EXP,
	XP_NMODELS
};

/* "1", "log N", "N", "N log N", "N²" (or "N^2" when !@utf8), "N³", "2^N". */
const char *xp_dbl_model_name(enum xp_dbl_model m, bool utf8);

/*
 * Fewer sizes than this and the model fit says "too few sizes"; fewer with
 * a value above 0 and there is no slope and no model either.
 */
#define XP_DBL_FIT_MIN_SIZES 3

/*
 * A simpler model wins unless a more complex one's normalised RMS error is
 * below 1/XP_DBL_FIT_MARGIN of it: a curve with more bend must earn it.
 */
#define XP_DBL_FIT_MARGIN 1.1

struct xp_dbl_fit {
	bool ok;	 /* a model was chosen */
	const char *why; /* when !ok: "too few sizes" */
	enum xp_dbl_model best;
	double noise; /* the points' own noise, as an nrms: no model need fit closer */
	/* Per model: value ~ a + c g(N); nrms = RMS error / mean value. */
	bool valid[XP_NMODELS]; /* fitted, with c > 0 (a growth, not a decay) */
	double a[XP_NMODELS];
	double c[XP_NMODELS];
	double nrms[XP_NMODELS];
};

/*
 * Least squares of @v = a + c g(@n) for each model over @k points (sizes
 * distinct and > 0), and the best: the simplest model whose nrms is within
 * XP_DBL_FIT_MARGIN of the smallest, or within the points' own noise:
 * @sigma[i] is how far point i may be off (a counter's step; NULL: exact).
 * All values 0: model 1, exactly; one or two above 0: no model.
 */
void xp_dbl_fit(const double *n, const double *v, const double *sigma, size_t k,
		struct xp_dbl_fit *out);

#endif
