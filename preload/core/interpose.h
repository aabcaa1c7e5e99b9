/* SPDX-License-Identifier: MIT */
/*
 * interpose: the real functions behind the shim's wrappers (longjmp, exec,
 * the unwinder, dlopen, signal handling), found with dlsym(RTLD_NEXT).
 */
#ifndef EXTPROF_PRELOAD_INTERPOSE_H
#define EXTPROF_PRELOAD_INTERPOSE_H

/* One file's real functions: @n names, and where each is kept once found. */
struct interpose_table {
	const char *const *names;
	void **reals;
	int n;
};

/* The real function @index of @table: looked up at its first use, kept for every later one. */
void *interpose_real(const struct interpose_table *table, int index);

/*
 * Look up every function of @table now, at start-up: a wrapper may run in a
 * signal handler, and dlsym takes the loader's lock, which the code the
 * handler interrupted may hold.
 */
void interpose_resolve(const struct interpose_table *table);

#endif
