/* SPDX-License-Identifier: MIT */
/*
 * report: what a report says, built from a set of processes, and the
 * printers that say it as text, JSON, CSV (the other formats are export/'s).
 */
#ifndef XP_REPORT_H
#define XP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <uthash.h>

#include "util/err.h"
#include "util/group.h"
#include "model/finalize.h"
#include "model/proc.h"

enum xp_format {
	XP_FORMAT_TEXT,
	XP_FORMAT_JSON,
	XP_FORMAT_CSV,
	XP_FORMAT_CALLGRIND,
	XP_FORMAT_PPROF, /* binary: never onto a terminal */
	XP_FORMAT_FOLDED,
	XP_FORMAT_HTML,
};
enum xp_sort {
	XP_SORT_COST,
	XP_SORT_EVALUATIONS,
	XP_SORT_PER_EVAL,
	XP_SORT_OBSERVED,
	XP_SORT_NAME,
	XP_SORT_WEIGHT /* the default: observed where state-dependent, else cost */
};
/* XP_STAT_AUTO only in the doubling test: min, or mean where state-dependent. */
enum xp_stat { XP_STAT_MIN, XP_STAT_MEDIAN, XP_STAT_MEAN, XP_STAT_AUTO };

struct xp_report_opts {
	enum xp_format format;
	enum xp_sort sort;
	enum xp_stat stat;
	double flag_ratio;  /* state-dependent when observed >= cost * (1 + ratio) */
	bool strict;	    /* corrupt or incomplete dumps are errors */
	bool callers;	    /* the text shows each declaration's caller chains */
	bool allow_mixed;   /* processes on different CPUs or executables merge, with a warning */
	const char *output; /* report -o FILE: written whole or not at all; NULL: stdout */
};

#define XP_FLAG_RATIO_DEFAULT 0.25

/* The defaults: text, sorted by weight, --stat min, --flag-ratio 0.25. */
void xp_report_opts_init(struct xp_report_opts *o);
/* Parse the value of --format, --sort, --stat or --flag-ratio; 0 or -EINVAL with @e set. */
int xp_report_opt_format(struct xp_report_opts *o, const char *v, struct xp_err *e);
/* --format of a command that writes tables only (diff, top): text, json or csv. */
int xp_report_opt_format_table(struct xp_report_opts *o, const char *v, const char *cmd,
			       struct xp_err *e);
/* Parse --sort's value: 0 or -EINVAL with @e set. */
int xp_report_opt_sort(struct xp_report_opts *o, const char *v, struct xp_err *e);
/* Parse --stat's value: 0 or -EINVAL with @e set. */
int xp_report_opt_stat(struct xp_report_opts *o, const char *v, struct xp_err *e);
/* Parse --flag-ratio's value: 0 or -EINVAL with @e set. */
int xp_report_opt_ratio(struct xp_report_opts *o, const char *v, struct xp_err *e);
/* "min", "median", "mean" or "auto". */
const char *xp_stat_name(enum xp_stat s);
/*
 * A binary format (pprof) is never written onto a terminal: -EINVAL with
 * @e set when it would go to @out and @out is one.
 */
int xp_report_check_dest(const struct xp_report_opts *o, FILE *out, struct xp_err *e);

enum xp_flag {
	XP_FLAG_STATE_DEPENDENT,
	XP_FLAG_UNSETTLED,
	XP_FLAG_BELOW_RESOLUTION,
	XP_FLAG_TOO_CHEAP,
	XP_FLAG_RECURSIVE,
	XP_FLAG_ABANDONED,
	XP_FLAG_NEGATIVE,
	XP_FLAG_UNSTEPPED,
	XP_FLAG_HIST_LOST,
	XP_FLAG_NOT_WHOLE,
	XP_NFLAGS
};

extern const char *const xp_flag_names[XP_NFLAGS];

