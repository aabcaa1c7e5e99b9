// SPDX-License-Identifier: MIT
/*
 * doubling_inputs: the N=DIR operands of "extprof doubling".  The same N
 * twice is a repeat; so is each DIR/repeat-K of a directory that "extprof
 * run --repeat" filled, so that its runs are read as that command reads
 * them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doubling/doubling_run.h"
#include "util/num.h"
#include "read/repeat_dirs.h"

static int input_add(struct xp_dbl_opts *o, size_t *cap, uint64_t n, char *dir)
{
	if (o->ninputs == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct xp_dbl_input *in = realloc(o->inputs, c * sizeof(*in));

		if (!in) {
			free(dir);
			return -ENOMEM;
		}
		o->inputs = in;
		*cap = c;
	}
	/* the order given, for a stable sort; undone once sorted */
	o->inputs[o->ninputs] = (struct xp_dbl_input){n, dir, (double)o->ninputs};
	o->ninputs++;
	return 0;
}

static int input_expand(struct xp_dbl_opts *o, size_t *cap, uint64_t n, const char *dir)
{
	char **subs;
	size_t k;
	int err = xp_repeat_dirs(dir, &subs, &k);

	for (size_t i = 0; i < k && !err; i++) {
		err = input_add(o, cap, n, subs[i]); /* takes it */
		subs[i] = NULL;
	}
	xp_repeat_dirs_free(subs, k);
	if (!err && !k) {
		char *copy = strdup(dir);

		err = copy ? input_add(o, cap, n, copy) : -ENOMEM;
	}
	return err;
}

static int cmp_input(const void *pa, const void *pb)
{
	const struct xp_dbl_input *a = pa, *b = pb;

	if (a->n != b->n)
		return (a->n > b->n) - (a->n < b->n);
	return (a->seconds > b->seconds) - (a->seconds < b->seconds);
}

int xp_dbl_inputs_parse(struct xp_dbl_opts *o, int argc, char **argv, struct xp_err *e)
{
	size_t cap = 0, distinct = 0;

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char num[32];
		uint64_t n;

		if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof(num) || !eq[1])
			n = 0;
		else if (snprintf(num, sizeof(num), "%.*s", (int)(eq - argv[i]), argv[i]) < 0 ||
			 xp_parse_u64(num, &n))
			n = 0;
		if (!n)
			return xp_err_set(e, -EINVAL,
					  "'%s': expected N=DIR, N a size above 0 (or --sizes "
					  "to run a program)",
					  argv[i]);
		if (input_expand(o, &cap, n, eq + 1))
			return xp_err_set(e, -ENOMEM, "out of memory");
	}
	qsort(o->inputs, o->ninputs, sizeof(*o->inputs), cmp_input);
	for (size_t i = 0; i < o->ninputs; i++) {
		distinct += !i || o->inputs[i].n != o->inputs[i - 1].n;
		o->inputs[i].seconds = -1;
	}
	if (distinct < 2)
		return xp_err_set(
			e, -EINVAL,
			"the doubling test needs runs at 2 sizes at least (N=DIR N=DIR...)");
	return 0;
}

void xp_dbl_inputs_free(struct xp_dbl_input *in, size_t n)
{
	for (size_t i = 0; in && i < n; i++)
		free(in[i].dir);
	free(in);
}
