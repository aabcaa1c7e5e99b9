/* SPDX-License-Identifier: MIT */
/* out: what every printed output shares: whether to colour it, how to end it. */
#ifndef EXTPROF_ANALYZER_OUT_H
#define EXTPROF_ANALYZER_OUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

bool xp_out_colour(FILE *out);
int xp_out_finish(FILE *out, int err);
int xp_strv_vappendf(char ***v, size_t *n, const char *fmt, va_list ap);
/* One CSV field, RFC 4180: quoted when it holds a comma, quote, CR or LF. */
void xp_out_csv_field(FILE *out, const char *s);

#endif
