/* SPDX-License-Identifier: MIT */
/*
 * dump_space: what a dump file holds on disk (st_blocks) against what it
 * says it holds (its header and section table), for the tests that check
 * a dump's space follows the declarations called, not those hooked.
 */
#ifndef EXTPROF_TESTS_DUMP_SPACE_H
#define EXTPROF_TESTS_DUMP_SPACE_H

#include <stdbool.h>

struct dump_space {
	unsigned long long alloc;    /* st_blocks x 512: the space it holds */
	unsigned long long size;     /* st_size */
	unsigned long long ndecls;   /* declarations */
	unsigned long long rows_off; /* live: where HIST_ROWS starts */
	unsigned long long rows;     /* live: rows taken, row 0 included */
	unsigned long long sparse;   /* compact: histogram entries */
	bool compact;
};

/* @path's space, or -1 when it is no dump (yet: being created, or gone). */
int dump_space_of(const char *path, struct dump_space *s);

/*
 * The most a live dump of s->rows rows may hold: its tables, its rows, and
 * the room the shim grows it by (as many rows again, up to 32, and pages).
 */
unsigned long long dump_space_bound(const struct dump_space *s);

/*
 * @fn for every dump file of @dir (by its name), with its space, or NULL
 * when it is no dump now; returns how many.
 */
typedef void (*dump_space_fn)(const char *path, const struct dump_space *s, void *arg);
int dump_space_each(const char *dir, dump_space_fn fn, void *arg);

/*
 * Until child @pid exits (it is left to be reaped), look at the live dumps
 * in @dir every few milliseconds; the one that held the most space into
 * @max.  Returns how many looks saw a live dump.
 */
int dump_space_watch(int pid, const char *dir, struct dump_space *max);

#endif
