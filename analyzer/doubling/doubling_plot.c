// SPDX-License-Identifier: MIT
/*
 * doubling_plot: one value against N on log-log axes, a line per
 * declaration with a legend, and faint reference slopes for N, N² and N³
 * through a data point (the first point of the series in the middle): a
 * line parallel to one of them grows as that power; a 0, which a log axis
 * has no place for, is a hollow triangle in a strip under it.  Series that
 * lie on each other stay apart: each has its own colour, dash and marker
 * (filled and hollow in turn), and its number at its last point, pushed
 * clear of the others' and shown again in the legend.  With repeats, a bar
 * at each point spans the least to the largest of the runs.  Drawn with
 * cairo, PNG or SVG by the file's extension.  Written to a temporary file
 * beside the target and renamed over it at the end, so a failure never
 * leaves half a picture where a whole one was.
 */
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doubling/doubling.h"

#define WIDTH	       900.0
#define HEIGHT	       560.0
#define PNG_SCALE      2.0 /* pixels per unit: sharp on a high-density screen */
#define LEFT	       76.0
#define TOP	       56.0
#define BOTTOM	       56.0
#define LEGEND_GAP     24.0
#define LEGEND_LINE    18.0
#define FONT	       "DejaVu Sans"
#define NAME_MAX_CHARS 40

struct plot {
	const struct xp_doubling *d;
	enum xp_dbl_value v;
	double w, h;		   /* the picture */
	double pl, pt, pw, ph;	   /* the plot area */
	double lx0, lx1, ly0, ly1; /* its ranges, log10 */
	size_t nseries;
	double legend_w;
	bool empty;
	unsigned *zeros; /* nsizes: the 0s marked at each size so far */
	double zh;	 /* the strip under the plot where they are, 0 when none */
};

static const double palette[][3] = {
	{0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173}, {0.839, 0.153, 0.157},
	{0.580, 0.404, 0.741}, {0.549, 0.337, 0.294}, {0.890, 0.467, 0.761}, {0.498, 0.498, 0.498},
	{0.737, 0.741, 0.133}, {0.090, 0.745, 0.812},
};

#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

static bool drawn(const struct plot *p, const struct xp_dbl_decl *x, size_t i)
{
	return x->pts[i].present && x->pts[i].v[p->v] > 0;
}

/* A 0 has no place on a log axis: it is marked on the bottom edge instead. */
static bool zero(const struct plot *p, const struct xp_dbl_decl *x, size_t i)
{
	return x->pts[i].present && !x->pts[i].v[p->v];
}

/* A line for every declaration called at some size. */
static bool series(const struct plot *p, const struct xp_dbl_decl *x)
{
	for (size_t i = 0; i < p->d->nsizes; i++)
		if (x->pts[i].present && x->pts[i].v[XP_DBL_EVALUATIONS])
			return true;
	return false;
}

size_t xp_dbl_plot_zeros(const struct xp_doubling *d, enum xp_dbl_value v)
{
	const struct plot p = {.d = d, .v = v};
	size_t n = 0;

	for (size_t k = 0; k < d->ndecls; k++)
		for (size_t i = 0; series(&p, &d->decls[k]) && i < d->nsizes; i++)
			n += zero(&p, &d->decls[k], i);
	return n;
}

static bool any_zero(const struct plot *p)
{
	return xp_dbl_plot_zeros(p->d, p->v) > 0;
}

/* "name@object", cut at a character boundary when long. */
static void label(char *buf, size_t len, const struct xp_dbl_decl *x, const struct plot *p)
{
	const struct xp_dbl_slope *s = &x->g[p->v].slope;
	const struct xp_dbl_fit *f = &x->g[p->v].fit;
	char name[4 * NAME_MAX_CHARS + 8];
	size_t chars = 0, i;

	snprintf(name, sizeof(name), "%s@%s", x->symbol, x->object);
	for (i = 0; name[i]; i++) {
		if (((unsigned char)name[i] & 0xc0) != 0x80 && ++chars > NAME_MAX_CHARS) {
			strcpy(name + i, "…");
			break;
		}
	}
	if (s->ok && f->ok)
		snprintf(buf, len, "%s  N^%.2f, fit %s", name, s->exponent,
			 xp_dbl_model_name(f->best, true));
	else if (s->ok)
		snprintf(buf, len, "%s  N^%.2f", name, s->exponent);
	else
		snprintf(buf, len, "%s", name);
}

