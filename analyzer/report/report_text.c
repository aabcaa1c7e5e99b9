// SPDX-License-Identifier: MIT
/*
 * report_text: the report for a person.  A header that says what the
 * numbers are and whether to trust them, the table, most expensive first,
 * and a legend of the columns and flags.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/num.h"
#include "report/nest.h"
#include "report/report.h"
#include "util/text_table.h"

struct colours {
	const char *bold, *warn, *bad, *flag, *off;
};

static const struct colours plain = {"", "", "", "", ""};
static const struct colours ansi = {"\033[1m", "\033[33m", "\033[1;31m", "\033[33m", "\033[0m"};

#define PIDS_SHOWN 8

static void text_pids(FILE *out, const uint64_t *pids, size_t n)
{
	for (size_t i = 0; i < n && i < PIDS_SHOWN; i++)
		fprintf(out, "%s%" PRIu64, i ? ", " : "", pids[i]);
	if (n > PIDS_SHOWN)
		fprintf(out, ", ... (%zu more)", n - PIDS_SHOWN);
}

static void text_title(FILE *out, const struct xp_report *r, const struct colours *c)
{
	fprintf(out, "%sextprof report%s: ", c->bold, c->off);
	if (r->runs > 1)
		fprintf(out, "%zu runs, ", r->runs);
	fprintf(out, "%zu process%s (pid%s ", r->processes, r->processes == 1 ? "" : "es",
		r->npids == 1 ? "" : "s");
	text_pids(out, r->pids, r->npids);
	fprintf(out, "), %zu worker%s, %" PRIu64 " thread%s\n", r->workers,
		r->workers == 1 ? "" : "s", r->threads, r->threads == 1 ? "" : "s");
}

/* steps: which evaluations were stepped, and so what the figures are of. */
static void text_sampled(FILE *out, const struct xp_report *r)
{
	char a[XP_U64_BUF], b[XP_U64_BUF], c[XP_U64_BUF];
	uint64_t k = 0, n = 0;

	if (!r->sampled)
		return;
	for (size_t i = 0; i < r->nrows; i++) {
		k = xp_sat_add(k, r->rows[i].fin.samples);
		n = xp_sat_add(n, r->rows[i].fin.evaluations);
	}
	fprintf(out, "sampled      %s of %s evaluations stepped: the first %u", xp_fmt_u64(a, k),
		xp_fmt_u64(b, n), r->step_first);
	if (r->step_every)
		fprintf(out, " and every %s%s",
			r->step_every == 1 ? "" : xp_fmt_u64(c, r->step_every),
			r->step_every == 1 ? "one" : "th");
	fprintf(out,
		" of each\n             declaration on each worker (and what they call), up to %s"
		" instructions each;\n             observed is estimated: the stepped ones' mean"
		" x evaluations\n",
		xp_fmt_u64(c, r->step_limit));
}

/* steps, translated: every evaluation counted; those that ran in part natively said. */
static void text_translated(FILE *out, const struct xp_report *r)
{
	char a[XP_U64_BUF], b[XP_U64_BUF];
	uint64_t k = 0, n = 0;

	if (!r->translated)
		return;
	for (size_t i = 0; i < r->nrows; i++) {
		k = xp_sat_add(k, r->rows[i].fin.samples);
		n = xp_sat_add(n, r->rows[i].fin.evaluations);
	}
	fprintf(out, "counted      every evaluation, from a code cache: %s of %s counted whole",
		xp_fmt_u64(a, k), xp_fmt_u64(b, n));
	if (k < n)
		fprintf(out, ";\n             %s ran in part natively (not-whole), without a delta",
			xp_fmt_u64(a, n - k));
	fputc('\n', out);
}

