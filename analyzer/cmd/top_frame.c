// SPDX-License-Identifier: MIT
/*
 * top_frame: one frame of extprof top.  The report's rows, in the report's
 * order, through the report's own table:
 *
 *   extprof top: extprof.data, 1 process running (pid 4242), 4 workers  12:00:01
 *   counter var:checker_work (units), deterministic; run total 1,234,567 units
 *
 *   kind       declaration         evaluations  eval/s  per-eval  cost  share  obs share  flags
 *   invariant  consistent@checker       41,000   8,200       256   ...
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/num.h"
#include "util/text_table.h"
#include "cmd/top.h"

static void top_heading(FILE *out, const struct xp_top *t, const struct xp_report *r,
			const struct xp_top_state *st, const char *bold, const char *off)
{
	char when[16] = "", a[XP_U64_BUF];
	time_t now = time(NULL);
	struct tm tm;

	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(out, "%sextprof top%s: ", bold, off);
	xp_text_put(out, t->dir);
	if (!r) {
		fprintf(out, "  %s\n%s\n", when, st->waiting);
		return;
	}
	fprintf(out, ", %zu process%s", r->processes, r->processes == 1 ? "" : "es");
	if (st->running)
		fprintf(out, " (%zu running)", st->running);
	else
		fputs(" (all ended)", out);
	fprintf(out, ", %zu worker%s, %" PRIu64 " thread%s  %s\n", r->workers,
		r->workers == 1 ? "" : "s", r->threads, r->threads == 1 ? "" : "s", when);
	fputs("counter ", out);
	xp_text_put(out, r->counter_name);
	fputs(" (", out);
	xp_text_put(out, r->counter_unit);
	fprintf(out, "), %s; ", r->deterministic ? "deterministic" : "not deterministic");
	if (st->running) {
		fputs("shares of the hooked functions' total (the run total is known when the "
		      "threads end)",
		      out);
	} else {
		fprintf(out, "run total %s ", xp_fmt_u64(a, r->run_total));
		xp_text_put(out, r->counter_unit);
	}
	if (st->skipped)
		fprintf(out, "; %zu dump%s skipped this time (being rewritten, or corrupt)",
			st->skipped, st->skipped == 1 ? "" : "s");
	fputc('\n', out);
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("warning: ", out);
		xp_text_put(out, r->warnings[i]);
		fputc('\n', out);
	}
}

/*
 * Evaluations per second: since the last frame, or, at the first, over
 * the run so far: from its first start to now, or to its last update when
 * it has ended (a running shim updates neither its end nor its run total).
 */
static double top_rate(const struct xp_top *t, const struct xp_report *r, const struct xp_row *row,
		       const struct xp_top_state *st)
{
	double now = st->now;
	struct xp_top_seen *s = NULL;
	double span;

	if (t->seen_at > 0) {
		HASH_FIND_STR(t->seen, row->hkey, s);
		span = now - t->seen_at;
		if (span <= 0)
			return 0;
		if (!s)
			return (double)row->fin.evaluations / span;
		if (row->fin.evaluations <= s->evaluations)
			return 0;
		return (double)(row->fin.evaluations - s->evaluations) / span;
	}
	span = ((st->running ? (double)st->realtime_ns : (double)r->end_ns) - (double)r->start_ns) /
	       1e9;
	return span > 0 ? (double)row->fin.evaluations / span : 0;
}

/* What the shares are of: the run total, or, while it is not known, the rows' totals. */
struct top_base {
	uint64_t cost, observed;
};

static void top_row(struct xp_table *tb, const struct xp_top *t, const struct xp_report *r,
		    const struct xp_row *row, const struct xp_top_state *st,
		    const struct top_base *b)
{
	char a[XP_U64_BUF], flags[XP_FLAGS_TEXT];
	double rate = top_rate(t, r, row, st);

	xp_table_add(tb, row->kind);
	xp_table_addf(tb, "%s%s%s", row->symbol, row->object[0] ? "@" : "", row->object);
	xp_table_add(tb, xp_fmt_u64(a, row->fin.evaluations));
	xp_table_add(tb, xp_fmt_u64(a, (uint64_t)(rate + 0.5)));
	xp_table_add(tb, row->fin.evaluations ? xp_fmt_u64(a, row->per_eval) : "-");
	xp_table_add(tb, xp_fmt_u64(a, row->cost));
	xp_table_add_share(tb, b->cost, b->cost ? (double)row->cost / (double)b->cost : 0.0);
	xp_table_add_share(tb, b->observed,
			   b->observed ? (double)row->fin.observed / (double)b->observed : 0.0);
	xp_table_add(tb, xp_flags_text(flags, sizeof(flags), row->flags));
}

/* Remember each row's evaluations for the next frame's rates. */
static int top_remember(struct xp_top *t, const struct xp_report *r, double now)
{
	struct xp_top_seen *s, *tmp;

	HASH_ITER(hh, t->seen, s, tmp)
	{
		HASH_DEL(t->seen, s);
		free(s->hkey);
		free(s);
	}
	for (size_t i = 0; r && i < r->nrows; i++) {
		s = calloc(1, sizeof(*s));
		if (!s || !(s->hkey = strdup(r->rows[i].hkey))) {
			free(s);
			return -ENOMEM;
		}
		s->evaluations = r->rows[i].fin.evaluations;
		HASH_ADD_KEYPTR(hh, t->seen, s->hkey, strlen(s->hkey), s);
	}
	t->seen_at = r ? now : 0;
	return 0;
}

int xp_top_frame(struct xp_top *t, const struct xp_report *r, const struct xp_top_state *st,
		 FILE *out, bool colour)
{
	static const bool right[] = {false, false, true, true, true, true, true, true, false};
	const char *bold = colour ? "\033[1m" : "", *flag = colour ? "\033[33m" : "",
		   *off = colour ? "\033[0m" : "";
	struct top_base b = {r ? r->run_total : 0, r ? r->run_total : 0};
	struct xp_table tb;
	int err;

	for (size_t i = 0; r && st->running && i < r->nrows; i++) {
		if (i == 0)
			b.cost = b.observed = 0;
		b.cost = xp_sat_add(b.cost, r->rows[i].cost);
		b.observed = xp_sat_add(b.observed, r->rows[i].fin.observed);
	}
	top_heading(out, t, r, st, bold, off);
	if (!r)
		return top_remember(t, NULL, st->now);
	fputc('\n', out);
	xp_table_init(&tb, 9, right);
	xp_table_add(&tb, "kind");
	xp_table_add(&tb, "declaration");
	xp_table_add(&tb, "evaluations");
	xp_table_add(&tb, "eval/s");
	xp_table_add(&tb, "per-eval");
	xp_table_add(&tb, "cost");
	xp_table_add(&tb, "share");
	xp_table_add(&tb, "obs share");
	xp_table_add(&tb, "flags");
	for (size_t i = 0; i < r->nrows; i++)
		top_row(&tb, t, r, &r->rows[i], st, &b);
	err = tb.err;
	if (!err)
		xp_table_print(&tb, out, bold, flag, off);
	xp_table_free(&tb);
	return err ? err : top_remember(t, r, st->now);
}

void xp_top_free(struct xp_top *t)
{
	top_remember(t, NULL, 0);
}
