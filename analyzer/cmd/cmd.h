/* SPDX-License-Identifier: MIT */
/* cmd: the extprof commands; each returns the process exit status. */
#ifndef XP_CMD_H
#define XP_CMD_H

#include <stdio.h>

#include "util/err.h"
#include "model/load.h"
#include "report/report.h"

/* Exit status for bad input or usage, as the contract says. */
#define XP_EXIT_BAD 2

int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);

void cmd_report_usage(FILE *out);
void cmd_run_usage(FILE *out);
void cmd_dump_usage(FILE *out);
void cmd_diff_usage(FILE *out);
void cmd_top_usage(FILE *out);
void cmd_attach_usage(FILE *out);
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
	{"help", no_argument, NULL, XP_OPT_HELP}
/* clang-format on */

#define XP_REPORT_OPTIONS_HELP                                                                     \
	"  --format text|json|csv|callgrind|pprof\n"                                               \
	"                           output format (default text): callgrind's for\n"               \
	"                           callgrind_annotate and KCachegrind; pprof's\n"                 \
	"                           profile.proto, gzipped, for go tool pprof\n"                   \
	"  --sort weight|cost|evaluations|per-eval|observed|name\n"                                \
	"                           row order, most first (default weight: observed\n"            \
	"                           where state-dependent, cost elsewhere)\n"                     \
	"  --stat min|median|mean   per-evaluation statistic cost is built on\n"                   \
	"                           (default min: the floor)\n"                                    \
	"  --flag-ratio R           flag state-dependent when observed >= cost x (1+R),\n"         \
	"                           and beyond noise (default 0.25)\n"                            \
	"  --strict                 a corrupt dump or a process that did not finish\n"             \
	"                           cleanly is an error (default: corrupt files are\n"             \
	"                           skipped with a line each)\n"                                   \
	"  --allow-mixed            merge processes that ran on different CPUs or\n"               \
	"                           executables (build-ids), with a warning; without\n"            \
	"                           it they are refused\n"

/* After getopt_long returned '?': one line naming the bad option. */
void xp_bad_option(const char *cmd, char **argv);

/* Handle one of the shared report options: 1 handled, 0 not ours, <0 error. */
int xp_report_getopt(int opt, const char *arg, struct xp_report_opts *o, struct xp_err *e);

/* Build the report from what @l loaded and print it on stdout: an exit status. */
int xp_report_emit(struct xp_load *l, const struct xp_report_opts *o);
/* The same onto @dflt when there is no -o FILE (run's report goes to stderr). */
int xp_report_emit_to(struct xp_load *l, const struct xp_report_opts *o, FILE *dflt);
/* Print @r onto @dflt, or into o->output whole: 0 or -errno with @e set. */
int xp_report_write(const struct xp_report *r, const struct xp_report_opts *o, FILE *dflt,
		    struct xp_err *e);

/*
 * Load the dumps @names of directory @dir and print their report onto
 * @dflt, or into o->output: an exit status.
 */
int xp_report_names(const char *dir, const struct xp_names *names, const struct xp_report_opts *o,
		    FILE *dflt);

#endif