/* One declaration across all processes. */
struct xp_row {
	char *kind;
	char *symbol;
	char *object; /* basename */
	char *exe;    /* the executable's basename, when the report keeps them apart */
	struct xp_fin fin;
	uint64_t per_eval; /* by --stat, after calibration */
	uint64_t cost;	   /* per_eval * evaluations */
	uint64_t p50;
	uint64_t p99;
	double share;	       /* cost / run_total */
	double observed_share; /* observed / run_total */
	/*
	 * observed with the dearest of its evaluations, as many as a preemption
	 * or an interrupt can have landed in (up to 5 %), counted at the value
	 * below them: for the state-dependent flag (report_noise.c).  observed
	 * for a deterministic counter.
	 */
	uint64_t trimmed;
	/*
	 * How high the floor may be (report_noise.c): 0 when settled, else how
	 * far the next dearest evaluation lay above it; XP_SLACK_UNKNOWN for a
	 * floor of one evaluation.  0 in a report of several runs, whose
	 * spread says more.
	 */
	uint64_t slack;
	/* The runs that had it (1 but for --repeat) and the spread of their figures. */
	size_t runs;
	uint64_t per_eval_lo, per_eval_hi;
	uint64_t evaluations_lo, evaluations_hi;
	bool settled;
	unsigned flags;		  /* 1u << enum xp_flag */
	struct xp_chain **chains; /* fin.chains, most expensive first, "other" last */
	size_t nchains;
	char *hkey; /* "kind\x1fsymbol\x1fobject" while rows are matched */
	UT_hash_handle hh;
};

/*
 * What counted and what ran, groups of struct xp_report (util/group.h): a
 * report of several runs copies the first run's whole.
 */
#define XP_REPORT_COUNTED                                                                          \
	uint32_t counter;                                                                          \
	char counter_name[64];                                                                     \
	char counter_unit[16];                                                                     \
	bool deterministic;                                                                        \
	bool sampled;	     /* steps: only the stepped evaluations were measured */               \
	bool translated;     /* steps: every evaluation, from a code cache */                      \
	uint32_t step_first; /* steps: the sampling of the first process */                        \
	uint32_t step_every;                                                                       \
	uint64_t step_limit;
#define XP_REPORT_PROGRAM                                                                          \
	char window[128];                                                                          \
	char cpu_model[128]; /* of the first process */                                            \
	char exe_path[512];                                                                        \
	char build_id[65]; /* hex, "none" without one */

struct xp_report {
	struct xp_report_opts opts;

	XP_GROUP(xp_report_counted, counted, XP_REPORT_COUNTED);
	uint64_t calibration; /* the smallest of the processes' */
	uint64_t calibration_max;
	uint64_t resolution; /* the largest of the processes' */
	/*
	 * The step the deltas move in: the resolution, or, for a counter that
	 * is not deterministic, the spacing of the deltas in the histograms
	 * when that is wider (report_noise.c).  The largest of the processes'.
	 */
	uint64_t step;
	bool calibration_settled;

	size_t processes;
	size_t workers;
	uint64_t threads;
	uint64_t lost;
	uint64_t run_total;
	uint64_t *pids; /* each once: an exec'd image is a process of its own, with its pid */
	size_t npids;
	uint64_t *incomplete_pids;
	size_t nincomplete;
	/*
	 * Processes of different executables (a shell and what it runs):
	 * their rows are kept apart, one per executable, unless --allow-mixed
	 * merges them.  Their paths, in order of appearance.
	 */
	bool by_exe;
	char **exes;
	size_t nexes;
	bool complete;
	bool attached; /* counted while extprof attach was attached (from start_ns to end_ns) */
	uint32_t callers_depth; /* the deepest EXTPROF_CALLERS of the processes; 0: none */
	bool nesting;		/* every process recorded which declaration each one ran inside */
	XP_GROUP(xp_report_program, program, XP_REPORT_PROGRAM);
	size_t runs;	 /* runs aggregated (extprof run --repeat); 1 otherwise */
	unsigned warmup; /* untimed runs before them */
	int64_t start_ns;
	int64_t end_ns;

	char **warnings;
	size_t nwarnings;

	struct xp_row *rows; /* sorted by opts.sort */
	size_t nrows;
};

/*
 * Finalize every process with its own calibration and combine them into
 * one report.  Refuses processes measured with different counters.
 * @skipped: corrupt files left out, said in a warning.  0 or -errno.
 */
int xp_report_build(struct xp_report *r, const struct xp_procset *s, const struct xp_report_opts *o,
		    size_t skipped, struct xp_err *e);
