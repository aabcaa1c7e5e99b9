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
#include "util/u64set.h"
#include "model/finalize.h"
#include "model/proc.h"

struct xp_load;

enum xp_format {
	XP_FORMAT_TEXT,
	XP_FORMAT_JSON,
	XP_FORMAT_CSV,
	XP_FORMAT_CALLGRIND,
	XP_FORMAT_PPROF, /* binary: never onto a terminal */
	XP_FORMAT_FOLDED,
	XP_FORMAT_HTML,
};

/* Sets of formats, a bit per enum xp_format: the tables (diff, top), every one. */
#define XP_FORMATS_TABLE ((1u << XP_FORMAT_TEXT) | (1u << XP_FORMAT_JSON) | (1u << XP_FORMAT_CSV))
#define XP_FORMATS_ALL	 ((1u << (XP_FORMAT_HTML + 1)) - 1)

/* A binary format (pprof): never onto a terminal, nor among other lines on stderr. */
static inline bool xp_format_binary(enum xp_format f)
{
	return f == XP_FORMAT_PPROF;
}

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
/* --by: the groups a report keeps apart, a row per declaration and group. */
enum xp_by { XP_BY_NONE, XP_BY_HOST, XP_BY_PROCESS, XP_BY_RANK, XP_BY_EXECUTABLE };

struct xp_report_opts {
	enum xp_format format;
	enum xp_sort sort;
	enum xp_stat stat;
	double flag_ratio;  /* state-dependent when observed >= cost * (1 + ratio) */
	bool strict;	    /* corrupt or incomplete dumps are errors */
	bool callers;	    /* the text shows each declaration's caller chains */
	bool allow_mixed;   /* processes on different CPUs or executables merge, with a warning */
	enum xp_by by;	    /* --by: a row per declaration and group */
	const char *output; /* report -o FILE: written once whole (util/out.h); NULL: stdout */
};

#define XP_FLAG_RATIO_DEFAULT 0.25

/* The defaults: text, sorted by weight, --stat min, --flag-ratio 0.25. */
void xp_report_opts_init(struct xp_report_opts *o);
/* Parse the value of --format, --sort, --stat or --flag-ratio; 0 or -EINVAL with @e set. */
int xp_report_opt_format(struct xp_report_opts *o, const char *v, struct xp_err *e);
/*
 * --format of command @cmd, which writes @formats only (a bit per enum
 * xp_format): 0, or -EINVAL with @e naming those formats.
 */
int xp_report_opt_format_of(struct xp_report_opts *o, const char *v, const char *cmd,
			    unsigned formats, struct xp_err *e);
/* Parse --sort's value: 0 or -EINVAL with @e set. */
int xp_report_opt_sort(struct xp_report_opts *o, const char *v, struct xp_err *e);
/* Parse --stat's value: 0 or -EINVAL with @e set. */
int xp_report_opt_stat(struct xp_report_opts *o, const char *v, struct xp_err *e);
/* Parse --flag-ratio's value: 0 or -EINVAL with @e set. */
int xp_report_opt_ratio(struct xp_report_opts *o, const char *v, struct xp_err *e);
/* Parse --by's value (host, process, rank, executable): 0 or -EINVAL with @e set. */
int xp_report_opt_by(struct xp_report_opts *o, const char *v, struct xp_err *e);
/* "host", "process", "rank", "executable"; NULL for none. */
const char *xp_by_name(enum xp_by by);
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
	XP_FLAG_IMBALANCE, /* the processes differ beyond the margin (report_spread.c) */
	XP_FLAG_NOT_WHOLE,
	XP_NFLAGS
};

extern const char *const xp_flag_names[XP_NFLAGS];

/* A process as the labels of its group name it: its host, pid and rank. */
struct xp_who {
	char host[64];
	uint64_t pid;
	int64_t rank; /* -1: not a rank of an MPI job */
};

/*
 * What the processes of a row have in common, for the labels of the
 * exports (pprof's): each value, or a bit of @mixed when they differ.
 */
