// SPDX-License-Identifier: MIT
/*
 * doubling_inputs: the N=DIR operands of "extprof doubling".  The same N
 * twice is a repeat; so is each DIR/repeat-K of a directory that "extprof
 * run --repeat" filled, so that its runs are read as that command reads
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doubling_run.h"
#include "num.h"

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

static int cmp_repeat(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* The K of DIR/repeat-K, ascending, when DIR holds no dumps of its own. */
static size_t repeats_of(const char *dir, unsigned **ks)
{
	struct xp_names dumps, others;
	struct xp_err e;
	size_t n = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	*ks = NULL;
	if (fd < 0)
		return 0; /* a file, or missing: said when it is read */
	if (xp_dir_names(fd, dir, &dumps, &others, &e)) {
		close(fd);
		return 0;
	}
	if (!dumps.n && others.n && (*ks = calloc(others.n, sizeof(**ks))))
		for (size_t i = 0; i < others.n; i++)
			n += xp_run_dir_is_repeat(fd, others.v[i], &(*ks)[n]);
	close(fd);
	xp_names_free(&dumps);
	xp_names_free(&others);
	if (n)
		qsort(*ks, n, sizeof(**ks), cmp_repeat);
	return n;
}

static int input_expand(struct xp_dbl_opts *o, size_t *cap, uint64_t n, const char *dir)
{
	unsigned *ks;
	size_t k = repeats_of(dir, &ks);
	int err = 0;

	for (size_t i = 0; i < k && !err; i++) {
		char *sub;

		err = asprintf(&sub, "%s/" XP_REPEAT_PREFIX "%u", dir, ks[i]) < 0
			      ? -ENOMEM
			      : input_add(o, cap, n, sub);
	}
	free(ks);
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
