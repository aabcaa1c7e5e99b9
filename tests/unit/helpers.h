/* SPDX-License-Identifier: MIT */
/*
 * helpers: real dump files made with the shim's own writer (preload/store/dump.c),
 * files read and written whole, and the built extprof binary run with its
 * output captured.
 */
#ifndef XT_HELPERS_H
#define XT_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/dump.h" /* preload/store/dump.h: the writer */

/* A process's metadata: counter "var:steps" unless @counter says otherwise. */
void xt_meta(struct dump_meta *m, const char *counter, uint64_t calibration, uint64_t pid,
	     uint64_t process_id);

/* A fresh private directory under $TMPDIR or /tmp; free() the result. */
char *xt_tmpdir(void);

/*
 * The test's own directory: a suite whose .init and .fini are xt_dir_init
 * and xt_dir_fini gives each test a fresh xt_dir, removed after it.
 */
extern char *xt_dir;
void xt_dir_init(void);
void xt_dir_fini(void);

/* "@dir/@name", malloc'd. */
char *xt_path(const char *dir, const char *name);

/* dump_create, asserting success. */
void xt_create(struct dump_map *m, const char *path, const struct dump_meta *meta,
	       const struct dump_decl_info *decls, uint32_t n, uint32_t worker);
/* @times evaluations of declaration @decl, each costing @delta. */
void xt_record(struct dump_map *m, uint32_t decl, uint64_t delta, uint64_t times);
/* Finish a dump: compact with COMPLETE (@complete) or leave it live; unmap it. */
void xt_finish(struct dump_map *m, bool complete);

/* One compact, complete dump of @n declarations with some evaluations. */
void xt_sample_dump(const char *path, uint64_t pid, uint32_t n);

/*
 * Hostile files: a good dump kept in memory, copied and damaged.  The good
 * one is written at @path: 2 declarations, quorum_agrees (4 evaluations of
 * @delta) and can_vote (2 of @delta + 4900), with @slots caller slots each
 * that @chains fills; compacted, it is read back (*@size bytes, malloc'd).
 */
unsigned char *xt_hostile_good(const char *path, uint32_t slots, uint64_t delta,
			       void (*chains)(struct dump_map *m), size_t *size);
/* A malloc'd copy of @size bytes at @b, to damage. */
unsigned char *xt_memdup(const void *b, size_t size);
/* The header of dump bytes @b. */
struct extprof_dump_header *xt_hdr(unsigned char *b);
/* The section of @type in dump bytes @b (asserted to be there). */
struct extprof_dump_section *xt_section(unsigned char *b, uint32_t type);

/* A whole file into memory (malloc'd), and back. */
void *xt_slurp(const char *path, size_t *size);
void xt_spit(const char *path, const void *buf, size_t size);

/*
 * Run $EXTPROF_BIN with @argv (argv[0] is ignored and replaced), @env
 * entries ("NAME=value") added; capture stdout and stderr (malloc'd,
 * NUL-terminated).  Returns the wait status.
 */
int xt_run(const char *const *argv, const char *const *env, char **out, char **err);
/* The same with @in as its stdin (xt_run: /dev/null). */
int xt_run_stdin(const char *const *argv, const char *const *env, int in, char **out, char **err);

/* "EXTPROF_SHIM=" the stand-in shim (EXTPROF_FAKE_SHIM, asserted), malloc'd. */
char *xt_fake_shim_env(void);
/*
 * `extprof run -d @out_dir [@extra...] -- /bin/sh -c @script` with @env
 * entries added (xt_fake_shim_env's, for one): xt_run's wait status.
 */
int xt_run_sh(const char *out_dir, const char *script, const char *const *extra,
	      const char *const *env, char **out, char **err);

/* Remove a directory tree made by a test. */
void xt_rmtree(const char *dir);

#endif