static void ranges(struct plot *p)
{
	double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = 0;

	for (size_t k = 0; k < p->d->ndecls; k++) {
		const struct xp_dbl_decl *x = &p->d->decls[k];

		for (size_t i = 0; i < p->d->nsizes; i++) {
			double n = (double)p->d->sizes[i].n, y = (double)x->pts[i].v[p->v];

			if (!drawn(p, x, i))
				continue;
			x0 = fmin(x0, n);
			x1 = fmax(x1, n);
			y0 = fmin(y0, y);
			y1 = fmax(y1, y);
			/* and the runs' spread, where it is drawn */
			if (x->pts[i].lo[p->v] > 0 && x->pts[i].hi[p->v] > x->pts[i].lo[p->v]) {
				y0 = fmin(y0, (double)x->pts[i].lo[p->v]);
				y1 = fmax(y1, (double)x->pts[i].hi[p->v]);
			}
		}
	}
	p->empty = !(y1 > 0);
	if (p->empty) {
		x0 = (double)p->d->sizes[0].n;
		x1 = (double)p->d->sizes[p->d->nsizes - 1].n;
		y0 = 1;
		y1 = 1000;
	}
	p->lx0 = log10(x0);
	p->lx1 = log10(x1);
	p->ly0 = log10(y0);
	p->ly1 = log10(y1);
	if (p->lx1 - p->lx0 < 0.3) {
		p->lx0 -= 0.15;
		p->lx1 += 0.15;
	}
	if (p->ly1 - p->ly0 < 1) { /* at least a decade, centred */
		double mid = (p->ly0 + p->ly1) / 2;

		p->ly0 = mid - 0.5;
		p->ly1 = mid + 0.5;
	}
	/* a margin, so that points do not sit on the frame */
	p->lx0 -= 0.04 * (p->lx1 - p->lx0);
	p->lx1 += 0.04 * (p->lx1 - p->lx0);
	p->ly0 -= 0.06 * (p->ly1 - p->ly0);
	p->ly1 += 0.06 * (p->ly1 - p->ly0);
}

static double X(const struct plot *p, double lx)
{
	return p->pl + (lx - p->lx0) / (p->lx1 - p->lx0) * p->pw;
}

static double Y(const struct plot *p, double ly)
{
	return p->pt + p->ph - (ly - p->ly0) / (p->ly1 - p->ly0) * p->ph;
}

/* 1, 20, 500, 1k, 20k, 5M, ...: tick labels. */
static void fmt_tick(char *buf, size_t len, double v)
{
	static const char *const units[] = {"", "k", "M", "G", "T", "P"};
	int u = 0;

	if (v >= 1e18 || v < 1e-3) {
		snprintf(buf, len, "%.0e", v);
		return;
	}
	if (v < 1) {
		snprintf(buf, len, "%g", v);
		return;
	}
	while (v >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g%s", v, units[u]);
}

static void text_at(cairo_t *cr, double x, double y, const char *s, double ax, double ay)
{
	cairo_text_extents_t te;

	cairo_text_extents(cr, s, &te);
	cairo_move_to(cr, x - te.width * ax - te.x_bearing, y - te.height * ay - te.y_bearing);
	cairo_show_text(cr, s);
}

static void grid_line(cairo_t *cr, double x0, double y0, double x1, double y1)
{
	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1, y1);
	cairo_stroke(cr);
}

/* Ticks on y: decades, with 2 and 5 between them when there are few. */
static void ticks_y(const struct plot *p, cairo_t *cr)
{
	bool fine = p->ly1 - p->ly0 < 2.5;
	char buf[32];

	for (double e = floor(p->ly0); e <= ceil(p->ly1); e++) {
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
			double ly = e + log10((double)m);

			if ((m > 1 && !fine) || ly < p->ly0 || ly > p->ly1)
				continue;
			cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
			grid_line(cr, p->pl, Y(p, ly), p->pl + p->pw, Y(p, ly));
			cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
			fmt_tick(buf, sizeof(buf), pow(10, ly));
			text_at(cr, p->pl - 6, Y(p, ly), buf, 1.0, 0.5);
		}
	}
}

