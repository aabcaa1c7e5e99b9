/* SPDX-License-Identifier: MIT */
/*
 * cmd: the extprof commands, each declared here and returning the process's
 * exit status; the options they share (report's, run's), and the series of
 * runs of run --warmup/--repeat.
 */
#ifndef XP_CMD_H
#define XP_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/load.h"
#include "export/export.h"
#include "report/report.h"
#include "util/err.h"

struct xp_diff;
struct xp_run_opts;
struct xp_dbl_opts;

/* Exit status for bad input or usage: one line on stderr says what and where. */
#define XP_EXIT_BAD 2
/* Exit status of run when the program ran but nothing was measured (no dump of this run). */
#define XP_EXIT_NOTHING 3

/* clang-format off */
/* Each command (argv[0] is its name) and its usage text. */
int cmd_run(int argc, char **argv);		/* cmd_run.c, run_opts.c */
int cmd_report(int argc, char **argv);		/* cmd_report.c */
int cmd_dump(int argc, char **argv);		/* cmd_dump.c */
int cmd_diff(int argc, char **argv);		/* cmd_diff.c */
int cmd_top(int argc, char **argv);		/* cmd_top.c, top_screen.c */
int cmd_doubling(int argc, char **argv);	/* cmd_doubling.c, doubling_opts.c */
int cmd_symbols(int argc, char **argv);		/* cmd_symbols.c */
int cmd_attach(int argc, char **argv);		/* cmd_attach.c */
int cmd_detach(int argc, char **argv);		/* cmd_attach.c */
/* clang-format on */

/* run's usage text onto @out. */
void cmd_run_usage(FILE *out);
/* report's usage text onto @out. */
void cmd_report_usage(FILE *out);
/* dump's usage text onto @out. */
void cmd_dump_usage(FILE *out);
/* diff's usage text onto @out. */
void cmd_diff_usage(FILE *out);
/* top's usage text onto @out. */
void cmd_top_usage(FILE *out);
/* doubling's usage text onto @out. */
void cmd_doubling_usage(FILE *out);
/* symbols' usage text onto @out. */
void cmd_symbols_usage(FILE *out);
/* attach's usage text onto @out. */
void cmd_attach_usage(FILE *out);
/* detach's usage text onto @out. */
void cmd_detach_usage(FILE *out);

/* Long options of the report options shared by report and run. */
enum {
	XP_OPT_FORMAT = 256,
	XP_OPT_SORT,
	XP_OPT_STAT,
	XP_OPT_FLAG_RATIO,
	XP_OPT_STRICT,
	XP_OPT_ALLOW_MIXED,
	XP_OPT_SHOW_CALLERS, /* report's and diff's --callers (run's takes a depth) */
	XP_OPT_COLOR,
	XP_OPT_BY,
	XP_OPT_HELP,
	XP_OPT_RUN_FIRST, /* cmd_run's own start here */
};

/* clang-format off */
#define XP_REPORT_LONGOPTS                                                                  \
	{"format", required_argument, NULL, XP_OPT_FORMAT},                                 \
	{"sort", required_argument, NULL, XP_OPT_SORT},                                     \
	{"stat", required_argument, NULL, XP_OPT_STAT},                                     \
	{"flag-ratio", required_argument, NULL, XP_OPT_FLAG_RATIO},                         \
	{"strict", no_argument, NULL, XP_OPT_STRICT},                                       \
	{"allow-mixed", no_argument, NULL, XP_OPT_ALLOW_MIXED},                             \
	{"color", required_argument, NULL, XP_OPT_COLOR},                                   \
	{"by", required_argument, NULL, XP_OPT_BY},                                         \
	{"help", no_argument, NULL, XP_OPT_HELP}
/* clang-format on */

