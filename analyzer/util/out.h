/* SPDX-License-Identifier: MIT */
/* out: what every printed output shares: whether to colour it, how to end it. */
#ifndef EXTPROF_ANALYZER_OUT_H
#define EXTPROF_ANALYZER_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/err.h"

/* --color: auto (a terminal, NO_COLOR unset, TERM not dumb), always or never. */
enum xp_colour_mode { XP_COLOUR_AUTO, XP_COLOUR_ALWAYS, XP_COLOUR_NEVER };

/* Set what xp_out_colour answers from now on (--color). */
void xp_out_colour_set(enum xp_colour_mode mode);
/* Whether to colour what goes to @out: as --color says, by default as XP_COLOUR_AUTO. */
bool xp_out_colour(FILE *out);
/* @err, or the error flushing @out left (a full disk, a closed pipe). */
int xp_out_finish(FILE *out, int err);
/* One CSV field, RFC 4180: quoted when it holds a comma, quote, CR or LF. */
void xp_out_csv_field(FILE *out, const char *s);

/*
 * A file written whole or not at all: a temporary file beside @path
 * ("PATH.XXXXXX", mode 0666 less the umask), renamed over it when
 * closed without an error, removed otherwise.
 */
struct xp_out_file {
	FILE *f;
	char *path;
	char *tmp;
};

/* Open the temporary file beside @path: 0, or -errno with @e set. */
int xp_out_file_open(struct xp_out_file *o, const char *path, struct xp_err *e);
/* Flush, rename (or, with @err, remove): @err, or the error writing, with @e set. */
int xp_out_file_close(struct xp_out_file *o, int err, struct xp_err *e);

#endif