/* Ticks on x: the sizes themselves when they are few, else decades. */
static void ticks_x(const struct plot *p, cairo_t *cr)
{
	const struct xp_doubling *d = p->d;
	bool sizes = d->nsizes <= 12;
	char buf[32];
	size_t n = sizes ? d->nsizes : (size_t)(ceil(p->lx1) - floor(p->lx0) + 1);

	for (size_t i = 0; i < n; i++) {
		double lx = sizes ? log10((double)d->sizes[i].n) : floor(p->lx0) + (double)i;

		if (lx < p->lx0 || lx > p->lx1)
			continue;
		cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
		grid_line(cr, X(p, lx), p->pt, X(p, lx), p->pt + p->ph);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		fmt_tick(buf, sizeof(buf), pow(10, lx));
		if (sizes)
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)d->sizes[i].n);
		text_at(cr, X(p, lx), p->pt + p->ph + p->zh + 8, buf, 0.5, 0.0);
	}
}

/*
 * The point the guides go through: of the series' first points (at their
 * smallest N), the one of the middle value, so that the guides run through
 * the data rather than from a corner.  false when nothing is drawn.
 */
static bool guide_anchor(const struct plot *p, double *lx, double *ly, size_t *decl)
{
	double ys[64];
	size_t ks[64], n = 0;

	for (size_t k = 0; k < p->d->ndecls && n < 64; k++) {
		const struct xp_dbl_decl *x = &p->d->decls[k];

		for (size_t i = 0; series(p, x) && i < p->d->nsizes; i++)
			if (drawn(p, x, i)) {
				ys[n] = log10((double)x->pts[i].v[p->v]);
				ks[n++] = k * p->d->nsizes + i;
				break;
			}
	}
	if (!n)
		return false;
	/* the middle one: sorted by value, a few at most, so by insertion */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ys[j - 1] > ys[j]; j--) {
			double t = ys[j];
			size_t u = ks[j];

			ys[j] = ys[j - 1];
			ys[j - 1] = t;
			ks[j] = ks[j - 1];
			ks[j - 1] = u;
		}
	*decl = ks[n / 2] / p->d->nsizes;
	*lx = log10((double)p->d->sizes[ks[n / 2] % p->d->nsizes].n);
	*ly = ys[n / 2];
	return true;
}

/* N, N², N³ through the anchor, faint and dotted, each named where it leaves the plot. */
static void references(const struct plot *p, cairo_t *cr)
{
	static const char *const names[] = {"N", "N²", "N³"};
	static const double dash[] = {2.0, 3.0};
	double ax, ay;
	size_t decl;

	if (!guide_anchor(p, &ax, &ay, &decl))
		return;
	cairo_save(cr);
	cairo_rectangle(cr, p->pl, p->pt, p->pw, p->ph);
	cairo_clip(cr);
	cairo_set_dash(cr, dash, 2, 0);
	cairo_set_line_width(cr, 1.0);
	for (int s = 1; s <= 3; s++) {
		/* from the left side to where the line leaves the plot: the right side or the top
		 */
		double lx1 = fmin(p->lx1, ax + (p->ly1 - ay) / s);
		double lx0 = fmax(p->lx0, ax + (p->ly0 - ay) / s);

		if (lx1 <= lx0)
			continue;
		cairo_set_source_rgba(cr, 0.4, 0.4, 0.4, 0.6);
		grid_line(cr, X(p, lx0), Y(p, ay + s * (lx0 - ax)), X(p, lx1),
			  Y(p, ay + s * (lx1 - ax)));
		cairo_set_source_rgba(cr, 0.3, 0.3, 0.3, 0.9);
		text_at(cr, X(p, lx1) - 4, Y(p, ay + s * (lx1 - ax)) + 4, names[s - 1], 1.0, 0.0);
	}
	cairo_restore(cr);
}

/* Series @k's dash: solid, dashed, dotted or dash-dotted. */
static size_t series_dash(size_t k)
{
	return (k + k / NPALETTE) % 4;
}

