// SPDX-License-Identifier: MIT
/*
 * report_emit: a report finished, written and its error said, as an exit
 * status: the end that report, run (and its repeats) and attach share.
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "export/export.h"

int xp_report_emit_to(struct xp_report *r, struct xp_load *l, FILE *dflt)
{
	struct xp_report_opts o = r->opts;
	struct xp_err e;
	int err = xp_report_stream_end(r, l, &e);

	if (!err) {
		err = xp_report_write(r, &o, dflt, &e);
		xp_report_free(r);
	}
	if (err) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	return 0;
}

int xp_report_names(const char *dir, const struct xp_names *names, const struct xp_report_opts *o,
		    FILE *dflt)
{
	struct xp_report r;
	struct xp_load l;
	struct xp_err e;
	int status;

	xp_load_init(&l, o->strict);
	l.defer = true;
	xp_report_stream(&r, &l, o);
	if (xp_load_names(&l, dir, names, &e)) {
		xp_err_print(&e);
		xp_report_free(&r);
		status = XP_EXIT_BAD;
	} else {
		status = xp_report_emit_to(&r, &l, dflt);
	}
	xp_load_free(&l);
	return status;
}
