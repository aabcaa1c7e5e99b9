// SPDX-License-Identifier: MIT
/*
 * doubling_fit: ratios, classes, the log-log slope and the model fit.
 *
 * The model fit follows Google Benchmark's Complexity() with two changes:
 * an intercept (a constant per-call overhead must not pull a linear
 * function towards O(1)), and no label on fewer than 3 sizes.  g(N) is
 * divided by g(Nmax) before fitting, so that 2^N at N = 4096 or N³ at a
 * million stays in range; c is scaled back.
 */
#include <math.h>
#include <string.h>

#include "doubling/doubling_fit.h"

enum xp_dbl_class xp_dbl_classify(double r2)
{
	if (!isfinite(r2) || r2 < 0)
		return isinf(r2) && r2 > 0 ? XP_CLASS_EXP : XP_CLASS_NONE;
	if (r2 < 1.4)
		return XP_CLASS_LOG;
	if (r2 < 2.8)
		return XP_CLASS_N;
	if (r2 < 5.5)
		return XP_CLASS_N2;
	if (r2 < 10.0)
		return XP_CLASS_N3;
	return XP_CLASS_EXP;
}

double xp_dbl_per_doubling(double r, double n1, double n2)
{
	if (!isfinite(r) || r <= 0 || !(n1 > 0) || !(n2 > n1))
		return NAN;
	if (n2 == 2 * n1)
		return r; /* exact: no rounding at the table's edges */
	return exp(log(2.0) * log(r) / log(n2 / n1));
}

const char *xp_dbl_class_name(enum xp_dbl_class c, bool utf8)
{
	static const char *const names[2][XP_NCLASSES] = {
		{"-", "O(1)/O(log N)", "O(N)", "O(N^2)", "O(N^3)", "exponential"},
		{"-", "O(1)/O(log N)", "O(N)", "O(N²)", "O(N³)", "exponential"},
	};

	return (unsigned)c < XP_NCLASSES ? names[utf8][c] : "-";
}

const char *xp_dbl_model_name(enum xp_dbl_model m, bool utf8)
{
	static const char *const names[2][XP_NMODELS] = {
		{"1", "log N", "N", "N log N", "N^2", "N^3", "2^N"},
		{"1", "log N", "N", "N log N", "N²", "N³", "2^N"},
	};

	return (unsigned)m < XP_NMODELS ? names[utf8][m] : "?";
}

void xp_dbl_slope(const double *n, const double *v, size_t k, struct xp_dbl_slope *out)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, mx, my, res;
	size_t m = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < k; i++) {
		if (!(v[i] > 0) || !(n[i] > 0))
			continue; /* log 0: a zero says nothing about a power */
		sx += log(n[i]);
		sy += log(v[i]);
		m++;
	}
	out->points = m;
	if (m < XP_DBL_FIT_MIN_SIZES)
		return; /* through two points any line is straight: R² 1 says nothing */
	mx = sx / (double)m;
	my = sy / (double)m;
	for (size_t i = 0; i < k; i++) {
		double dx, dy;

		if (!(v[i] > 0) || !(n[i] > 0))
			continue;
		dx = log(n[i]) - mx;
		dy = log(v[i]) - my;
		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	if (!(sxx > 0))
		return; /* one size only */
	out->ok = true;
	out->exponent = sxy / sxx;
	res = syy - out->exponent * sxy;
	out->r2 = syy > 0 ? 1.0 - (res > 0 ? res : 0) / syy : 1.0;
	if (out->r2 < 0)
		out->r2 = 0;
}

/* g(@n) / g(@nmax): the model's shape, scaled to end at 1. */
static double shape(enum xp_dbl_model m, double n, double nmax)
{
	switch (m) {
	case XP_MODEL_LOGN:
		return log2(n) / log2(nmax);
	case XP_MODEL_N:
		return n / nmax;
	case XP_MODEL_NLOGN:
		return n * log2(n) / (nmax * log2(nmax));
	case XP_MODEL_N2:
		return (n / nmax) * (n / nmax);
	case XP_MODEL_N3:
		return (n / nmax) * (n / nmax) * (n / nmax);
	case XP_MODEL_EXP:
		return exp2(n - nmax);
	default:
		return 1.0;
	}
}