/* Series @k's colour, dash and width: no two of the first dozens alike. */
static void series_style(cairo_t *cr, size_t k)
{
	static const double dashes[][4] = {{0}, {7.0, 3.0}, {2.0, 2.5}, {9.0, 3.0, 2.0, 3.0}};
	static const int ndash[] = {0, 2, 2, 4};
	const double *c = palette[k % NPALETTE];
	size_t d = series_dash(k);

	cairo_set_source_rgb(cr, c[0], c[1], c[2]);
	cairo_set_line_width(cr, 2.0);
	cairo_set_dash(cr, dashes[d], ndash[d], 0);
}

/* Series @k's marker at (@x, @y): six shapes, filled for even k, hollow for odd. */
static void marker(cairo_t *cr, size_t k, double x, double y)
{
	int shape = (int)(k % 6);

	cairo_save(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_set_line_width(cr, 1.5);
	switch (shape) {
	case 0:
		cairo_arc(cr, x, y, 3.5, 0, 2 * M_PI);
		break;
	case 1:
		cairo_rectangle(cr, x - 3.2, y - 3.2, 6.4, 6.4);
		break;
	case 2:
	case 4: {
		double s = shape == 2 ? 1 : -1;

		cairo_move_to(cr, x, y - 4.2 * s);
		cairo_line_to(cr, x + 4, y + 3 * s);
		cairo_line_to(cr, x - 4, y + 3 * s);
		cairo_close_path(cr);
		break;
	}
	case 3:
		cairo_move_to(cr, x, y - 4.5);
		cairo_line_to(cr, x + 4.5, y);
		cairo_line_to(cr, x, y + 4.5);
		cairo_line_to(cr, x - 4.5, y);
		cairo_close_path(cr);
		break;
	default:
		cairo_move_to(cr, x - 3.5, y - 3.5);
		cairo_line_to(cr, x + 3.5, y + 3.5);
		cairo_move_to(cr, x + 3.5, y - 3.5);
		cairo_line_to(cr, x - 3.5, y + 3.5);
		cairo_stroke(cr);
		cairo_restore(cr);
		return;
	}
	if (k % 2) {
		/* hollow: a marker under it shows through */
		cairo_stroke(cr);
	} else {
		cairo_fill(cr);
	}
	cairo_restore(cr);
}

/* The spread of the runs at a point: a bar from the least to the largest, with caps. */
static void spread_bar(const struct plot *p, cairo_t *cr, const struct xp_dbl_point *pt, double px)
{
	double y0, y1;

	if (!(pt->lo[p->v] > 0) || pt->hi[p->v] <= pt->lo[p->v])
		return;
	y0 = Y(p, log10((double)pt->lo[p->v]));
	y1 = Y(p, log10((double)pt->hi[p->v]));
	cairo_save(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_set_line_width(cr, 1.2);
	grid_line(cr, px, y0, px, y1);
	grid_line(cr, px - 3, y0, px + 3, y0);
	grid_line(cr, px - 3, y1, px + 3, y1);
	cairo_restore(cr);
}

/* Whether some point of some series has runs that differ: bars are drawn. */
static bool any_spread(const struct plot *p)
{
	for (size_t k = 0; k < p->d->ndecls; k++)
		for (size_t i = 0; i < p->d->nsizes; i++) {
			const struct xp_dbl_point *pt = &p->d->decls[k].pts[i];

			if (drawn(p, &p->d->decls[k], i) && pt->lo[p->v] > 0 &&
			    pt->hi[p->v] > pt->lo[p->v])
				return true;
		}
	return false;
}

/* A hollow triangle pointing down, its tip on @y: "0 here". */
static void zero_mark(cairo_t *cr, double x, double y)
{
	cairo_move_to(cr, x, y);
	cairo_line_to(cr, x - 5, y - 9);
	cairo_line_to(cr, x + 5, y - 9);
	cairo_close_path(cr);
	cairo_set_line_width(cr, 1.5);
	cairo_stroke(cr);
	cairo_set_line_width(cr, 2.0);
}

/*
 * @zeros[i]: the marks already at size i, so that the 0s of several
 * declarations at one N stack up from the edge rather than hide each other.
 */
static void draw_series(const struct plot *p, cairo_t *cr, const struct xp_dbl_decl *x, size_t k,
			unsigned *zeros)
{
	bool pen = false;

	series_style(cr, k);
	for (size_t i = 0; i < p->d->nsizes; i++) {
		double px = X(p, log10((double)p->d->sizes[i].n));
		double py = Y(p, log10((double)x->pts[i].v[p->v]));

		if (!drawn(p, x, i)) {
			pen = false; /* a zero has no place on a log axis: a gap */
			continue;
		}
		if (pen)
			cairo_line_to(cr, px, py);
		else
			cairo_move_to(cr, px, py);
		pen = true;
	}
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	for (size_t i = 0; i < p->d->nsizes; i++) {
		double px = X(p, log10((double)p->d->sizes[i].n));

		if (zero(p, x, i))
			zero_mark(cr, px, p->pt + p->ph + p->zh - 3 - 10.0 * zeros[i]++);
		if (!drawn(p, x, i))
			continue;
		spread_bar(p, cr, &x->pts[i], px);
		marker(cr, k, px, Y(p, log10((double)x->pts[i].v[p->v])));
	}
}

/* Where series @k's number goes: right of its last point. */
struct tag {
	double x, y, at; /* the point, and the label's height after pushing */
	size_t k;
};

static int tag_cmp(const void *a, const void *b)
{
	const struct tag *x = a, *y = b;

	return (x->y > y->y) - (x->y < y->y);
}

/*
 * Each series' number right of its last point, the numbers pushed apart
 * (down, then back up within the plot) where series end close together,
 * with a short leader from the point to a number that moved.
 */
static void tags(const struct plot *p, cairo_t *cr)
{
	struct tag *t = calloc(p->nseries + 1, sizeof(*t));
	size_t n = 0, k = 0;
	char buf[16];

	if (!t)
		return;
	for (size_t i = 0; i < p->d->ndecls; i++) {
		const struct xp_dbl_decl *x = &p->d->decls[i];

		if (!series(p, x))
			continue;
		for (size_t j = p->d->nsizes; j-- > 0;)
			if (drawn(p, x, j)) {
				t[n].x = X(p, log10((double)p->d->sizes[j].n));
				t[n].y = t[n].at = Y(p, log10((double)x->pts[j].v[p->v]));
				t[n++].k = k;
				break;
			}
		k++;
	}
	qsort(t, n, sizeof(*t), tag_cmp);
	for (size_t i = 1; i < n; i++)
		if (t[i].at < t[i - 1].at + 11)
			t[i].at = t[i - 1].at + 11;
	for (size_t i = n; i-- > 0;)
		if (t[i].at > p->pt + p->ph - 4 - 11.0 * (double)(n - 1 - i))
			t[i].at = p->pt + p->ph - 4 - 11.0 * (double)(n - 1 - i);
	cairo_set_font_size(cr, 10);
	for (size_t i = 0; i < n; i++) {
		series_style(cr, t[i].k);
		cairo_set_dash(cr, NULL, 0, 0);
		cairo_set_line_width(cr, 0.8);
		if (fabs(t[i].at - t[i].y) > 3)
			grid_line(cr, t[i].x + 4, t[i].y, t[i].x + 9, t[i].at);
		snprintf(buf, sizeof(buf), "%zu", t[i].k + 1);
		text_at(cr, t[i].x + 10, t[i].at, buf, 0.0, 0.5);
	}
	cairo_set_font_size(cr, 11);
	free(t);
}

static void legend(const struct plot *p, cairo_t *cr)
{
	double x = p->pl + p->pw + LEGEND_GAP, y = p->pt + 6;
	size_t k = 0;
	char buf[300];

	for (size_t i = 0; i < p->d->ndecls; i++) {
		const struct xp_dbl_decl *d = &p->d->decls[i];
		char name[256];

		if (!series(p, d))
			continue;
		series_style(cr, k);
		grid_line(cr, x, y + LEGEND_LINE / 2, x + 22, y + LEGEND_LINE / 2);
		marker(cr, k, x + 11, y + LEGEND_LINE / 2);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		label(name, sizeof(name), d, p);
		snprintf(buf, sizeof(buf), "%zu  %s", ++k, name);
		text_at(cr, x + 30, y + LEGEND_LINE / 2, buf, 0.0, 0.5);
		y += LEGEND_LINE;
	}
	if (!any_zero(p))
		return;
	cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
	zero_mark(cr, x + 11, y + LEGEND_LINE / 2 + 5);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	text_at(cr, x + 30, y + LEGEND_LINE / 2, "0 at that N (in the strip under the axis)", 0.0,
		0.5);
}

static void frame(const struct plot *p, cairo_t *cr)
{
	const struct xp_doubling *d = p->d;
	char buf[256];

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, 15);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	snprintf(buf, sizeof(buf), "extprof doubling: %s against N", xp_dbl_value_names[p->v]);
	text_at(cr, p->pl, 18, buf, 0.0, 0.0);
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);
	snprintf(buf, sizeof(buf),
		 "counter %s (%s), stat %s, log-log; grey dotted: N, N², N³ through a point%s",
		 d->counter_name, d->counter_unit, xp_stat_name(d->opts.stat),
		 any_spread(p) ? "; bars: the least to the largest of the runs" : "");
	text_at(cr, p->pl, 38, buf, 0.0, 0.0);
	cairo_set_line_width(cr, 1.0);
	ticks_y(p, cr);
	ticks_x(p, cr);
	cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
	cairo_set_line_width(cr, 1.0);
	cairo_rectangle(cr, p->pl, p->pt, p->pw, p->ph);
	cairo_stroke(cr);
	if (p->zh > 0) {
		/* the 0s, below the log axis that has no place for them */
		cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
		cairo_rectangle(cr, p->pl, p->pt + p->ph, p->pw, p->zh);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		text_at(cr, p->pl - 6, p->pt + p->ph + p->zh / 2, "0", 1.0, 0.5);
	}
	text_at(cr, p->pl + p->pw / 2, p->h - 8, "N", 0.5, 1.0);
	cairo_save(cr);
	cairo_translate(cr, 14, p->pt + p->ph / 2);
	cairo_rotate(cr, -M_PI / 2);
	snprintf(buf, sizeof(buf), "%s (%s)", xp_dbl_value_names[p->v], d->counter_unit);
	text_at(cr, 0, 0, buf, 0.5, 0.5);
	cairo_restore(cr);
	if (p->empty)
		text_at(cr, p->pl + p->pw / 2, p->pt + p->ph / 2,
			p->nseries ? "every value is 0: marked under the axis"
				   : "nothing to draw: no declaration was called",
			0.5, 0.5);
}