static void text_counter(FILE *out, const struct xp_report *r)
{
	char a[XP_U64_BUF], b[XP_U64_BUF];

	fputs("counter      ", out);
	xp_text_put(out, r->counter_name);
	fputs(" (", out);
	xp_text_put(out, r->counter_unit);
	fprintf(out, "), %s\n",
		r->deterministic ? "deterministic: the same work gives the same count"
				 : "not deterministic: load moves single deltas, the floor holds");
	text_sampled(out, r);
	text_translated(out, r);
	if (r->sampled || r->translated) {
		fputs("calibration  none: steps counts none of the hook's own instructions\n", out);
		return;
	}
	fprintf(out, "calibration  %s", xp_fmt_u64(a, r->calibration));
	if (r->calibration_max != r->calibration)
		fprintf(out, " to %s (each process its own)", xp_fmt_u64(b, r->calibration_max));
	fputc(' ', out);
	xp_text_put(out, r->counter_unit);
	fputs(" per evaluation: the hook's own floor, subtracted once per process\n", out);
	fprintf(out, "resolution   %s ", xp_fmt_u64(a, r->resolution));
	xp_text_put(out, r->counter_unit);
	fputs(": the smallest step the counter was seen to take", out);
	if (r->step > r->resolution) {
		fprintf(out, "; its deltas move in steps of %s ", xp_fmt_u64(b, r->step));
		xp_text_put(out, r->counter_unit);
	}
	fputc('\n', out);
}

static const char *const stat_says[] = {
	[XP_STAT_MIN] = "min: the floor (least delta) less calibration",
	[XP_STAT_MEDIAN] = "median: p50 of the deltas less calibration",
	[XP_STAT_MEAN] = "mean: observed / evaluations",
};

/* @ns (CLOCK_REALTIME) as local time in @fmt: false when it cannot be said. */
static bool text_when(char *buf, size_t size, int64_t ns, const char *fmt)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	return ns > 0 && localtime_r(&t, &tm) && strftime(buf, size, fmt, &tm);
}

static void text_time(FILE *out, const struct xp_report *r)
{
	char when[64];

	if (!text_when(when, sizeof(when), r->start_ns, "%Y-%m-%d %H:%M:%S %z"))
		return;
	fprintf(out, "started      %s", when);
	/* as doubles: hostile times must not overflow the subtraction */
	if (r->end_ns > r->start_ns)
		fprintf(out, ", last update %.3f s later",
			((double)r->end_ns - (double)r->start_ns) / 1e9);
	fputc('\n', out);
}

static void text_status(FILE *out, const struct xp_report *r, const struct colours *c)
{
	if (r->complete) {
		fputs("status       complete: every process ended cleanly (exit, _exit or exec)\n",
		      out);
		return;
	}
	fprintf(out, "status       %sincomplete%s: pid%s ", c->bad, c->off,
		r->nincomplete == 1 ? "" : "s");
	text_pids(out, r->incomplete_pids, r->nincomplete);
	fprintf(out, " did not finish cleanly (crash, signal or still running);"
		     " counted up to then\n");
}

static void text_window(FILE *out, const struct xp_report *r)
{
	char a[XP_U64_BUF];
	uint64_t outside = 0;

	fputs("window       ", out);
	if (!r->window[0] && r->attached) {
		char from[64], to[64];

		if (text_when(from, sizeof(from), r->start_ns, "%H:%M:%S") &&
		    text_when(to, sizeof(to), r->end_ns, "%H:%M:%S %z") && r->end_ns > r->start_ns)
			fprintf(out,
				"an attachment, from %s to %s (%.3f s): calls begun before "
				"it are not counted\n",
				from, to, ((double)r->end_ns - (double)r->start_ns) / 1e9);
		else
			fputs("an attachment: calls begun before it are not counted\n", out);
		return;
	}
	if (!r->window[0]) {
		fputs("the whole run\n", out);
		return;
	}
	for (size_t i = 0; i < r->nrows; i++)
		outside = xp_sat_add(outside, r->rows[i].fin.outside);
	xp_text_put(out, r->window);
	fprintf(out, ": %s evaluations outside it are left out of cost, observed and share\n",
		xp_fmt_u64(a, outside));
}

