/* SPDX-License-Identifier: MIT */
/* spec: the hook entries of EXTPROF_HOOKS and EXTPROF_SPEC. */
#ifndef EXTPROF_PRELOAD_SPEC_H
#define EXTPROF_PRELOAD_SPEC_H

#include <stdbool.h>

#include "hooks_entry.h"

/*
 * Entries a process takes (a list of names beyond that is better said by a
 * glob), and the bytes of EXTPROF_SPEC read: both held in memory allocated
 * as they come, at start-up.
 */
#define SPEC_MAX_ENTRIES 65536
#define SPEC_FILE_MAX	 (16u << 20)

struct spec_list {
	int n;
	int cap;   /* entries allocated */
	bool full; /* more entries were given than fit: said once */
	struct spec_entry *entries;
};

/* Add every entry of @text to @list; @origin and @line name where they are. */
int spec_parse_text(struct spec_list *list, const char *text, const char *origin, int line);
/* Add every entry of the file at @path (EXTPROF_SPEC) to @list. */
int spec_parse_file(struct spec_list *list, const char *path);

/* A PATTERN[@OBJECT] outside an entry (EXTPROF_WINDOW): false, said, if its 0xOFFSET is bad. */
bool spec_check_pattern(const char *pattern, const char *where);

#endif