static void draw(const struct plot *p, cairo_t *cr)
{
	size_t k = 0;

	memset(p->zeros, 0, p->d->nsizes * sizeof(*p->zeros));

	frame(p, cr);
	references(p, cr);
	cairo_save(cr);
	cairo_rectangle(cr, p->pl - 4, p->pt - 4, p->pw + 8, p->ph + p->zh + 8);
	cairo_clip(cr);
	/* the solid lines first, the dashed over them: a line under another shows in the gaps */
	for (size_t dash = 0; dash < 4; dash++) {
		k = 0;
		for (size_t i = 0; i < p->d->ndecls; i++)
			if (series(p, &p->d->decls[i]) && series_dash(k++) == dash)
				draw_series(p, cr, &p->d->decls[i], k - 1, p->zeros);
	}
	cairo_restore(cr);
	tags(p, cr);
	legend(p, cr);
}

/* The height of the strip of 0s: a mark for each declaration 0 at one size. */
static double zero_strip(const struct plot *p)
{
	unsigned most = 0;

	for (size_t i = 0; i < p->d->nsizes; i++) {
		unsigned here = 0;

		for (size_t k = 0; k < p->d->ndecls; k++)
			here += series(p, &p->d->decls[k]) && zero(p, &p->d->decls[k], i);
		most = here > most ? here : most;
	}
	return most ? 10.0 * most + 6 : 0;
}