static const char *const repeat_says[] = {
	[XP_STAT_MIN] = "the least of the runs' per-evals",
	[XP_STAT_MEDIAN] = "the median of the runs' per-evals",
	[XP_STAT_MEAN] = "the mean of the runs' per-evals",
};

static void text_runs(FILE *out, const struct xp_report *r)
{
	if (r->runs <= 1 && !r->warmup)
		return;
	fprintf(out, "runs         %zu", r->runs);
	if (r->warmup)
		fprintf(out, " after %u warmup run%s", r->warmup, r->warmup == 1 ? "" : "s");
	fprintf(out, ": per-eval %s; evaluations, observed and run total their median\n",
		repeat_says[r->opts.stat]);
}

static void text_callers(FILE *out, const struct xp_report *r)
{
	if (!r->callers_depth)
		return;
	fprintf(out, "callers      up to %u frame%s deep: %s\n", r->callers_depth,
		r->callers_depth == 1 ? "" : "s",
		r->opts.callers ? "each declaration's chains under it"
				: "recorded; --callers shows them");
}

/* "executables  dash, ls, sort, wc: each its own rows" */
static void text_exes(FILE *out, const struct xp_report *r)
{
	if (!r->by_exe)
		return;
	fprintf(out, "executables  %zu, each with rows of its own: ", r->nexes);
	for (size_t i = 0; i < r->nexes; i++) {
		const char *slash = strrchr(r->exes[i], '/');

		if (i)
			fputs(", ", out);
		xp_text_put(out, slash ? slash + 1 : r->exes[i]);
	}
	fputc('\n', out);
}

#define GROUPS_SHOWN 8

/* "cpu models   2, each with rows of its own: [1] AMD ..., [2] Intel ..." */
static void text_cpus(FILE *out, const struct xp_report *r)
{
	if (r->ncpus < 2)
		return;
	fprintf(out, "cpu models   %zu, %s: ", r->ncpus,
		r->by_cpu	   ? "each with rows of its own (the counter is not deterministic)"
		: r->deterministic ? "merged (the counter is deterministic)"
				   : "merged (--allow-mixed)");
	for (size_t i = 0; i < r->ncpus; i++) {
		fprintf(out, "%s[%zu] ", i ? ", " : "", i + 1);
		xp_text_put(out, r->cpus[i]);
	}
	fputc('\n', out);
}

/* "by host      4 hosts: alpha, beta, gamma, delta" */
static void text_groups(FILE *out, const struct xp_report *r)
{
	const char *name = xp_by_name(r->opts.by);

	if (!name)
		return;
	fprintf(out, "by %-10s%zu %s%s%s: ", name, r->ngroups,
		r->opts.by == XP_BY_PROCESS ? "processes" : name,
		r->opts.by == XP_BY_PROCESS || r->ngroups == 1 ? "" : "s",
		r->opts.by == XP_BY_PROCESS ? " (PID@HOST)" : "");
	for (size_t i = 0; i < r->ngroups && i < GROUPS_SHOWN; i++) {
		if (i)
			fputs(", ", out);
		xp_text_put(out, r->groups[i]);
	}
	if (r->ngroups > GROUPS_SHOWN)
		fprintf(out, ", ... (%zu more)", r->ngroups - GROUPS_SHOWN);
	fputc('\n', out);
}

