/* SPDX-License-Identifier: MIT */
/*
 * hooks_tally: what a round of hooking did, said in one line at the end:
 *
 *   extprof: hooked 6/7; refused 1: tiny4 is 4 bytes, too short for the 5-byte
 *            jump to its stub
 *   extprof: hooked 17,318/17,923; refused 605: 605 are too short for the 5-byte
 *            jump to their stub (e.g. _ZN4llvm10AsmPrinter21PrintAsmMemoryOperand...)
 *
 * up to four refusals word for word, more summed up by reason, each group
 * in words of its own; and the IFUNCs that were resolved, in a line of
 * their own before it.  The shim says it; `extprof symbols OBJECT GLOB`
 * says the same of its dry run.
 */
#ifndef EXTPROF_PRELOAD_HOOKS_TALLY_H
#define EXTPROF_PRELOAD_HOOKS_TALLY_H

#include <stddef.h>

#define HOOKS_REFUSALS_SHOWN 4
#define HOOKS_GROUPS	     24

struct hooks_group {
	char key[160];	  /* the reason as a group says it */
	char example[96]; /* the first symbol refused so */
	char why[200];	  /* and its reason, said alone when it is the only one */
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

/* @symbol is refused because it @why (one phrase): counted in @tally. */
void hooks_tally_refuse(struct hooks_tally *tally, const char *symbol, const char *why);
/* The IFUNC @symbol was resolved to @impl on this CPU: listed in @tally. */
void hooks_tally_ifunc(struct hooks_tally *tally, const char *symbol, const char *impl);
/*
 * What @tally says: the resolved IFUNCs into @ifuncs (@ifuncs_len bytes; ""
 * when none), "hooked H/T..." into @line (@line_len bytes; "" when nothing
 * was tried), @where after the counts (" in libfoo.so").
 */
void hooks_tally_lines(const struct hooks_tally *tally, const char *where, char *ifuncs,
		       size_t ifuncs_len, char *line, size_t line_len);

/* @number with thousands separators, into @buf (@len bytes). */
const char *hooks_num(unsigned long long number, char *buf, size_t len);

#endif
