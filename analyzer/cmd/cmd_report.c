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
	fputs("usage: extprof report [options] DIR|FILE...\n"
	      "\n"
	      "Merge the dumps (files, or directories of *.xpd), finalize them and print\n"
	      "one row per declaration, most expensive first.\n"
	      "\n" XP_REPORT_OPTIONS_HELP
	      "  --callers                under each declaration, its caller chains (dumps of\n"
	      "                           a run with EXTPROF_CALLERS), most expensive first\n"
	      "  -o, --output FILE        write the report to FILE (whole, or not at all)\n"
	      "                           instead of stdout; --format pprof is binary and is\n"
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

int xp_report_print(const struct xp_report *r, FILE *out)
{
	int err;

	switch (r->opts.format) {
	case XP_FORMAT_JSON:
		err = xp_report_json(r, out);
		break;
	case XP_FORMAT_CSV:
		err = xp_report_csv(r, out);
		break;
	case XP_FORMAT_CALLGRIND:
		err = xp_report_callgrind(r, out);
		break;
	case XP_FORMAT_PPROF:
		err = xp_report_pprof(r, out);
		break;
	case XP_FORMAT_FOLDED:
		err = xp_report_folded(r, out);
		break;
	case XP_FORMAT_HTML:
		err = xp_report_html(r, out);
		break;
	case XP_FORMAT_TEXT:
	default:
		err = xp_report_text(r, out, xp_out_colour(out));
		break;
	}
	return xp_out_finish(out, err);
}

int xp_report_write(const struct xp_report *r, const struct xp_report_opts *o, FILE *dflt,
		    struct xp_err *e)
{
	struct xp_out_file f;
	int err;

	if (!o->output) {
		err = xp_report_check_dest(o, dflt, e);
		if (err)
			return err;
		err = xp_report_print(r, dflt);
		if (err)
			xp_err_set(e, err, "writing the report: %s", strerror(-err));
		return err;
	}
	err = xp_out_file_open(&f, o->output, e);
	if (err)
		return err;
	err = xp_report_print(r, f.f);
	if (err)
		xp_err_set(e, err, "writing %s: %s", o->output, strerror(-err));
	return xp_out_file_close(&f, err, e);
}

int xp_report_emit(struct xp_load *l, const struct xp_report_opts *o)
{
	return xp_report_emit_to(l, o, stdout);
}

int xp_report_emit_to(struct xp_load *l, const struct xp_report_opts *o, FILE *dflt)
{
	struct xp_report r;
	struct xp_err e;
	int err;

	if (xp_load_finish(l, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	err = xp_report_build(&r, &l->set, o, l->skipped, &e);
	if (err) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	err = xp_report_write(&r, o, dflt, &e);
	xp_report_free(&r);
	if (err) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	return 0;
}

int xp_report_names(const char *dir, const struct xp_names *names, const struct xp_report_opts *o,
		    FILE *dflt)
{
	struct xp_load l;
	struct xp_err e;
	int status;

	xp_load_init(&l, o->strict);
	l.defer = true;
	status = xp_load_names(&l, dir, names, &e) ? (xp_err_print(&e), XP_EXIT_BAD)
						   : xp_report_emit_to(&l, o, dflt);
	xp_load_free(&l);
	return status;
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
	struct xp_load l;
	struct xp_err e;
	int r, status;

	xp_report_opts_init(&o);
	r = report_parse(argc, argv, &o);
	if (r <= 0)
		return r ? XP_EXIT_BAD : 0;
	xp_load_init(&l, o.strict);
	l.defer = true;
	for (int i = optind; i < argc; i++) {
		if (xp_load_arg(&l, argv[i], &e)) {
			xp_err_print(&e);
			xp_load_free(&l);
			return XP_EXIT_BAD;
		}
	}
	status = xp_report_emit(&l, &o);
	xp_load_free(&l);
	return status;
}
