// SPDX-License-Identifier: MIT
/* text_table: aligned columns for the text report. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text_table.h"
#include "util/vec.h"

void xp_table_init(struct xp_table *t, size_t ncols, const bool *right)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols < XP_TABLE_MAX_COLS ? ncols : XP_TABLE_MAX_COLS;
	memcpy(t->right, right, t->ncols * sizeof(*right));
}

size_t xp_text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

void xp_text_put(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

void xp_table_add(struct xp_table *t, const char *s)
{
	size_t col = t->ncells % t->ncols, w;
	char *copy;

	if (t->err)
		return;
	if (XP_GROW(&t->cells, &t->cap, t->ncells, 64)) {
		t->err = -ENOMEM;
		return;
	}
	copy = strdup(s);
	if (!copy) {
		t->err = -ENOMEM;
		return;
	}
	t->cells[t->ncells++] = copy;
	w = xp_text_width(copy);
	if (w > t->width[col])
		t->width[col] = w;
}

void xp_table_addf(struct xp_table *t, const char *fmt, ...)
{
	char *buf;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&buf, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->err = -ENOMEM;
		return;
	}
	xp_table_add(t, buf);
	free(buf);
}

void xp_table_note(struct xp_table *t, const char *s)
{
	size_t cap;

	if (t->err || t->ncells < t->ncols)
		return;
	/* two arrays of one capacity: notes_cap moves once both have grown */
	cap = t->notes_cap;
	if (XP_GROW(&t->notes, &cap, t->nnotes, 16) ||
	    XP_GROW(&t->note_row, &t->notes_cap, t->nnotes, 16)) {
		t->err = -ENOMEM;
		return;
	}
	t->notes[t->nnotes] = strdup(s);
	if (!t->notes[t->nnotes]) {
		t->err = -ENOMEM;
		return;
	}
	t->note_row[t->nnotes++] = t->ncells / t->ncols - 1;
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

/* Cells two spaces apart; no trailing blanks when the last cell is empty. */
static void table_cell(const struct xp_table *t, FILE *out, size_t i, const char *on,
		       const char *off)
{
	size_t col = i % t->ncols;
	bool last = col == t->ncols - 1;
	const char *s = t->cells[i];
	size_t gap = t->width[col] - xp_text_width(s);

	if (col && !(last && !*s))
		fputs("  ", out);
	if (t->right[col])
		pad(out, gap);
	if (*s && *on)
		fputs(on, out);
	xp_text_put(out, s);
	if (*s && *on)
		fputs(off, out);
	if (!t->right[col] && !last && !(col == t->ncols - 2 && !*t->cells[i + 1]))
		pad(out, gap);
	if (last)
		fputc('\n', out);
}

void xp_table_print(const struct xp_table *t, FILE *out, const char *head_on, const char *last_on,
		    const char *off)
{
	size_t cells = t->ncells - t->ncells % t->ncols; /* whole rows only */
	size_t note = 0;

	for (size_t i = 0; i < cells; i++) {
		size_t col = i % t->ncols;
		const char *on = i < t->ncols ? head_on : col == t->ncols - 1 ? last_on : "";

		table_cell(t, out, i, on, off);
		/* notes are added in row order */
		while (col == t->ncols - 1 && note < t->nnotes &&
		       t->note_row[note] == i / t->ncols) {
			xp_text_put(out, t->notes[note++]);
			fputc('\n', out);
		}
	}
}

void xp_table_free(struct xp_table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->cells);
	free(t->notes);
	free(t->note_row);
	memset(t, 0, sizeof(*t));
}
