/* SPDX-License-Identifier: MIT */
/*
 * hooks_tally: what a round of hooking did, said in one line at the end:
 *
 *   extprof: hooked 6/7; refused 1: tiny4 is 4 bytes
 *   extprof: hooked 9,940/18,528; refused 8,588: 8,100 a jump at +0xN lands inside
 *            the patched bytes (e.g. _ZN4llvm3fooEv); 488 is N bytes (e.g. ...)
 *
 * up to four refusals word for word, more summed up by reason; and the
 * IFUNCs that were resolved, in a line of their own before it.
 */
#ifndef EXTPROF_PRELOAD_HOOKS_TALLY_H
#define EXTPROF_PRELOAD_HOOKS_TALLY_H

#include <stddef.h>

#define HOOKS_REFUSALS_SHOWN 4
#define HOOKS_GROUPS	     24

struct hooks_group {
	char key[128];	  /* the reason, its numbers written N */
	char example[96]; /* the first symbol refused so */
	unsigned count;
};

struct hooks_tally {
	unsigned tried;
	unsigned hooked;
	unsigned refused;
	char refusals[1024]; /* the first HOOKS_REFUSALS_SHOWN, word for word */
	struct hooks_group groups[HOOKS_GROUPS];
	unsigned ngroups;
	unsigned ifuncs;
	char ifunc_list[640]; /* "strlen -> __strlen_avx2, ..." */
};

/* @symbol is refused because it @why (one phrase). */
void hooks_tally_refuse(struct hooks_tally *t, const char *symbol, const char *why);
/* The IFUNC @symbol was resolved to @impl on this CPU. */
void hooks_tally_ifunc(struct hooks_tally *t, const char *symbol, const char *impl);
/* Say it: "hooked H/T...", @where after the counts (" in libfoo.so"). */
void hooks_tally_say(const struct hooks_tally *t, const char *where);

/* @n with thousands separators, into @buf. */
const char *hooks_num(unsigned long long n, char *buf, size_t len);

#endif