static void text_head(FILE *out, const struct xp_report *r, const struct colours *c)
{
	char a[XP_U64_BUF];

	text_title(out, r, c);
	text_exes(out, r);
	text_cpus(out, r);
	text_groups(out, r);
	text_counter(out, r);
	fprintf(out, "per-eval     %s\n",
		r->sampled && r->opts.stat == XP_STAT_MIN
			? "min: the least count of the stepped ones"
			: stat_says[r->opts.stat]);
	text_runs(out, r);
	if (r->sampled) {
		fputs("run total    not measured: steps counts the stepped evaluations only\n",
		      out);
	} else {
		fprintf(out, "run total    %s ", xp_fmt_u64(a, r->run_total));
		xp_text_put(out, r->counter_unit);
		fputs(r->window[0] ? " while the window was open, all threads\n"
				   : ", all threads\n",
		      out);
	}
	text_window(out, r);
	text_callers(out, r);
	text_status(out, r, c);
	text_time(out, r);
	for (size_t i = 0; i < r->nwarnings; i++) {
		fprintf(out, "%swarning%s: ", c->warn, c->off);
		xp_text_put(out, r->warnings[i]);
		fputc('\n', out);
	}
}

void xp_table_add_share(struct xp_table *t, uint64_t total, double share)
{
	if (!total)
		xp_table_add(t, "-");
	else if (share > 0 && share < 0.0005)
		xp_table_add(t, "<0.1%");
	else
		xp_table_addf(t, "%.1f%%", share * 100.0);
}

char *xp_flags_text(char *buf, size_t size, unsigned flags)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int f = 0; f < XP_NFLAGS && used < size; f++)
		if (flags & (1u << f))
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " " : "",
						 xp_flag_names[f]);
	return buf;
}

/* Which of the optional count columns some row needs. */
struct columns {
	bool recursive, abandoned;
	bool hist_lost; /* not a column: its flag's legend line */
	bool imbalance; /* nor this */
};

static struct columns text_columns(const struct xp_report *r)
{
	struct columns c = {false, false, false, false};

	for (size_t i = 0; i < r->nrows; i++) {
		c.recursive = c.recursive || r->rows[i].fin.recursive;
		c.abandoned = c.abandoned || r->rows[i].fin.abandoned;
		c.hist_lost = c.hist_lost || r->rows[i].fin.hist_lost;
		c.imbalance = c.imbalance || (r->rows[i].flags & (1u << XP_FLAG_IMBALANCE));
	}
	return c;
}

/* The CPU model @cpu as the table's column says it: its number in the header's list. */
static size_t text_cpu_number(const struct xp_report *r, const char *cpu)
{
	for (size_t i = 0; cpu && i < r->ncpus; i++)
		if (!strcmp(r->cpus[i], cpu))
			return i + 1;
	return 0;
}

static void text_row(struct xp_table *t, const struct xp_report *r, const struct xp_row *row,
		     struct columns cols)
{
	char a[XP_U64_BUF], flags[XP_FLAGS_TEXT];
	/* steps: no evaluation stepped, or none counted whole (a JIT's code): no figure */
	bool figure = row->fin.evaluations && (!(r->sampled || r->translated) || row->fin.samples);

	xp_table_add(t, row->kind);
	if (r->by_exe)
		xp_table_add(t, row->exe ? row->exe : "");
	if (r->by_cpu)
		xp_table_addf(t, "%zu", text_cpu_number(r, row->cpu));
	if (r->opts.by != XP_BY_NONE)
		xp_table_add(t, row->group ? row->group : "");
	xp_table_addf(t, "%s%s%s", row->symbol, row->object[0] ? "@" : "", row->object);
	xp_table_add(t, xp_fmt_u64(a, row->fin.evaluations));
	xp_table_add(t, figure ? xp_fmt_u64(a, row->per_eval) : "-");
	xp_table_add(t, xp_fmt_u64(a, row->cost));
	xp_table_add_share(t, r->run_total, row->share);
	xp_table_add(t, xp_fmt_u64(a, row->fin.observed));
	xp_table_add_share(t, r->run_total, row->observed_share);
	if (row->cost)
		xp_table_addf(t, "%.2f", (double)row->fin.observed / (double)row->cost);
	else
		xp_table_add(t, "-");
	if (cols.recursive)
		xp_table_add(t, xp_fmt_u64(a, row->fin.recursive));
	if (cols.abandoned)
		xp_table_add(t, xp_fmt_u64(a, row->fin.abandoned));
	xp_table_add(t, xp_flags_text(flags, sizeof(flags), row->flags));
}

