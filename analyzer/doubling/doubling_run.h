/* SPDX-License-Identifier: MIT */
/*
 * doubling_run: the options of "extprof doubling" (parsed by
 * cmd/doubling_opts.c), and running the program once per size and repeat
 * under the shim with the machinery of run/ (shim discovery, environment,
 * child, dump directories).
 */
#ifndef XP_DOUBLING_RUN_H
#define XP_DOUBLING_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "doubling/doubling.h"
#include "run/run.h"

#define XP_DBL_BASE_TEMPLATE "extprof.doubling.XXXXXX"

struct xp_dbl_opts {
	struct xp_run_opts run; /* run's options; run.report the report's */
	bool run_mode;		/* --sizes: we run the program */
	uint64_t *sizes;	/* ascending, distinct */
	size_t nsizes;
	unsigned warmup;
	unsigned repeat;
	double timeout;	  /* seconds; 0: none */
	const char *base; /* -d, or NULL for a new XP_DBL_BASE_TEMPLATE */
	const char *plot; /* --plot FILE */
	enum xp_dbl_value plot_value;
	struct xp_dbl_input *inputs; /* N=DIR arguments, sorted by N */
	size_t ninputs;
};

/* What running the program at every size left. */
struct xp_dbl_ran {
	char *base;
	struct xp_dbl_input *inputs; /* sorted by N */
	size_t ninputs;
	bool stopped; /* by --timeout */
	uint64_t stopped_at;
	double stopped_seconds;
};

/*
 * Run every size (and the warmup) under the shim.  0 when all ran; the
 * program's exit status (> 0) when a run failed, its stderr shown; <0 on
 * our own error, said.
 */
int xp_dbl_run(const struct xp_dbl_opts *o, struct xp_dbl_ran *out);
/* Free what xp_dbl_run filled in. */
void xp_dbl_ran_free(struct xp_dbl_ran *r);

/* "{N}" in every argument replaced by @n; NULL on no memory. */
char **xp_dbl_argv(char *const *argv, uint64_t n);
/* Free an argv made by xp_dbl_argv. */
void xp_dbl_argv_free(char **argv);

/*
 * N=DIR operands into @o->inputs, sorted by N (doubling_inputs.c).  A DIR
 * of "extprof run --repeat" (DIR/repeat-K, no dumps of its own) stands for
 * its runs, repeats of size N.  0, or -errno with @e set.
 */
int xp_dbl_inputs_parse(struct xp_dbl_opts *o, int argc, char **argv, struct xp_err *e);
/* Free @n inputs made by xp_dbl_inputs_parse. */
void xp_dbl_inputs_free(struct xp_dbl_input *in, size_t n);

#endif
