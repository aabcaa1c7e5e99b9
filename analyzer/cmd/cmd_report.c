// SPDX-License-Identifier: MIT
/* cmd_report: extprof report [options] DIR|FILE... */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "export/export.h"
#include "util/out.h"

void cmd_report_usage(FILE *out)
{
	fputs("usage: extprof report [options] DIR|FILE|'PATTERN'...\n"
	      "\n"
	      "Merge the dumps (files, directories of *.xpd, or a quoted glob of either),\n"
	      "finalize them and print one row per declaration, most expensive first.\n"
	      "\n" XP_REPORT_OPTIONS_HELP
	      "  --callers                under each declaration, its caller chains (dumps of\n"
	      "                           a run with EXTPROF_CALLERS), most expensive first\n"
	      "  -o, --output FILE        write the report into FILE instead of stdout, once\n"
	      "                           it is whole (a FIFO, a device, a symlink's target:\n"
	      "                           written to, as by a shell's >, never replaced);\n"
	      "                           --format pprof is binary and is\n"
	      "                           never written onto a terminal: give -o FILE or\n"
	      "                           redirect stdout\n"
	      "  -h, --help               this text\n"
	      "\n"
	      "  extprof report --format callgrind -o callgrind.out DIR; callgrind_annotate "
	      "callgrind.out\n"
	      "  extprof report --format pprof -o extprof.pb.gz DIR; go tool pprof -top "
	      "extprof.pb.gz\n"
	      "  extprof report --format folded DIR | flamegraph.pl > flame.svg\n"
	      "  extprof report --format html -o report.html DIR\n",
	      out);
}

static int report_parse(int argc, char **argv, struct xp_report_opts *o)
{
	static const struct option longopts[] = {
		XP_REPORT_LONGOPTS,
		{"callers", no_argument, NULL, XP_OPT_SHOW_CALLERS},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	struct xp_err e;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if (c == 'h' || c == XP_OPT_HELP) {
			cmd_report_usage(stdout);
			return 0;
		}
		if (c == 'o') {
			o->output = optarg;
			continue;
		}
		r = xp_report_getopt(c, optarg, o, &e);
		if (r < 0) {
			xp_err_print(&e);
			return -1;
		}
		if (!r) {
			xp_bad_option("report", argv);
			return -1;
		}
	}
	if (optind == argc) {
		fputs("extprof: report: name a dump directory or file (see extprof report "
		      "--help)\n",
		      stderr);
		return -1;
	}
	if (xp_report_check_dest(o, stdout, &e)) {
		xp_err_print(&e);
		return -1;
	}
	return 1;
}

int cmd_report(int argc, char **argv)
{
	struct xp_report_opts o;
	struct xp_report rep;
	struct xp_load l;
	struct xp_err e;
	int r, status;

	xp_report_opts_init(&o);
	r = report_parse(argc, argv, &o);
	if (r <= 0)
		return r ? XP_EXIT_BAD : 0;
	xp_load_init(&l, o.strict);
	l.defer = true;
	xp_report_stream(&rep, &l, &o);
	for (int i = optind; i < argc; i++) {
		if (xp_load_arg(&l, argv[i], &e)) {
			xp_err_print(&e);
			xp_report_free(&rep);
			xp_load_free(&l);
			return XP_EXIT_BAD;
		}
	}
	status = xp_report_emit_to(&rep, &l, stdout);
	xp_load_free(&l);
	return status;
}
