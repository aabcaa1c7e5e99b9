// SPDX-License-Identifier: MIT
/*
 * top_screen: one screen (a frame) of extprof top.  The report's rows, in
 * the report's order, through the report's own table:
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
 * The row's rate, from its entry in @t->seen (made at its first frame):
 *
 *   evaluations as the frames saw them:
 *
 *                                           ┌───────────  last
 *                             ┌─────────────┘             before
 *        ─────────────────────┘
 *   frames      |      |      |      |      |      |
 *                         before_at       last_at     now
 *
 *   rate = (last - before) / max(last_at - before_at, now - last_at)
 *
 * over the time between the last two frames that saw the count change, not
 * since the last frame: a function called less often than frames are
 * drawn would read 0 at every frame between its calls.  Once it is called
 * no more, the rate falls as the time since its last change grows.  At its
 * first frame the count is over the run so far: from its first start to
 * now, or to its last update when it has ended (a running shim updates
 * neither its end nor its run total); a row that appears later, over the
 * time since the frame before.  -ENOMEM, or 0 with *@rate set.
 */
static int top_rate(struct xp_top *t, const struct xp_report *r, const struct xp_row *row,
		    const struct xp_top_state *st, double *rate)
{
	uint64_t evals = row->fin.evaluations;
	struct xp_top_seen *s = NULL;
	double span;

	HASH_FIND_STR(t->seen, row->hkey, s);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s || !(s->hkey = strdup(row->hkey))) {
			free(s);
			return -ENOMEM;
		}
		span = ((st->running ? (double)st->realtime_ns : (double)r->end_ns) -
			(double)r->start_ns) /
		       1e9;
		s->last = evals;
		s->last_at = st->now;
		s->before_at = t->seen_at > 0 ? t->seen_at : st->now - (span > 0 ? span : 0);
		HASH_ADD_KEYPTR(hh, t->seen, s->hkey, strlen(s->hkey), s);
	} else if (evals > s->last) {
		s->before = s->last;
		s->before_at = s->last_at;
		s->last = evals;
		s->last_at = st->now;
	}
	/* fewer than before: a dump left out of this frame (being rewritten); nothing learnt */
	s->frame = t->frame;
	span = s->last_at - s->before_at;
	if (st->now - s->last_at > span)
		span = st->now - s->last_at;
	*rate = span > 0 ? (double)(s->last - s->before) / span : 0;
	return 0;
}

/* What the shares are of: the run total, or, while it is not known, the rows' totals. */
struct top_base {
	uint64_t cost, observed;
};

static int top_row(struct xp_table *tb, struct xp_top *t, const struct xp_report *r,
		   const struct xp_row *row, const struct xp_top_state *st,
		   const struct top_base *b)
{
	char a[XP_U64_BUF], flags[XP_FLAGS_TEXT];
	double rate;
	int err = top_rate(t, r, row, st, &rate);

	if (err)
		return err;

	xp_table_add(tb, row->kind);
	xp_table_addf(tb, "%s%s%s", row->symbol, row->object[0] ? "@" : "", row->object);
	xp_table_add(tb, xp_fmt_u64(a, row->fin.evaluations));
	/* a function called less than 10 times a second: tenths, not a 0 */
	if (rate > 0 && rate < 9.95)
		xp_table_addf(tb, "%.1f", rate);
	else
		xp_table_add(tb, xp_fmt_u64(a, (uint64_t)(rate + 0.5)));
	xp_table_add(tb, row->fin.evaluations ? xp_fmt_u64(a, row->per_eval) : "-");
	xp_table_add(tb, xp_fmt_u64(a, row->cost));
	xp_table_add_share(tb, b->cost, b->cost ? (double)row->cost / (double)b->cost : 0.0);
	xp_table_add_share(tb, b->observed,
			   b->observed ? (double)row->fin.observed / (double)b->observed : 0.0);
	xp_table_add(tb, xp_flags_text(flags, sizeof(flags), row->flags));
	return 0;
}

/* Forget the rows the frame did not have (all of them with @all), and when it was drawn. */
static void top_forget(struct xp_top *t, bool all, double now)
{
	struct xp_top_seen *s, *tmp;

	HASH_ITER(hh, t->seen, s, tmp)
	{
		if (!all && s->frame == t->frame)
			continue;
		HASH_DEL(t->seen, s);
		free(s->hkey);
		free(s);
	}
	t->seen_at = all ? 0 : now;
}

int xp_top_screen(struct xp_top *t, const struct xp_report *r, const struct xp_top_state *st,
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
	if (!r) {
		top_forget(t, true, 0);
		return 0;
	}
	t->frame++;
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
	err = 0;
	for (size_t i = 0; i < r->nrows && !err; i++)
		err = top_row(&tb, t, r, &r->rows[i], st, &b);
	if (!err)
		err = tb.err;
	if (!err)
		xp_table_print(&tb, out, bold, flag, off);
	xp_table_free(&tb);
	top_forget(t, false, st->now);
	return err;
}

void xp_top_free(struct xp_top *t)
{
	top_forget(t, true, 0);
}