/* Free what xp_report_build or xp_report_repeat made. */
void xp_report_free(struct xp_report *r);

/*
 * The reports of @k runs of one program made into one (report_repeat.c):
 * per declaration and chain, the --stat of the runs' per-evals and the
 * median of their evaluations.  0 or -errno with @e set.
 */
int xp_report_repeat(struct xp_report *r, const struct xp_report *runs, size_t k, unsigned warmup,
		     struct xp_err *e);
/* Sort the rows by opts.sort. */
void xp_report_sort(struct xp_report *r);

/* Steps of xp_report_build, in report_head.c and report_rows.c. */
/* The header: counter, calibration, processes, warnings. */
int xp_report_head(struct xp_report *r, const struct xp_procset *s, size_t skipped,
		   struct xp_err *e);
/* The rows, one per declaration, with their figures and flags. */
int xp_report_rows(struct xp_report *r, const struct xp_procset *s, struct xp_err *e);

/*
 * The key a declaration is matched by across processes, runs and reports
 * (report_rows.c): "kind\x1fsymbol\x1fobject", the object by its basename,
 * then "\x1f@exe" unless @exe is NULL.  Into @buf (@size bytes) when it
 * fits, else malloc'd; *@key says which.  Its length, or -ENOMEM.
 */
ssize_t xp_decl_key(char *buf, size_t size, char **key, const char *kind, const char *symbol,
		    const char *object, const char *exe);

/* Derived figures of one row (report_rows.c): 0 or -ENOMEM. */
int xp_row_figures(struct xp_row *row, const struct xp_report *r);
/* The flags of a row whose figures are set. */
unsigned xp_row_flags(const struct xp_row *row, const struct xp_report *r);
/* What --sort weight orders by: observed when the row is state-dependent, else cost. */
uint64_t xp_row_weight(const struct xp_row *row);

/*
 * Noise (report_noise.c).  The step of one process's deltas, from the
 * spacing of the narrow buckets of its histograms (below 256): gaps between
 * neighbouring non-empty buckets of each declaration, each weighted by the
 * smaller count, and their weighted median.  Add every declaration, then
 * read it.
 */
#define XP_STEP_MAX 256

struct xp_step {
	uint64_t weight[XP_STEP_MAX]; /* by gap */
};

/* Add the gaps of one declaration's histogram @h to @s. */
void xp_step_add(struct xp_step *s, const struct xp_hist *h);
/* The weighted median gap; 0 when no declaration had two exact values. */
uint64_t xp_step_get(const struct xp_step *s);
#define XP_SLACK_UNKNOWN UINT64_MAX

/* Row::slack of a finalized declaration whose figures are set. */
uint64_t xp_row_slack(const struct xp_row *row);
/* Row::trimmed of a finalized declaration, its counter's step @step. */
uint64_t xp_fin_trimmed(const struct xp_fin *f, bool deterministic, uint64_t step);
/* Whether a row whose figures are set is state-dependent beyond noise. */
bool xp_row_state_dependent(const struct xp_row *row, const struct xp_report *r);

/* Print @r as the text report onto @out (in colour with @colour): 0 or -errno. */
int xp_report_text(const struct xp_report *r, FILE *out, bool colour);
struct xp_table;
/* A share cell as the text report shows it: "12.3%", "<0.1%", "-" when @total is 0. */
void xp_table_add_share(struct xp_table *t, uint64_t total, double share);
#define XP_FLAGS_TEXT 160
/* A row's flags, space-separated, into @buf (XP_FLAGS_TEXT bytes); returns @buf. */
char *xp_flags_text(char *buf, size_t size, unsigned flags);
/* Print @r as JSON onto @out (docs/json.md): 0. */
int xp_report_json(const struct xp_report *r, FILE *out);
struct xp_json;
/*
 * What @r measured, as the report's and diff's JSON begin it: "counter":
 * {name, unit, deterministic}, "calibration", "processes", "workers".
 */
void xp_report_json_source(struct xp_json *j, const struct xp_report *r);
/* Print @r as CSV onto @out, a line a declaration: 0. */
int xp_report_csv(const struct xp_report *r, FILE *out);

#endif