/* c fitted to the scaled shape, back in units of g(N) itself. */
static double unscale(enum xp_dbl_model m, double c, double nmax)
{
	switch (m) {
	case XP_MODEL_LOGN:
		return c / log2(nmax);
	case XP_MODEL_N:
		return c / nmax;
	case XP_MODEL_NLOGN:
		return c / (nmax * log2(nmax));
	case XP_MODEL_N2:
		return c / (nmax * nmax);
	case XP_MODEL_N3:
		return c / (nmax * nmax * nmax);
	case XP_MODEL_EXP:
		return ldexp(c, -(int)fmin(nmax, 1e6));
	default:
		return c;
	}
}

static void fit_one(struct xp_dbl_fit *f, enum xp_dbl_model m, const double *n, const double *v,
		    size_t k, double nmax, double mean)
{
	double gm = 0, sgg = 0, sgy = 0, ss = 0, a, c;

	for (size_t i = 0; i < k; i++)
		gm += shape(m, n[i], nmax);
	gm /= (double)k;
	for (size_t i = 0; i < k; i++) {
		double dg = shape(m, n[i], nmax) - gm;

		sgg += dg * dg;
		sgy += dg * (v[i] - mean);
	}
	if (m == XP_MODEL_1 || !(sgg > 0)) {
		c = 0;
		a = mean;
	} else {
		c = sgy / sgg;
		a = mean - c * gm;
	}
	for (size_t i = 0; i < k; i++) {
		double r = v[i] - a - (m == XP_MODEL_1 ? 0 : c * shape(m, n[i], nmax));

		ss += r * r;
	}
	f->a[m] = a;
	f->c[m] = unscale(m, c, nmax);
	f->nrms[m] = mean > 0 ? sqrt(ss / (double)k) / mean : 0;
	f->valid[m] = m == XP_MODEL_1 || (c > 0 && isfinite(f->nrms[m]));
}

void xp_dbl_fit(const double *n, const double *v, const double *sigma, size_t k,
		struct xp_dbl_fit *out)
{
	double nmax = 0, mean = 0, best = INFINITY, ss = 0, within;

	size_t nonzero = 0;

	memset(out, 0, sizeof(*out));
	if (k < XP_DBL_FIT_MIN_SIZES) {
		out->why = "too few sizes";
		return;
	}
	for (size_t i = 0; i < k; i++) {
		nmax = fmax(nmax, n[i]);
		mean += v[i];
		nonzero += v[i] > 0;
	}
	/* every model passes near two points: a shape needs three */
	if (nonzero && nonzero < XP_DBL_FIT_MIN_SIZES) {
		out->why = "fewer than 3 sizes with a value above 0";
		return;
	}
	mean /= (double)k;
	if (nmax <= 1) {
		out->why = "sizes must be distinct and above 0";
		return;
	}
	for (size_t i = 0; sigma && i < k; i++)
		ss += sigma[i] * sigma[i];
	out->noise = mean > 0 ? sqrt(ss / (double)k) / mean : 0;
	for (int m = 0; m < XP_NMODELS; m++) {
		fit_one(out, (enum xp_dbl_model)m, n, v, k, nmax, mean);
		if (out->valid[m])
			best = fmin(best, out->nrms[m]);
	}
	/*
	 * Closer than the points are known is not better: a floor read to a
	 * step of 26 ticks lets a bend of N log N fit noise that N fits too.
	 */
	within = fmax(best * XP_DBL_FIT_MARGIN, out->noise) + 1e-12;
	for (int m = 0; m < XP_NMODELS; m++) {
		if (out->valid[m] && out->nrms[m] <= within) {
			out->best = (enum xp_dbl_model)m;
			break;
		}
	}
	out->ok = true;
}
