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
 * A file written in place once its content is whole, as a shell's ">"
 * writes it: what is printed into @f is kept in memory, and only when
 * nothing failed is PATH opened (O_WRONLY|O_CREAT|O_TRUNC: through a
 * symlink, into a FIFO or a device, an existing file keeping its owner and
 * mode; a new one 0666 less the umask) and written.  A report that fails
 * leaves PATH as it was; PATH itself is never replaced.
 */
struct xp_out_file {
	FILE *f;
	char *path;
	char *buf;
	size_t len;
};

/* Start a file for @path (nothing is opened there yet): 0, or -errno with @e set. */
int xp_out_file_open(struct xp_out_file *o, const char *path, struct xp_err *e);
/* Without @err, write what was printed into @path: @err, or the error writing, with @e set. */
int xp_out_file_close(struct xp_out_file *o, int err, struct xp_err *e);
/* Whether @path could be written (before a run whose report goes there): 0 or -errno, @e set. */
int xp_out_file_check(const char *path, const char *what, struct xp_err *e);

/* How a command prints what it made (a report, a comparison) onto @out: 0 or -errno. */
typedef int (*xp_print_fn)(const void *what, FILE *out);

/*
 * Print @what with @print into -o's @path, written whole or not at all,
 * or onto @dflt when @path is NULL.  0, or -errno with @e set.
 */
int xp_write_output(const char *path, FILE *dflt, xp_print_fn print, const void *what,
		    struct xp_err *e);

#endif
