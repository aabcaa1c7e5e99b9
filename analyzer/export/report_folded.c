// SPDX-License-Identifier: MIT
/*
 * report_folded: the stacks every export draws (stacks.c) as collapsed
 * stacks, the text flamegraph.pl, speedscope, inferno and others read:
 * one line per frame that has a cost of its own, its frames from the root
 * down joined by ';', a space and that cost:
 *
 *   main@bzip2;BZ2_compressBlock@libbz2.so.1.0 19639260
 *   main@bzip2;BZ2_compressBlock@libbz2.so.1.0;BZ2_blockSort@libbz2.so.1.0 80784428
 *   (not hooked) 1047470882
 *
 * The values add up to the run total, so a frame's width is its share in
 * the report.  A frame is "function@object" ("function" alone when it has
 * no object); ';' in a name becomes ':', a control character '?', so that
 * the line splits where its readers split it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "export/export.h"

static void folded_name(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		fputc(c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : c, out);
	}
}

/* The frames of node @i from the root down. */
static void folded_path(FILE *out, const struct xp_stacks *st, size_t i)
{
	const struct xp_stack_node *x = &st->v[i];

	if (x->parent) {
		folded_path(out, st, x->parent);
		fputc(';', out);
	}
	folded_name(out, x->fn, x->fn_len);
	if (x->obj_len) {
		fputc('@', out);
		folded_name(out, x->obj, x->obj_len);
	}
}

int xp_report_folded(const struct xp_report *r, FILE *out)
{
	struct xp_stacks st;
	int err = xp_stacks_build(&st, r);

	if (err)
		return err;
	for (size_t i = 1; i < st.n; i++) {
		if (!st.v[i].self[XP_STACK_COST])
			continue;
		folded_path(out, &st, i);
		fprintf(out, " %" PRIu64 "\n", st.v[i].self[XP_STACK_COST]);
	}
	xp_stacks_free(&st);
	return 0;
}
