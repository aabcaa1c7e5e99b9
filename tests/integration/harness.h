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
	int status;   /* exit status, or 128 + signal */
	int signal;   /* the signal that ended it, 0 if it exited */
	char *out;    /* stdout, NUL-terminated */
	char *err;    /* stderr, NUL-terminated */
};

/* Paths the build passes in the environment (meson test(..., env: ...)). */
const char *harness_path(const char *var);

/*
 * Run @argv with @env ("NAME=value" strings, NULL-terminated, added to this
 * process's environment; "NAME=" with nothing after removes NAME).
 */
int harness_run(const char *const argv[], const char *const env[], struct run_result *r);
void harness_free(struct run_result *r);

/* A fresh directory under $TMPDIR, removed by harness_rmdir(). */
char *harness_tmpdir(const char *tag);
void harness_rmdir(char *dir);

/* `extprof report --format json DIR [extra...]`: the parsed report, or NULL. */
json_t *harness_report(const char *dir, const char *const extra[]);

/* The report's declaration called @name, or NULL. */
json_t *harness_decl(json_t *report, const char *name);
long long harness_int(json_t *obj, const char *key);

/* "checker-truth: SYMBOL COUNT" lines of a stderr: the count for @symbol, or -1. */
long long harness_truth(const char *err, const char *symbol);

/* Files in @dir whose name ends in @suffix. */
int harness_count_files(const char *dir, const char *suffix);

#endif
