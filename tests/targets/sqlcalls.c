// SPDX-License-Identifier: MIT
/*
 * sqlcalls: SQLite through Debian's libsqlite3: a statement stepped row by
 * row (sqlite3_step), each row calling a function of the program's own
 * (sq_twice, registered as twice() in SQL), for the steps counter's nesting
 * test (tests/integration/test_translate.c): a caller hooked alone or with
 * its callee hooked reads the same.
 *
 *   sqlcalls [-n N]    N rounds of the first 100 rows of SELECT twice(x) FROM t
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
	if (sqlite3_open(":memory:", &db) ||
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