/*
 * Under a row flagged imbalance, how it spreads over its processes:
 *   "    4 processes  per-eval least 100  median 100  greatest 200 (host gamma, pid 7), margin 0"
 *   "                 evaluations least 1,000  median 1,000  greatest 1,000 (host alpha, pid 4)"
 */
static void text_spread(struct xp_table *t, const struct xp_report *r, const struct xp_row *row)
{
	const struct xp_spread *s = &row->spread;
	char a[XP_U64_BUF], b[XP_U64_BUF], c[XP_U64_BUF], m[XP_U64_BUF], who[160], lead[40];
	char *line;
	uint64_t margin;

	if (!(row->flags & (1u << XP_FLAG_IMBALANCE)))
		return;
	xp_spread_imbalance(row, r, &margin);
	snprintf(lead, sizeof(lead), "    %s process%s", xp_fmt_u64(a, s->processes),
		 s->processes == 1 ? "" : "es");
	if (s->measured >= 2) {
		if (asprintf(&line, "%s  per-eval least %s  median %s  greatest %s (%s), margin %s",
			     lead, xp_fmt_u64(a, s->per_eval_lo.value),
			     xp_fmt_u64(b, xp_spread_median(&s->per_eval)),
			     xp_fmt_u64(c, s->per_eval_hi.value),
			     xp_who_text(who, sizeof(who), &s->per_eval_hi.who),
			     margin == XP_MARGIN_UNJUDGED ? "unknown" : xp_fmt_u64(m, margin)) <
		    0) {
			t->err = -ENOMEM;
			return;
		}
		xp_table_note(t, line);
		free(line);
		memset(lead, ' ', strlen(lead));
	}
	if (asprintf(&line, "%s  evaluations least %s  median %s  greatest %s (%s)", lead,
		     xp_fmt_u64(a, s->evaluations_lo.value),
		     xp_fmt_u64(b, xp_spread_median(&s->evaluations)),
		     xp_fmt_u64(c, s->evaluations_hi.value),
		     xp_who_text(who, sizeof(who), &s->evaluations_hi.who)) < 0) {
		t->err = -ENOMEM;
		return;
	}
	xp_table_note(t, line);
	free(line);
}

/* "    <- f+0x1d@obj <- main+0x40@obj   evaluations 10  per-eval 3  cost 30  observed 30" */
static void text_chain(struct xp_table *t, const struct xp_chain *ch)
{
	char a[XP_U64_BUF], b[XP_U64_BUF], c[XP_U64_BUF], d[XP_U64_BUF];
	char *line = NULL, *frames = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&frames, &len);

	if (!f) {
		t->err = -ENOMEM;
		return;
	}
	if (!ch->depth)
		fputs(" <- (other callers)", f);
	for (const char *fr = ch->depth ? ch->key : NULL; fr; fr = xp_chain_next(ch, fr))
		fprintf(f, " <- %s", fr);
	if (fclose(f) ||
	    asprintf(&line, "   %s   evaluations %s  per-eval %s  cost %s  observed %s%s", frames,
		     xp_fmt_u64(a, ch->evaluations), xp_fmt_u64(b, ch->per_eval),
		     xp_fmt_u64(c, ch->cost), xp_fmt_u64(d, ch->sum),
		     ch->settled ? "" : "  unsettled") < 0) {
		free(frames);
		t->err = -ENOMEM;
		return;
	}
	xp_table_note(t, line);
	free(frames);
	free(line);
}

