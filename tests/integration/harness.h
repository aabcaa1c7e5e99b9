/* SPDX-License-Identifier: MIT */
/*
 * harness: what the integration tests share: run a real program (under the
 * shim or not) with its output captured, run the real `extprof` on the dumps
 * it left, and read the JSON report back.
 */
#ifndef EXTPROF_TESTS_HARNESS_H
#define EXTPROF_TESTS_HARNESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct run_result {
	int status;	/* exit status, or 128 + signal */
	int signal;	/* the signal that ended it, 0 if it exited */
	bool timed_out; /* killed (SIGKILL) after the run's timeout */
	char *out;	/* stdout, NUL-terminated */
	char *err;	/* stderr, NUL-terminated */
};

/* Paths the build passes in the environment (meson test(..., env: ...)). */
const char *harness_path(const char *var);

/*
 * Run @argv with @env ("NAME=value" strings, NULL-terminated, added to this
 * process's environment; "NAME=" with nothing after removes NAME).
 */
int harness_run(const char *const argv[], const char *const env[], struct run_result *r);
void harness_free(struct run_result *r);

/* How harness_run_with() sets the child up; zero for "as this process". */
struct run_opts {
	const char *cwd; /* working directory */
	int uid;	 /* > 0: setgid and setuid to it (we are root) */
	int umask;	 /* when umask_set */
	bool umask_set;
	const char *hostname;	/* in a UTS namespace of its own (we are root) */
	unsigned as_mb;		/* RLIMIT_AS, in MiB */
	unsigned timeout_s;	/* SIGKILL after this long (r->timed_out) */
	const char *stdin_path; /* the child's stdin; NULL: /dev/null */
};

int harness_run_with(const char *const argv[], const char *const env[], const struct run_opts *o,
		     struct run_result *r);

/*
 * A child whose stdout the test reads while it runs (to act on a line it
 * printed: kill it, say).  stdin is /dev/null, stderr goes to a temporary
 * file, read back by harness_reap().
 */
struct spawned {
	int pid;
	int out;   /* the read end of the child's stdout */
	void *err; /* FILE *: the child's stderr */
	char *buf; /* all of stdout read so far, NUL-terminated */
	size_t len, cap;
	size_t pos; /* where the next line starts in buf */
};

void harness_spawn(const char *const argv[], const char *const env[], struct spawned *s);

/*
 * The child's next stdout line, without its newline, in a buffer the caller
 * frees; NULL at end of file or after @timeout_ms without a whole line.
 */
char *harness_read_line(struct spawned *s, int timeout_ms);

/* Wait for the child; all its stdout and stderr and its status go to @r. */
int harness_reap(struct spawned *s, struct run_result *r);

/* A fresh directory under $TMPDIR, removed by harness_rmdir(). */
char *harness_tmpdir(const char *tag);

/* printf into a new string (asserted), for the caller to free. */
char *harness_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void harness_rmdir(char *dir);

/*
 * The JSON that run @r printed, parsed (asserted); its exit status asserted
 * to be @status first, unless @status < 0.  @what names the run in the
 * messages ("extprof attach").
 */
json_t *harness_json(const struct run_result *r, int status, const char *what);

/* `extprof report --format json DIR [extra...]`: the parsed report, or NULL. */
json_t *harness_report(const char *dir, const char *const extra[]);

/* The report's declaration called @name, or NULL. */
json_t *harness_decl(json_t *report, const char *name);
long long harness_int(json_t *obj, const char *key);

/* "checker-truth: SYMBOL COUNT" lines of a stderr: the count for @symbol, or -1. */
long long harness_truth(const char *err, const char *symbol);

/*
 * @fn (when not NULL) for each file of @dir whose name ends in @suffix;
 * how many there are, or -1 when @dir cannot be read.
 */
typedef void (*harness_file_fn)(const char *dir, const char *name, void *arg);
int harness_each_file(const char *dir, const char *suffix, harness_file_fn fn, void *arg);

/* Files in @dir whose name ends in @suffix (-1: no @dir). */
int harness_count_files(const char *dir, const char *suffix);

/* ---- the hooking matrix (issue 3) -------------------------------------- */

/* Like harness_report() but never asserts: NULL with the reason in @why. */
json_t *harness_report_try(const char *dir, const char *const extra[], char *why, size_t whylen);

/* `extprof report --format json` over the dumps in @dir of process @pid only. */
json_t *harness_report_pid(const char *dir, long pid, char *why, size_t whylen);

/* The pids whose dumps are in @dir (from the file names), at most @max; how many. */
int harness_dump_pids(const char *dir, long *pids, int max);

/* "checker-TAG: SYMBOL COUNT" in @err: the count for @symbol, or -1. */
long long harness_tagged(const char *err, const char *tag, const char *symbol);

/* The report row @key (an integer) of @name, or -1 when the row is missing. */
long long harness_decl_int(json_t *report, const char *name, const char *key);

/* The shim's "extprof: hooked ..." line in @err (a static copy), or "". */
const char *harness_hook_line(const char *err);