/* The legend's width decides the picture's; measured on a scratch surface. */
static void layout(struct plot *p)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	cairo_t *cr = cairo_create(s);
	char buf[256];

	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);
	p->legend_w = 0;
	for (size_t i = 0; i < p->d->ndecls; i++) {
		cairo_text_extents_t te;

		if (!series(p, &p->d->decls[i]))
			continue;
		label(buf, sizeof(buf), &p->d->decls[i], p);
		cairo_text_extents(cr, buf, &te);
		/* and its number before it */
		p->legend_w = fmax(p->legend_w, te.x_advance + 30 + 24);
		p->nseries++;
	}
	if (any_zero(p)) {
		cairo_text_extents_t te;

		cairo_text_extents(cr, "0 at that N (in the strip under the axis)", &te);
		p->legend_w = fmax(p->legend_w, te.x_advance + 30);
	}
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	p->w = WIDTH + p->legend_w + LEGEND_GAP;
	p->h = fmax(HEIGHT, TOP + (double)(p->nseries + 1) * LEGEND_LINE + BOTTOM + 12);
	p->pl = LEFT;
	p->pt = TOP;
	p->pw = WIDTH - LEFT - 16;
	p->zh = zero_strip(p);
	p->ph = p->h - TOP - BOTTOM - p->zh;
	ranges(p);
}