static const char *const sort_says[] = {
	[XP_SORT_COST] = "cost",
	[XP_SORT_EVALUATIONS] = "evaluations",
	[XP_SORT_PER_EVAL] = "per-eval",
	[XP_SORT_OBSERVED] = "observed",
	[XP_SORT_NAME] = "name",
	[XP_SORT_WEIGHT] = "observed where state-dependent, cost elsewhere",
};

static void text_legend(FILE *out, const struct xp_report *r, struct columns cols, bool nested)
{
	char a[XP_U64_BUF];

	if (r->translated)
		fputs("\nper-eval: per evaluation, the least count; cost = per-eval x evaluations;"
		      " share = cost / run total\n(the instructions of the hooked calls);"
		      " observed = the sum of the counts (a call's observed holds its callees');\n"
		      "obs share = observed / run total; obs/cost = observed / cost\n",
		      out);
	else if (r->sampled)
		fputs("\nper-eval: per evaluation, the least of the stepped ones; cost = per-eval x"
		      " evaluations;\nobserved = the stepped ones' mean x evaluations (a call's"
		      " observed holds its callees'); obs/cost = observed / cost\n",
		      out);
	else
		fputs("\nper-eval: per evaluation, calibration subtracted; cost = per-eval x"
		      " evaluations; share = cost / run total;\n"
		      "observed = sum of deltas - calibration x evaluations (load included;"
		      " a call's observed holds its callees');\n"
		      "obs share = observed / run total; obs/cost = observed / cost\n",
		      out);
	fprintf(out, "rows: most first by %s\n", sort_says[r->opts.sort]);
	if (cols.recursive || cols.abandoned)
		fputs("recursive, abandoned: re-entries while active; calls that never returned\n",
		      out);
	if (r->deterministic)
		fprintf(out,
			"flags: state-dependent   observed >= cost x %.2f: the cost varies with the"
			" input (a finding, not a defect)\n",
			1.0 + r->opts.flag_ratio);
	else
		fprintf(out,
			"flags: state-dependent   observed >= cost x %.2f and above it by more "
			"than 2"
			" steps (%s) per evaluation,\n"
			"                         the calls a preemption may have hit set aside:"
			" the cost varies with the input\n",
			1.0 + r->opts.flag_ratio, xp_fmt_u64(a, 2 * r->step));
	fputs("       unsettled         fewer than 2 evaluations came within the margin of the"
	      " floor: per-eval may be high\n",
	      out);
	fprintf(out,
		"       below-resolution  per-eval is under the counter's step (%s):"
		" read it as a bound\n",
		xp_fmt_u64(a, r->step));
	fputs("       too-cheap         per-eval is 0: cheaper than the hook can measure\n"
	      "       recursive         re-entered while active: the inner calls cost inside the"
	      " outer one\n"
	      "       abandoned         left by longjmp or an exception, or still running at exit:"
	      " not an evaluation\n"
	      "       negative          some deltas fell below zero once the nested hooks' overhead"
	      " was taken off:\n"
	      "                         a measurement error, recorded as 0 (JSON: negative)\n",
	      out);
	if (r->translated)
		fputs("       not-whole         some of its evaluations ran in part natively (code "
		      "the"
		      " translator cannot\n"
		      "                         run): they have no delta, and observed is "
		      "estimated "
		      "from the others\n",
		      out);
	if (r->sampled)
		fputs("       unstepped         none of its evaluations was stepped (or each ran "
		      "past"
		      " the limit): no per-eval\n",
		      out);
	if (cols.imbalance)
		fprintf(out,
			"       imbalance         the greatest per-eval of the processes is >= the "
			"least"
			" x %.2f and beyond the\n"
			"                         counter's margin (for an MPI job's ranks, "
			"evaluations"
			" too): the lines under the\n"
			"                         row say how, and which process had the "
			"greatest\n",
			1.0 + r->opts.flag_ratio);
	if (cols.hist_lost)
		fputs("       histogram-lost    some deltas are in no histogram (a live dump that"
		      " could not grow, its compact\n"
		      "                         one never written): p50, p99 and the floor's"
		      " refinement come from the rest\n"
		      "                         (JSON: histogram_lost)\n",
		      out);
	if (nested)
		fputs("self: cost and observed less those of the hooked functions that ran inside"
		      " it; in F: its part\n"
		      "that ran inside hooked function F (in no hooked function: the rest)\n",
		      out);
	if (r->opts.callers && r->callers_depth)
		fprintf(out,
			"callers: <- the nearest caller <- its caller ...; per chain,"
			" per-eval is %s; (other callers): chains\n"
			"the shim had no room for, the lightest given up for heavier ones\n",
			r->opts.stat == XP_STAT_MEAN ? "observed / evaluations"
						     : "the chain's floor less calibration");
}

