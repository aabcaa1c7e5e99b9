// SPDX-License-Identifier: MIT
/*
 * callers: who called a declaration (EXTPROF_CALLERS=N).  The nearest
 * caller is the return address the stub already holds; deeper ones come
 * from libunwind, started from the caller's own registers (its return
 * address, its stack pointer, and the callee-saved registers the exit thunk
 * saved), with the hooked frames above given their real return addresses
 * for the walk.  Slow, and only when asked for.  At a clean exit the
 * addresses are turned into "function+0xoff" names for the dump, from each
 * object's function table (functab.c, what hooking reads too): a function
 * without a symbol by its start from .eh_frame, "0x1a2b+0x1d@obj", as
 * hooking names it ("0x1a2b@obj").
 */
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "functab.h"
#include "core/state.h"
#include "count/activation.h"
#include "count/callers.h"

uint32_t callers_walk(const uint64_t *regs, uint64_t ret, uint64_t slot, uint64_t *pcs,
		      uint32_t depth)
{
	unw_cursor_t cursor;
	uint32_t n = 1;

	pcs[0] = ret;
	activation_restore_frames();
	if (!arch_unwind_start(&cursor, regs, ret, slot)) {
		while (n < depth && unw_step(&cursor) > 0) {
			unw_word_t ip;

			if (unw_get_reg(&cursor, UNW_REG_IP, &ip) || !ip)
				break;
			pcs[n++] = ip;
		}
	}
	activation_rehook_frames(0);
	return n;
}

/* The functions of one object, read at the first address found in it. */
struct callers_table {
	char path[4096];
	struct functab tab; /* empty when the object cannot be read */
};

#define CALLERS_TABLES 16
static struct callers_table callers_tables[CALLERS_TABLES];

static const struct functab *callers_table_for(const char *path)
{
	struct callers_table *t;
	int i;

	for (i = 0; i < CALLERS_TABLES && callers_tables[i].path[0]; i++) {
		if (!strcmp(callers_tables[i].path, path))
			return &callers_tables[i].tab;
	}
	if (i == CALLERS_TABLES)
		return NULL;
	t = &callers_tables[i];
	snprintf(t->path, sizeof(t->path), "%s", path);
	functab_read(&t->tab, path);
	return &t->tab;
}

/*
 * "function+0xoff@object" for @pc, and its offset from the object's base.
 * At exit only: it reads symbol tables.  Returns 0, or -1 if no object
 * holds @pc.
 */
int callers_resolve(uint64_t pc, char *buf, size_t len, uint64_t *offset)
{
	const struct functab *t;
	const struct functab_sym *fn = NULL;
	const struct functab_fde *fde;
	struct link_map *map = NULL;
	const char *path, *obj;
	Dl_info info;

	if (!dladdr1((void *)pc, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
		return -1;
	/* the main program has no name in its link map */
	path = map->l_name && map->l_name[0] ? map->l_name : xp.meta.exe_path;
	obj = strrchr(path, '/');
	obj = obj ? obj + 1 : path;
	/* from the load bias, as symbol values and declaration addresses are */
	*offset = pc - (uint64_t)map->l_addr;
	t = callers_table_for(path);
	if (t)
		fn = functab_sym_holding(t, *offset);
	if (fn)
		snprintf(buf, len, "%s+0x%llx@%s", fn->name,
			 (unsigned long long)(*offset - fn->value), obj);
	else if (info.dli_sname && info.dli_saddr)
		snprintf(buf, len, "%s+0x%llx@%s", info.dli_sname,
			 (unsigned long long)(pc - (uint64_t)info.dli_saddr), obj);
	else if (t && (fde = functab_fde_holding(t, *offset)))
		/* a function without a symbol is named by its start, as hooking names it */
		snprintf(buf, len, "0x%llx+0x%llx@%s", (unsigned long long)fde->start,
			 (unsigned long long)(*offset - fde->start), obj);
	else
		snprintf(buf, len, "0x%llx@%s", (unsigned long long)*offset, obj);
	return 0;
}