static cairo_status_t write_stream(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS
						    : CAIRO_STATUS_WRITE_ERROR;
}

/* Draw into @f: 0 or a cairo status. */
static cairo_status_t render(const struct plot *p, bool svg, FILE *f)
{
	cairo_surface_t *s;
	cairo_status_t st;
	cairo_t *cr;

	if (svg) {
		s = cairo_svg_surface_create_for_stream(write_stream, f, p->w, p->h);
	} else {
		s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)(p->w * PNG_SCALE),
					       (int)(p->h * PNG_SCALE));
		cairo_surface_set_device_scale(s, PNG_SCALE, PNG_SCALE);
	}
	cr = cairo_create(s);
	cairo_set_font_size(cr, 11);
	draw(p, cr);
	st = cairo_status(cr);
	cairo_destroy(cr);
	if (!st && !svg)
		st = cairo_surface_write_to_png_stream(s, write_stream, f);
	cairo_surface_finish(s);
	if (!st)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	return st;
}

int xp_dbl_plot_stream(const struct xp_doubling *d, enum xp_dbl_value v, bool svg, FILE *out)
{
	struct plot p = {.d = d, .v = v};
	cairo_status_t st;

	p.zeros = calloc(d->nsizes + 1, sizeof(*p.zeros));
	if (!p.zeros)
		return -ENOMEM;
	layout(&p);
	st = render(&p, svg, out);
	free(p.zeros);
	return st ? -EIO : 0;
}

int xp_dbl_plot(const struct xp_doubling *d, enum xp_dbl_value v, const char *path,
		struct xp_err *e)
{
	const char *dot = strrchr(path, '.');
	struct plot p = {.d = d, .v = v};
	cairo_status_t st;
	char *tmp;
	FILE *f;
	int fd;

	if (!dot || (strcasecmp(dot, ".png") && strcasecmp(dot, ".svg")))
		return xp_err_set(e, -EINVAL, "--plot %s: the name must end in .png or .svg", path);
	p.zeros = calloc(d->nsizes + 1, sizeof(*p.zeros));
	if (!p.zeros || asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		free(p.zeros);
		return xp_err_set(e, -ENOMEM, "out of memory");
	}
	fd = mkstemp(tmp);
	if (fd >= 0) {
		/* mkstemp's 0600 is for secrets; a picture gets the usual mode */
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	f = fd < 0 ? NULL : fdopen(fd, "wb");
	if (!f) {
		xp_err_set(e, -errno, "--plot %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		free(p.zeros);
		return -EIO;
	}
	layout(&p);
	st = render(&p, !strcasecmp(dot, ".svg"), f);
	free(p.zeros);
	if (fclose(f) && !st)
		st = CAIRO_STATUS_WRITE_ERROR;
	if (!st && rename(tmp, path) < 0) {
		xp_err_set(e, -errno, "--plot %s: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -EIO;
	}
	if (st) {
		unlink(tmp);
		free(tmp);
		return xp_err_set(e, -EIO, "--plot %s: %s", path, cairo_status_to_string(st));
	}
	free(tmp);
	return 0;
}