#define XP_REPORT_OPTIONS_HELP                                                                     \
	"  --format text|json|csv|callgrind|pprof|folded|html\n"                                   \
	"                           output format (default text): callgrind's for\n"               \
	"                           callgrind_annotate and KCachegrind; pprof's\n"                 \
	"                           profile.proto, gzipped, for go tool pprof;\n"                  \
	"                           collapsed stacks for flamegraph.pl and speedscope;\n"          \
	"                           one HTML page: the table and a flame graph\n"                  \
	"  --sort weight|cost|evaluations|per-eval|observed|name\n"                                \
	"                           row order, most first (default weight: observed\n"             \
	"                           where state-dependent, cost elsewhere)\n"                      \
	"  --stat min|median|mean   per-evaluation statistic cost is built on\n"                   \
	"                           (default min: the floor)\n"                                    \
	"  --flag-ratio R           flag state-dependent when observed >= cost x (1+R),\n"         \
	"                           and beyond noise (default 0.25)\n"                             \
	"  --strict                 a corrupt dump or a process that did not finish\n"             \
	"                           cleanly is an error (default: corrupt files are\n"             \
	"                           skipped with a line each)\n"                                   \
	"  --allow-mixed            merge processes that ran on different executables\n"           \
	"                           (build-ids), or CPU models with a counter that is\n"           \
	"                           not deterministic, with a warning; without it each\n"          \
	"                           has rows of its own\n"                                         \
	"  --by host|process|rank|executable\n"                                                    \
	"                           a row per declaration and host, process (PID@HOST),\n"         \
	"                           MPI rank or executable\n"                                      \
	"  --color auto|always|never\n"                                                            \
	"                           colour the text (default auto: on a terminal,\n"               \
	"                           unless NO_COLOR is set or TERM is dumb)\n"

/* After getopt_long returned '?': one line naming the bad option. */
void xp_bad_option(const char *cmd, char **argv);

/*
 * @arg, the value of option @opt, as a whole number from @min to @max: 0, or
 * -EINVAL with @e saying "OPT ARG: expected WHAT from MIN to MAX".
 */
int xp_opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max, const char *what,
	       uint64_t *out, struct xp_err *e);
/* The same for a count that fits an unsigned (runs, depths). */
int xp_opt_unsigned(const char *opt, const char *arg, unsigned min, unsigned max, const char *what,
		    unsigned *out, struct xp_err *e);

/* Handle one of the shared report options: 1 handled, 0 not ours, <0 error. */
int xp_report_getopt(int opt, const char *arg, struct xp_report_opts *o, struct xp_err *e);

/* Print @d onto @out in the format its options name (colour only for a terminal). */
int xp_diff_print(const struct xp_diff *d, FILE *out);

/*
 * Finish @r, which @l streamed into, and print it onto @dflt, or into
 * --output's file (run's report goes to stderr): an exit status (report_emit.c).
 */
int xp_report_emit_to(struct xp_report *r, struct xp_load *l, FILE *dflt);

/*
 * Load the dumps @names of directory @dir and print their report onto
 * @dflt, or into o->output: an exit status.
 */
int xp_report_names(const char *dir, const struct xp_names *names, const struct xp_report_opts *o,
		    FILE *dflt);

/* run's own long options (the report's are XP_REPORT_LONGOPTS), for doubling too. */
enum {
	XP_OPT_SPEC = XP_OPT_RUN_FIRST,
	XP_OPT_WINDOW,
	XP_OPT_COUNTER,
	XP_OPT_CALLERS,
	XP_OPT_NO_ASLR,
	XP_OPT_NO_CHILDREN,
	XP_OPT_STEP_FIRST,
	XP_OPT_STEP_EVERY,
	XP_OPT_STEP_LIMIT,
	XP_OPT_STEP_ENGINE,
	XP_OPT_WARMUP, /* run's own, not in XP_RUN_LONGOPTS: doubling has its own */
	XP_OPT_REPEAT,
	XP_OPT_OUTPUT,	/* --output; -o is 'o', which may be the old spelling of -d */
	XP_OPT_STATUS,	/* run's own */
	XP_OPT_RUN_END, /* options of commands that extend run's start here */
};