enum {
	XP_MIXED_HOST = 1,
	XP_MIXED_PID = 2,
	XP_MIXED_RANK = 4,
	XP_MIXED_EXE = 8,
	XP_MIXED_BUILD = 16
};

struct xp_ident {
	struct xp_who who;
	char exe[256];	   /* the executable's basename */
	char build_id[65]; /* hex, "none" without one */
	unsigned mixed;	   /* XP_MIXED_* */
};

/* One end of a spread: the value, and the process that had it. */
struct xp_spread_end {
	uint64_t value;
	uint64_t slack; /* per-eval: how high its floor may be (xp_row_slack) */
	struct xp_who who;
};

/*
 * How a declaration's figures spread over the processes that ran it
 * (report_spread.c): the per-eval of each process (those that measured
 * one) and its evaluations, as values and how many processes had each,
 * their least and greatest and who had them.  Beyond XP_SPREAD_EXACT
 * different values, they are kept to the histogram's buckets (within 1 %).
 */
#define XP_SPREAD_EXACT 4096

struct xp_spread {
	uint64_t processes; /* that had the declaration */
	uint64_t measured;  /* of them, those with a per-eval */
	struct xp_vhist per_eval;
	struct xp_vhist evaluations;
	bool coarse; /* the values were kept to buckets */
	bool ranks;  /* every process was a rank of an MPI job */
	struct xp_spread_end per_eval_lo, per_eval_hi;
	struct xp_spread_end evaluations_lo, evaluations_hi;
};

/* One declaration across all processes (of its group). */
struct xp_row {
	char *kind;
	char *symbol;
	char *object;	  /* basename */
	char *exe;	  /* the executable's basename, when the report keeps them apart */
	char *cpu;	  /* the CPU model, when the report keeps models apart (by_cpu) */
	char *group;	  /* its group's label (--by), else NULL */
	ssize_t group_at; /* its group's index in r->groups, -1: none */
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
	struct xp_spread spread; /* over its processes */
	struct xp_ident ident;	 /* what its processes share */
	char *hkey;		 /* the row's key (xp_decl_key) while rows are matched */
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
	/*
	 * Processes on different CPU models: merged for a deterministic
	 * counter; else each model's rows its own (by_cpu), unless
	 * --allow-mixed merges them.  The models, in order of appearance.
	 */
	bool by_cpu;
	char **cpus;
	size_t ncpus;
	/* --by: the groups' labels, in order of appearance, and each one's run total */
	char **groups;
	size_t ngroups;
	uint64_t *group_totals;
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

	struct xp_report_building *building; /* while processes are added (report_stream.c) */
};

/* A --by label, to its group's index in r->groups. */
struct xp_group_index {
	char *label;
	size_t at; /* in r->groups */
	UT_hash_handle hh;
};

/* What a report keeps while processes are added (report_stream.c), besides itself. */

struct xp_report_building {
	struct xp_row *rows;	       /* by declaration and partition (xp_report_rows_add) */
	struct xp_proc first;	       /* the first process's header and name, no declarations */
	unsigned said;		       /* what head_compare said already */
	struct xp_u64set pids;	       /* the pids listed */
	struct xp_u64set incomplete;   /* the incomplete ones listed */
	struct xp_group_index *groups; /* --by's labels, to their index in r->groups */
	size_t cap_pids, cap_incomplete, cap_groups;
};

/* Free what the report kept while processes were added. */
void xp_report_building_free(struct xp_report *r);

/*
 * Finalize every process with its own calibration and combine them into
 * one report.  Refuses processes measured with different counters.
 * @skipped: corrupt files left out, said in a warning.  0 or -errno.
 */
int xp_report_build(struct xp_report *r, const struct xp_procset *s, const struct xp_report_opts *o,
		    size_t skipped, struct xp_err *e);

/*
 * The same, a process at a time (report_stream.c): begin, add each process
 * whose dumps are all read (it may be freed after), end.  What the report
 * keeps meanwhile is a row per declaration and group, not the processes.
 */
