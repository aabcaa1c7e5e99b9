// SPDX-License-Identifier: MIT
/*
 * sqlcalls: SQLite through Debian's libsqlite3: a statement stepped row by
 * row (sqlite3_step), each row calling a function of the program's own
 * (sq_twice, registered as twice() in SQL), for the steps counter's nesting
 * test (tests/integration/test_translate.c): a caller hooked alone or with
 * its callee hooked reads the same.  SQLite's memory comes from a bump
 * allocator of the program's own (SQLITE_CONFIG_MALLOC), not from libc's
 * malloc, whose instructions depend on the heap the process made before:
 * the shim's start-up allocates there (libelf, the symbol tables of each
 * object it hooks in), differently as the hooks name other objects.
 *
 *   sqlcalls [-n N]    N rounds of the first 100 rows of SELECT twice(x) FROM t
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 64 MiB of address space (untouched pages are never mapped in), never given back. */
static char sq_heap[64 << 20] __attribute__((aligned(16)));
static size_t sq_used;

static void *sq_malloc(int n)
{
	size_t need = 16 + (((size_t)n + 15) & ~(size_t)15);
	char *p;

	if (n <= 0 || sq_used + need > sizeof(sq_heap))
		return NULL;
	p = sq_heap + sq_used;
	sq_used += need;
	*(size_t *)p = (size_t)n;
	return p + 16;
}

static void sq_free(void *p)
{
	(void)p;
}

static int sq_size(void *p)
{
	return p ? (int)*(size_t *)((char *)p - 16) : 0;
}

static void *sq_realloc(void *p, int n)
{
	void *q = sq_malloc(n);

	if (q && p)
		memcpy(q, p, (size_t)(sq_size(p) < n ? sq_size(p) : n));
	return q;
}

static int sq_roundup(int n)
{
	return (n + 15) & ~15;
}

static int sq_init(void *unused)
{
	(void)unused;
	return SQLITE_OK;
}

static void sq_shutdown(void *unused)
{
	(void)unused;
}

static const sqlite3_mem_methods sq_mem = {sq_malloc,  sq_free, sq_realloc,  sq_size,
					   sq_roundup, sq_init, sq_shutdown, NULL};

__attribute__((noinline)) void sq_twice(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	sqlite3_result_int64(ctx, 2 * sqlite3_value_int64(argv[0]));
}

int main(int argc, char **argv)
{
	long n = 3, sum = 0;
	sqlite3_stmt *st;
	sqlite3 *db;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt == 'n')
			n = atol(optarg);
		else
			return 2;
	}
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &sq_mem) || sqlite3_open(":memory:", &db) ||
	    sqlite3_exec(db,
			 "CREATE TABLE t(x INTEGER);"
			 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
			 "WHERE x < 200) INSERT INTO t SELECT x FROM c;",
			 NULL, NULL, NULL) ||
	    sqlite3_create_function(db, "twice", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				    sq_twice, NULL, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT twice(x) FROM t", -1, &st, NULL))
		return 1;
	for (long i = 0; i < n; i++) {
		for (int row = 0; row < 100 && sqlite3_step(st) == SQLITE_ROW; row++)
			sum += sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	printf("sqlite: %ld rounds, %ld\n", n, sum);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}
