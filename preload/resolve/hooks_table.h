/* SPDX-License-Identifier: MIT */
/* hooks_table: a loaded object's functions, as entries look them up. */
#ifndef EXTPROF_PRELOAD_RESOLVE_HOOKS_TABLE_H
#define EXTPROF_PRELOAD_RESOLVE_HOOKS_TABLE_H

#include <stdbool.h>

#include "elfsyms.h"
#include "functab.h"
#include "hookable.h"
#include "hooks_entry.h"

/* A loaded object's functions, read at the first entry that needs them. */
struct hooks_table {
	struct functab tab;
	bool read;
	int err;
	struct hookable_obj judge; /* the object as the verdict sees it (hookable.h) */
	struct hooks_names names;  /* how entries look names up in it */
};

/*
 * The table of loaded object @index, @object (read from it the first time): NULL
 * when it cannot be read.
 */
struct hooks_table *hooks_table_of(int index, const struct elf_object *object);

/* Forget every table read: the entries are all resolved. */
void hooks_tables_free(void);

#endif
