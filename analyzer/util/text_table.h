/* SPDX-License-Identifier: MIT */
/* text_table: columns of cells, aligned by display width, printed once. */
#ifndef XP_TEXT_TABLE_H
#define XP_TEXT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define XP_TABLE_MAX_COLS 16

struct xp_table {
	size_t ncols;
	bool right[XP_TABLE_MAX_COLS]; /* right-aligned (numbers) */
	size_t width[XP_TABLE_MAX_COLS];
	size_t ncells;
	size_t cap;
	char **cells; /* ncells * ncols, owned */
	size_t nnotes;
	size_t notes_cap;
	char **notes;	  /* lines printed under a row, owned */
	size_t *note_row; /* the row each note is under */
	int err;	  /* -ENOMEM once any add failed */
};

/* An empty table of @ncols columns, @right[i] for a right-aligned one. */
void xp_table_init(struct xp_table *t, size_t ncols, const bool *right);
/* Append a cell to the current row (a row is ncols cells); copies @s, shown safely. */
void xp_table_add(struct xp_table *t, const char *s);
/* xp_table_add of a formatted cell. */
void xp_table_addf(struct xp_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line printed under the last row added, outside the columns; shown safely. */
void xp_table_note(struct xp_table *t, const char *s);

/*
 * Print every row, cells two spaces apart, the last column unpadded.  Row 0
 * is the heading; @head_on/@off wrap it, @last_on/@off wrap non-empty cells
 * of the last column (colour, or "").
 */
void xp_table_print(const struct xp_table *t, FILE *out, const char *head_on, const char *last_on,
		    const char *off);
/* Free the cells and notes. */
void xp_table_free(struct xp_table *t);

/* Display width of UTF-8 text: code points, not bytes. */
size_t xp_text_width(const char *s);
/* Print @s with control characters shown as '?': a symbol must not drive the terminal. */
void xp_text_put(FILE *out, const char *s);

#endif