/*
 * -o, --output FILE: the report, in every command; -d, --data DIR (and
 * --dir): the dump directory of the commands that run or attach to a
 * program.
 */
/* clang-format off */
#define XP_OUTPUT_LONGOPTS                                                                  \
	{"output", required_argument, NULL, XP_OPT_OUTPUT}
#define XP_DATA_LONGOPTS                                                                    \
	{"data", required_argument, NULL, 'd'},                                             \
	{"dir", required_argument, NULL, 'd'}
/* clang-format on */

/* clang-format off */
#define XP_RUN_LONGOPTS                                                                     \
	{"hook", required_argument, NULL, 'H'},                                             \
	{"spec", required_argument, NULL, XP_OPT_SPEC},                                     \
	{"window", required_argument, NULL, XP_OPT_WINDOW},                                 \
	{"counter", required_argument, NULL, XP_OPT_COUNTER},                               \
	{"callers", required_argument, NULL, XP_OPT_CALLERS},                               \
	{"no-aslr", no_argument, NULL, XP_OPT_NO_ASLR},                                     \
	{"no-children", no_argument, NULL, XP_OPT_NO_CHILDREN},                             \
	{"step-first", required_argument, NULL, XP_OPT_STEP_FIRST},                         \
	{"step-every", required_argument, NULL, XP_OPT_STEP_EVERY},                         \
	{"step-limit", required_argument, NULL, XP_OPT_STEP_LIMIT},                         \
	{"step-engine", required_argument, NULL, XP_OPT_STEP_ENGINE}
/* clang-format on */

/* One of run's options (-H, -o, -d, XP_RUN_LONGOPTS, report's): 0, or -errno with @e set. */
int xp_run_getopt(struct xp_run_opts *o, int c, const char *arg, struct xp_err *e);

/*
 * After the options of @cmd: -o's FILE is the report, but an "-o DIR"
 * naming an existing directory (or ending in '/') is the old spelling of
 * the dump directory *@dir: taken as it, with a warning, unless -d was
 * given (@dir_given).  A report FILE that is the dump directory is
 * refused, and so is a binary --format without -o (the report would go
 * to stderr).  0, or -EINVAL with @e set.
 */
int xp_run_check_output(struct xp_run_opts *o, const char *cmd, const char **dir, bool dir_given,
			struct xp_err *e);

/*
 * Where the report goes: stderr, which keeps the program's stdout its own,
 * or --output's FILE, written after the run as report -o writes it
 * (util/out.h); checked before the program runs, so that a FILE that
 * cannot be written costs no run.  0, or
 * -errno with @e set.
 */
int xp_run_open_output(struct xp_run_opts *o, struct xp_err *e);

/* Parse run's command line: 1 to run, 0 when --help was shown, <0 on error (said). */
int xp_run_parse(struct xp_run_opts *o, int argc, char **argv);
/* Free what parsing run's options allocated. */
void xp_run_opts_free(struct xp_run_opts *o);

/*
 * --warmup and --repeat: W runs into a temporary directory removed after,
 * then K runs each into its own DIR/repeat-N, reported together (the
 * per-run figures aggregated by --stat).  @status: the last run's, as from
 * waitpid.  Returns the report's exit status (XP_EXIT_NOTHING when no run
 * left a dump, not said), or -1 when a run could not be started (said).
 */
int xp_run_repeat(const struct xp_run_opts *o, const char *dir, int *status);

/*
 * --warmup: W runs into a temporary directory, removed after.  Stops at a
 * run that died by a signal (@status says it).  0, or -errno with @e set
 * when the program could not be started.
 */
int xp_run_warmup(const struct xp_run_opts *o, int *status, struct xp_err *e);

/* Parse doubling's command line: 1 to go on, 0 after --help, <0 on error (said). */
int xp_dbl_parse(struct xp_dbl_opts *o, int argc, char **argv);
/* Free what xp_dbl_parse allocated. */
void xp_dbl_opts_free(struct xp_dbl_opts *o);

#endif