/*
 * Where the rows ran (nest.h), when the shim recorded it and some ran
 * inside others; NULL otherwise.  0 or -ENOMEM.
 */
static int text_nesting(const struct xp_report *r, struct xp_nest **nest)
{
	struct xp_decl_index x;
	int err;

	*nest = NULL;
	if (!r->nesting)
		return 0;
	err = xp_decl_index_build(&x, r);
	if (!err)
		err = xp_report_nest(r, &x, nest);
	xp_decl_index_free(&x);
	if (!err && !xp_nest_any(*nest, r->nrows)) {
		xp_nest_free(*nest, r->nrows);
		*nest = NULL;
	}
	return err;
}

int xp_report_text(const struct xp_report *r, FILE *out, bool colour)
{
	struct xp_nest *nest;
	bool nested;
	static const char *const heads[] = {"kind",	"declaration", "evaluations",
					    "per-eval", "cost",	       "share",
					    "observed", "obs share",   "obs/cost"};
	bool right[16] = {false, false, true, true, true, true, true, true,
			  true,	 true,	true, true, true, true, true, true};
	const struct colours *c = colour ? &ansi : &plain;
	struct columns cols = text_columns(r);
	/* kind, [executable, cpu, group,] declaration left; the numbers right; flags left */
	size_t left = 2 + r->by_exe + r->by_cpu + (r->opts.by != XP_BY_NONE);
	size_t ncols = left + 7 + cols.recursive + cols.abandoned + 1;
	struct xp_table t;
	int err;

	text_head(out, r, c);
	fputc('\n', out);
	for (size_t i = 0; i < left; i++)
		right[i] = false;
	right[ncols - 1] = false;
	xp_table_init(&t, ncols, right);
	xp_table_add(&t, heads[0]);
	if (r->by_exe)
		xp_table_add(&t, "executable");
	if (r->by_cpu)
		xp_table_add(&t, "cpu");
	if (r->opts.by != XP_BY_NONE)
		xp_table_add(&t, xp_by_name(r->opts.by));
	for (size_t i = 1; i < 9; i++)
		xp_table_add(&t, heads[i]);
	if (cols.recursive)
		xp_table_add(&t, "recursive");
	if (cols.abandoned)
		xp_table_add(&t, "abandoned");
	xp_table_add(&t, "flags");
	err = text_nesting(r, &nest);
	for (size_t i = 0; i < r->nrows && !err; i++) {
		text_row(&t, r, &r->rows[i], cols);
		text_spread(&t, r, &r->rows[i]);
		if (nest)
			err = xp_nest_notes(&t, r, nest, i);
		for (size_t k = 0; r->opts.callers && k < r->rows[i].nchains; k++)
			text_chain(&t, r->rows[i].chains[k]);
	}
	nested = nest != NULL;
	xp_nest_free(nest, r->nrows);
	err = err ? err : t.err;
	if (!err)
		xp_table_print(&t, out, c->bold, c->flag, c->off);
	xp_table_free(&t);
	if (!err)
		text_legend(out, r, cols, nested);
	return err;
}