/* One cell: compiler, -O level, PIE or not, CET or not. */
struct matrix_cell {
	const char *name; /* "gcc-O2-pie-cet", as tests/targets/meson.build names it */
	const char *cc;	  /* "gcc" or "clang" */
	int opt;
	bool pie;
	bool cet;
};

#define MATRIX_NCELLS 24
extern const struct matrix_cell matrix_cells[MATRIX_NCELLS];

/*
 * Whether the tests go through @cell: every cell, or only those that
 * EXTPROF_MATRIX_CELLS names (comma-separated), as the steps variants do to
 * keep their time small.
 */
bool matrix_cell_wanted(const struct matrix_cell *cell);

/* for each cell the tests go through, as @c */
#define MATRIX_FOR_EACH_CELL(c)                                                                    \
	for (const struct matrix_cell *c = matrix_cells; c < matrix_cells + MATRIX_NCELLS; c++)    \
		if (!matrix_cell_wanted(c)) {                                                      \
		} else

/* Path of case @kase's binary for @cell (malloc'd). */
char *matrix_exe(const char *kase, const struct matrix_cell *cell);

/*
 * Run @argv unhooked (@hooks NULL) or under the shim with EXTPROF_HOOKS=@hooks,
 * EXTPROF_DIR=@dir, EXTPROF_COUNTER=tsc and the "NAME=value" strings of @env.
 */
void matrix_run(const char *const argv[], const char *hooks, const char *dir,
		const char *const env[], struct run_result *r);

/*
 * What a test checks in one cell: failures are counted per cell (and each
 * one reported through Criterion with the case and cell in its message),
 * so that a test can end by listing the cells that failed.
 */
struct matrix_tally {
	const char *test;
	int failed[MATRIX_NCELLS];
	int checks;
};

#define MX_EXPECT(tally, cell, cond, ...)                                                          \
	do {                                                                                       \
		(tally)->checks++;                                                                 \
		if (!(cond)) {                                                                     \
			(tally)->failed[(cell)-matrix_cells]++;                                    \
			cr_expect(0, __VA_ARGS__);                                                 \
		}                                                                                  \
	} while (0)

/* Print "matrix TEST: N/24 cells pass; failed: ..." on stderr (of the cells gone through). */
void matrix_summary(const struct matrix_tally *t);

/* Same exit status, signal and stdout as the unhooked run. */
void matrix_expect_same(struct matrix_tally *t, const struct matrix_cell *cell, const char *what,
			const struct run_result *plain, const struct run_result *hooked);

/*
 * Every "checker-TAG: SYMBOL COUNT" line of @err equals the report row's @key
 * for SYMBOL ("checker-truth:" against "evaluations", "checker-abandoned:"
 * against "abandoned", ...).  Returns how many lines were checked.
 */
int matrix_expect_tagged(struct matrix_tally *t, const struct matrix_cell *cell, const char *what,
			 json_t *report, const char *err, const char *tag, const char *key);

/* A fresh dump directory, removed (and freed) by harness_rmdir(). */
char *matrix_tmpdir(const char *kase, const struct matrix_cell *cell);

/*
 * One driver for the cases: what each of them checks of its program in a
 * cell, before the checks that are the test's own.
 */
struct matrix_case {
	const char *kase;	 /* the program, tests/targets/KASE.c built as KASE-CELL */
	const char *const *args; /* after the program's path, NULL-terminated; NULL: none */
	const char *const *env;	 /* "NAME=value" strings for both runs; NULL: none */
	const char *hooks;	 /* EXTPROF_HOOKS of the hooked run */
	int status;		 /* the unhooked run's exit status; -1: not checked */
	int hooked;		 /* the shim says "extprof: hooked N/N"; 0: not checked */
	bool no_report;		 /* the hooked run's dumps are not read */
	int truths;		 /* checker-truth lines against "evaluations": how many; 0: any
				    number; -1: not checked */
	bool abandoned;		 /* checker-abandoned lines against "abandoned" */
};

/* One cell's runs of a case, as the test's own checks see them. */
struct matrix_pass {
	const char *what; /* what the messages call the run: "run", or its mode */
	char *exe, *dir;  /* the program, and the hooked run's dump directory */
	struct run_result plain, hooked;
	json_t *report; /* of the hooked run's dumps; NULL when extprof failed */
};

/*
 * Run case @k in @cell without the shim and with it, into @p, and check
 * what struct matrix_case asks: the same status and stdout, the shim's
 * line, the report, the program's own counts.  matrix_pass_free() after.
 */
void matrix_pass_run(struct matrix_tally *t, const struct matrix_cell *cell,
		     const struct matrix_case *k, const char *what, struct matrix_pass *p);
void matrix_pass_free(struct matrix_pass *p);

/* A test's own checks of one cell's runs. */
typedef void matrix_check_fn(struct matrix_tally *t, const struct matrix_cell *cell,
			     const struct matrix_pass *p, void *arg);

/*
 * Case @k in every cell the tests go through: matrix_pass_run(), then
 * @check (NULL: none) with @arg; ends with matrix_summary() for @test
 * (NULL: the case and its first argument, "longjmp plain").
 */
void matrix_run_cells(const char *test, const struct matrix_case *k, matrix_check_fn *check,
		      void *arg);

#endif
