/* SPDX-License-Identifier: MIT */
/*
 * hooks_hint: an entry that matches nothing, said with what would help:
 * the objects searched, the nearest names, and whether the name is there
 * under another version or in another object.
 *
 *   extprof: hook function:strln@libc.so.6: no function matches in libc.so.6;
 *            nearest: strlen, strnlen
 */
#ifndef EXTPROF_PRELOAD_HOOKS_HINT_H
#define EXTPROF_PRELOAD_HOOKS_HINT_H

#include "elfsyms.h"
#include "hooks_entry.h"

/* Say that @want matches nothing in the @nobjs objects @objs (those it searched). */
void hooks_hint_no_match(const struct hooks_want *want, const struct elf_object *objs, int nobjs);

#endif
