// SPDX-License-Identifier: MIT
/*
 * checker: an explicit-state model checker for the two-phase commit protocol, the example
 * program extprof's README profiles and its tests run.
 *
 * stdout is one summary line (and the violation, if any), the same for every number of
 * workers and every run; anything that varies, such as time, goes to stderr and only with -v.
 * Exit status: 0 no violation, 1 a violation, 2 bad usage, 3 the search could not finish.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"
#include "search.h"
#include "state.h"
#include "truth.h"
#include "work.h"

#define CHECKER_DEFAULT_RM	5
#define CHECKER_DEFAULT_WORKERS 1
#define CHECKER_MAX_WORKERS	256

enum {
	EXIT_VIOLATION = 1,
	EXIT_USAGE = 2,
	EXIT_INCOMPLETE = 3,
};

struct checker_options {
	unsigned n_rm;
	unsigned n_workers;
	uint64_t max_states; /* -m; 0: no bound */
	bool verbose;
	bool bug;
};

static void checker_usage(FILE *out)
{
	fprintf(out,
		"usage: checker [-n N] [-w W] [-m MAX_STATES] [-b] [-v] [-h]\n"
		"Explore every reachable state of two-phase commit breadth-first.\n"
		"  -n N           resource managers, 1..%d (default %d)\n"
		"  -w W           worker threads, 1..%d (default %d)\n"
		"  -m MAX_STATES  bound the search: stop after the first level that brings the\n"
		"                 distinct states to MAX_STATES or more, and check the states of\n"
		"                 the next level without expanding them (default: no bound)\n"
		"  -b             inject a bug: the TM commits on the first vote\n"
		"  -v             report time and work on stderr\n"
		"  -h             show this help\n"
		"Exit status: 0 no violation, 1 a violation, 2 bad usage, 3 search incomplete.\n",
		STATE_MAX_RM, CHECKER_DEFAULT_RM, CHECKER_MAX_WORKERS, CHECKER_DEFAULT_WORKERS);
}

/* A whole decimal number in [min, max], nothing before or after it. */
static bool checker_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long val;
	char *end;

	if (*text < '0' || *text > '9')
		return false;
	errno = 0;
	val = strtoull(text, &end, 10);
	if (errno || *end || val < min || val > max)
		return false;
	*out = val;
	return true;
}

static bool checker_parse_uint(const char *text, unsigned min, unsigned max, unsigned *out)
{
	uint64_t val;

	if (!checker_parse_u64(text, min, max, &val))
		return false;
	*out = (unsigned)val;
	return true;
}

/* Returns -1 to go on, else the exit status. */
static int checker_parse_args(int argc, char **argv, struct checker_options *opt)
{
	int c;

	opt->n_rm = CHECKER_DEFAULT_RM;
	opt->n_workers = CHECKER_DEFAULT_WORKERS;
	opt->max_states = 0;
	opt->verbose = false;
	opt->bug = false;
	opterr = 0;
	while ((c = getopt(argc, argv, ":n:w:m:bvh")) != -1) {
		switch (c) {
		case 'n':
			if (!checker_parse_uint(optarg, 1, STATE_MAX_RM, &opt->n_rm)) {
				fprintf(stderr,
					"checker: -n %s: want a number of RMs from 1 to %d\n",
					optarg, STATE_MAX_RM);
				return EXIT_USAGE;
			}
			break;
		case 'w':
			if (!checker_parse_uint(optarg, 1, CHECKER_MAX_WORKERS, &opt->n_workers)) {
				fprintf(stderr,
					"checker: -w %s: want a number of workers from 1 to %d\n",
					optarg, CHECKER_MAX_WORKERS);
				return EXIT_USAGE;
			}
			break;
		case 'm':
			if (!checker_parse_u64(optarg, 1, UINT64_MAX, &opt->max_states)) {
				fprintf(stderr,
					"checker: -m %s: want a number of states from 1 to %" PRIu64
					"\n",
					optarg, UINT64_MAX);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			opt->bug = true;
			break;
		case 'v':
			opt->verbose = true;
			break;
		case 'h':
			checker_usage(stdout);
			return EXIT_SUCCESS;
		case ':':
			fprintf(stderr, "checker: -%c needs a value\n", optopt);
			checker_usage(stderr);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "checker: unknown option -%c\n", optopt);
			checker_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "checker: unexpected argument '%s'\n", argv[optind]);
		checker_usage(stderr);
		return EXIT_USAGE;
	}
	return -1;
}

/* Static: a state of STATE_MAX_RM RMs is too big for a comfortable stack, and so is its text. */
static struct tp_state checker_state;
static char checker_text[STATE_TEXT_MAX];

static void checker_print_violation(const struct spec *spec, unsigned n_rm,
				    const struct search_violation *v, unsigned depth)
{
	struct tp_state *s = &checker_state;
	char *text = checker_text;

	state_decode(v->key, n_rm, s);
	state_format(s, text, sizeof(checker_text));
	if (!v->is_property) {
		printf("invariant %s violated at depth %u: %s\n", spec->invariants[v->pred].name,
		       depth, text);
		return;
	}
	printf("action property %s violated at depth %u: %s\n", spec->properties[v->pred].name,
	       depth, text);
	state_decode(v->next_key, n_rm, s);
	state_format(s, text, sizeof(checker_text));
	printf("  -> %s\n", text);
}

static double checker_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const struct spec *spec = &protocol_spec;
	struct checker_options opt;
	uint64_t worker_work[CHECKER_MAX_WORKERS];
	static struct search_result res;
	double start;
	unsigned i;
	int status;

	status = checker_parse_args(argc, argv, &opt);
	if (status >= 0)
		return status;
	protocol_bug_early_commit = opt.bug;

	start = checker_now();
	if (search_run(spec, opt.n_rm, opt.n_workers, opt.max_states, &res, worker_work)) {
		fprintf(stderr, "checker: N=%u: search incomplete: %s\n", opt.n_rm,
			strerror(errno));
		truth_print(stderr, protocol_pred_names, TP_NPRED);
		return EXIT_INCOMPLETE;
	}

	printf("%s, N=%u: %" PRIu64 " distinct states, %" PRIu64 " transitions, %" PRIu64
	       " terminal states, depth %u, %" PRIu64 " violation%s",
	       spec->title, opt.n_rm, res.states, res.transitions, res.terminal, res.depth,
	       res.violations, res.violations == 1 ? "" : "s");
	if (res.bounded)
		printf(", bounded at level %u by -m %" PRIu64, res.depth, opt.max_states);
	putchar('\n');
	if (res.first.found)
		checker_print_violation(spec, opt.n_rm, &res.first, res.depth);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "checker: writing the summary: %s\n", strerror(errno));
		status = EXIT_INCOMPLETE;
	} else {
		status = res.violations ? EXIT_VIOLATION : EXIT_SUCCESS;
	}

	if (opt.verbose) {
		fprintf(stderr, "checker: N=%u W=%u: %.3f s, checker_work %" PRIu64 "\n", opt.n_rm,
			opt.n_workers, checker_now() - start, checker_work_total);
		for (i = 0; i < opt.n_workers; i++)
			fprintf(stderr, "checker: worker %u: checker_work %" PRIu64 "\n", i,
				worker_work[i]);
	}
	truth_print(stderr, protocol_pred_names, TP_NPRED);
	return status;
}