void xp_report_begin(struct xp_report *r, const struct xp_report_opts *o);
/* Add process @p: finalized with its own calibration, into the rows.  0 or -errno, @e set. */
int xp_report_add(struct xp_report *r, const struct xp_proc *p, struct xp_err *e);
/* The report made of what was added, @skipped files said.  0 or -errno, @e set. */
int xp_report_end(struct xp_report *r, size_t skipped, struct xp_err *e);
/* Free what xp_report_build or xp_report_repeat made. */
void xp_report_free(struct xp_report *r);
/*
 * A report of what @l will load, made a process at a time as each one's
 * dumps are read (xp_report_begin, and @l streaming into it).
 */
void xp_report_stream(struct xp_report *r, struct xp_load *l, const struct xp_report_opts *o);
/* The last of @l's processes into @r, and @r made: 0, or -errno with @e set (@r freed). */
int xp_report_stream_end(struct xp_report *r, struct xp_load *l, struct xp_err *e);

/*
 * The reports of @k runs of one program made into one (report_repeat.c):
 * per declaration and chain, the --stat of the runs' per-evals and the
 * median of their evaluations.  0 or -errno with @e set.
 */
int xp_report_repeat(struct xp_report *r, const struct xp_report *runs, size_t k, unsigned warmup,
		     struct xp_err *e);
/* Sort the rows by opts.sort. */
void xp_report_sort(struct xp_report *r);

/* Steps of xp_report_add and xp_report_end, in report_head.c and report_rows.c. */
/*
 * The header's share of process @p: the counter's check against @first
 * (the first process, which @p may be), what the header counts, and what
 * differs between processes.  0 or -errno with @e set.
 */
int xp_report_head_add(struct xp_report *r, const struct xp_proc *first, const struct xp_proc *p,
		       unsigned *said, struct xp_err *e);
/* The header's warnings once every process is in: 0 or -ENOMEM. */
int xp_report_head_end(struct xp_report *r, size_t skipped);
/* Add @s to the list @v of @n unless it is there: 0 or -ENOMEM. */
int xp_strv_add_once(char ***v, size_t *n, const char *s);

/*
 * Process @p's declarations finalized, each into its row of @hash, keyed
 * by the declaration, @p's executable and CPU model and @group (NULL:
 * none); its step (the largest of its histograms', report_noise.c) into
 * r->step.  0 or -ENOMEM.
 */
int xp_report_rows_add(struct xp_report *r, struct xp_row **hash, const struct xp_proc *p,
		       const char *group);
/*
 * The rows of @hash made into r->rows: merged where the report does not
 * keep executables or CPU models apart, their figures and flags, sorted.
 * @hash is emptied.  0 or -ENOMEM.
 */
int xp_report_rows_settle(struct xp_report *r, struct xp_row **hash);
/* Free a row's contents. */
void xp_row_free(struct xp_row *row);

/* Groups (report_group.c). */
/* The index of group @label in r->groups, -1 for none (NULL, or not a group). */
ssize_t xp_report_group_index(const struct xp_report *r, const char *label);
#define XP_GROUP_LABEL 96
/* The label of @p's group under @by ("alpha", "1234@alpha", "3", "checker") into @buf. */
char *xp_group_label(char *buf, size_t size, const struct xp_proc *p, enum xp_by by);
/* Who process @p is: its host, pid and rank. */
void xp_who_of(struct xp_who *w, const struct xp_proc *p);
/* The identity of process @p, for a row's first process. */
void xp_ident_of(struct xp_ident *id, const struct xp_proc *p);
/* @dst's values kept where @src has the same, marked mixed where not. */
void xp_ident_add(struct xp_ident *dst, const struct xp_ident *src);
/* "host H, pid P, rank R" of @w into @buf. */
char *xp_who_text(char *buf, size_t size, const struct xp_who *w);
/* A build-id as hex into @out (65 bytes), "none" without one. */
void xp_build_id_hex(char *out, const struct extprof_dump_header *h);

