// SPDX-License-Identifier: MIT
/*
 * cmd_doubling: extprof doubling N=DIR N=DIR..., or --sizes and a program
 * that it runs at every size first.  Then the same analysis either way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "doubling/doubling_run.h"
#include "util/out.h"

/* The result in the format --format picked (html: with the plot of @v); colour on a terminal. */
static int doubling_print(const struct xp_doubling *d, enum xp_dbl_value v, FILE *out)
{
	int err;

	switch (d->opts.format) {
	case XP_FORMAT_HTML:
		err = xp_dbl_html(d, v, out);
		break;
	case XP_FORMAT_JSON:
		err = xp_dbl_json(d, out);
		break;
	case XP_FORMAT_CSV:
		err = xp_dbl_csv(d, out);
		break;
	case XP_FORMAT_TEXT:
	default:
		err = xp_dbl_text(d, out);
		break;
	}
	return xp_out_finish(out, err);
}

static int analyse(const struct xp_dbl_opts *o, const struct xp_dbl_input *in, size_t nin,
		   const struct xp_dbl_ran *ran)
{
	struct xp_doubling d;
	struct xp_err e;
	int err;

	if (xp_dbl_build(&d, in, nin, &o->run.report, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	if (ran) {
		d.base = ran->base;
		d.warmup = o->warmup;
		d.timeout = o->timeout;
		d.stopped = ran->stopped;
		d.stopped_at = ran->stopped_at;
		d.stopped_seconds = ran->stopped_seconds;
		d.sizes_asked = o->nsizes;
	}
	err = doubling_print(&d, o->plot_value, stdout);
	if (err) {
		xp_err_set(&e, err, "writing the report: %s", strerror(-err));
	} else if (o->plot) {
		err = xp_dbl_plot(&d, o->plot_value, o->plot, &e);
	}
	xp_dbl_free(&d);
	if (err) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	return 0;
}

int cmd_doubling(int argc, char **argv)
{
	struct xp_dbl_opts o;
	struct xp_dbl_ran ran;
	int r, status;

	r = xp_dbl_parse(&o, argc, argv);
	if (r <= 0) {
		xp_dbl_opts_free(&o);
		return r ? XP_EXIT_BAD : 0;
	}
	if (!o.run_mode) {
		status = analyse(&o, o.inputs, o.ninputs, NULL);
		xp_dbl_opts_free(&o);
		return status;
	}
	r = xp_dbl_run(&o, &ran);
	/* a failed run: its status; our own failure: 2 */
	status = r > 0 ? r : r < 0 ? XP_EXIT_BAD : analyse(&o, ran.inputs, ran.ninputs, &ran);
	xp_dbl_ran_free(&ran);
	xp_dbl_opts_free(&o);
	return status;
}
