/* SPDX-License-Identifier: MIT */
/*
 * html: one self-contained page (html.c), what `report --format html` and
 * `doubling --format html` write: its style and script inline, nothing
 * fetched from anywhere, so that it opens offline and can be mailed.  The
 * script sorts every table of class "sortable" by the column clicked
 * (numbers by their data-v; "#sort=COLUMN" in the page's address, as it
 * opens), and draws a flame graph in every element of
 * class "flame" from the JSON of the script element its data-stacks names.
 */
#ifndef XP_HTML_H
#define XP_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "export/export.h"

/*
 * What @print writes of @what, into a malloc'd string of *@len bytes (the
 * text reports a page folds in); NULL when it fails.
 */
char *xp_html_capture(int (*print)(const void *what, FILE *out), const void *what, size_t *len);
/* The page's head, with @title, and the body opened. */
void xp_html_begin(FILE *out, const char *title);
/* The script, and the page closed. */
void xp_html_end(FILE *out);
/* @s (@n bytes) as HTML text: &, <, >, " and ' escaped, control characters '?'. */
void xp_html_text(FILE *out, const char *s, size_t n);
/* A table cell of number @v, shown with thousands separators, sorted by its value. */
void xp_html_cell_u64(FILE *out, uint64_t v);
/* A cell showing @text, sorted by @v. */
void xp_html_cell_num(FILE *out, double v, const char *text);
/* A cell of text. */
void xp_html_cell(FILE *out, const char *s);
/*
 * Everything @write (called with @arg) writes as JSON, inside a script
 * element of id @id that the page reads: '<', '>' and '&' written as
 * \u003c, \u003e and \u0026 (they only occur in strings), so that no
 * name can close the element.  0 or -errno.
 */
int xp_html_json(FILE *out, const char *id, int (*write)(FILE *json, const void *arg),
		 const void *arg);
/* The stacks (a struct xp_stacks) as the JSON the flame graph reads: 0 or -ENOMEM. */
int xp_html_stacks_json(FILE *json, const void *stacks);
/* A flame graph of the stacks in script element @id, titled @title, figures in @unit. */
void xp_html_flame(FILE *out, const char *id, const char *title, const char *unit);

#endif