/* Spreads (report_spread.c). */
/*
 * Process @who's figures of a declaration into @s: its per-eval (when
 * @measured) and the slack of its floor, and its evaluations.  0 or -ENOMEM.
 */
int xp_spread_add_process(struct xp_spread *s, bool measured, uint64_t per_eval, uint64_t slack,
			  uint64_t evaluations, const struct xp_who *who);
/* @dst = the spread of the processes of both: 0 or -ENOMEM. */
int xp_spread_add(struct xp_spread *dst, const struct xp_spread *src);
/* The median of a spread's values (the lower middle one), 0 for none. */
uint64_t xp_spread_median(const struct xp_vhist *v);
/* Free a spread's values. */
void xp_spread_free(struct xp_spread *s);
/*
 * Whether the processes of @row differ beyond the margin (report_margin.c)
 * of the report's counter and by at least --flag-ratio: their per-evals,
 * and, for the ranks of an MPI job, whose work is meant to be the same,
 * their evaluations too.  The per-eval margin into *@margin
 * (XP_MARGIN_UNJUDGED: none promised).
 */
bool xp_spread_imbalance(const struct xp_row *row, const struct xp_report *r, uint64_t *margin);

/*
 * Margins (report_margin.c): when two figures of a declaration differ for
 * real, between two runs (diff) or two processes (the spread).
 */
enum xp_metric { XP_METRIC_PER_EVAL, XP_METRIC_EVALUATIONS, XP_METRIC_COST, XP_NMETRICS };

/* The value @m of a report row. */
static inline uint64_t xp_metric_value(const struct xp_row *row, enum xp_metric m)
{
	switch (m) {
	case XP_METRIC_PER_EVAL:
		return row->per_eval;
	case XP_METRIC_EVALUATIONS:
		return row->fin.evaluations;
	case XP_METRIC_COST:
	default:
		return row->cost;
	}
}

/* A margin that cannot be promised: a floor of one evaluation on a side of one run. */
#define XP_MARGIN_UNJUDGED UINT64_MAX

struct xp_margin {
	uint64_t of[XP_NMETRICS]; /* what a change must exceed to be real; XP_MARGIN_UNJUDGED */
	bool real[XP_NMETRICS];	  /* |b - a| > of */
};

/*
 * The margins between rows @a and @b of one declaration, measured with a
 * counter that is @deterministic and moves in steps of @step: per-eval,
 * 2 steps (0 when deterministic) + the spread of each side's runs + the
 * slack of each floor; evaluations, the spread of each side's runs; cost,
 * both, each of the larger side.  And which differences are real.
 */
void xp_margin_between(struct xp_margin *m, const struct xp_row *a, const struct xp_row *b,
		       bool deterministic, uint64_t step);

/*
 * The key a declaration is matched by across processes, runs and reports
 * (report_rows.c): "kind\x1fsymbol\x1fobject", the object by its basename,
 * then "\x1f@exe" unless @exe is NULL.  Into @buf (@size bytes) when it
 * fits, else malloc'd; *@key says which.  Its length, or -ENOMEM.
 */
ssize_t xp_decl_key(char *buf, size_t size, char **key, const char *kind, const char *symbol,
		    const char *object, const char *exe);

/*
 * What tells rows of one declaration apart, "exe\x1fcpu\x1fgroup" (each
 * empty when the report does not keep it apart), into @buf; returns @buf.
 */
char *xp_row_part(char *buf, size_t size, const struct xp_row *row);

/* Derived figures of one row (report_rows.c): 0 or -ENOMEM. */
int xp_row_figures(struct xp_row *row, const struct xp_report *r);
/* The per-eval of a finalized declaration by @stat (0 when never called). */
uint64_t xp_fin_per_eval(const struct xp_fin *f, enum xp_stat stat);
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
/* The same of a finalized declaration alone (settled: 2 hits or more). */
uint64_t xp_fin_slack(const struct xp_fin *f);
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
