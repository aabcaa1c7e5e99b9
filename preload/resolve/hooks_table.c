// SPDX-License-Identifier: MIT
/*
 * hooks_table: a loaded object's functions, read at the first entry that
 * needs them and kept until the entries are all resolved: the one table of
 * an object that hooks.c matches entries in and hooks_hint.c searches for
 * the nearest names.
 */
#include <errno.h>
#include <string.h>

#include "core/log.h"
#include "core/state.h"
#include "resolve/hooks_table.h"

static struct hooks_table hooks_tabs[ELFOBJ_MAX];

/* The loaded code of the function at @start of object @arg, when it is code. */
static const uint8_t *hooks_code_at(uint64_t start, uint64_t size, void *arg)
{
	const struct elf_object *o = arg;

	return elfobj_in_text(o, o->base + start, size) ? (const uint8_t *)(o->base + start) : NULL;
}

/* An IFUNC's choice on this CPU: its resolver called as the loader calls it. */
static bool hooks_resolve_ifunc(uint64_t value, uint64_t *impl, void *arg)
{
	const struct elf_object *o = arg;
	uint64_t (*resolver)(void) = (uint64_t(*)(void))(o->base + value);

	*impl = resolver() - o->base;
	return true;
}

struct hooks_table *hooks_table_of(int index, const struct elf_object *o)
{
	struct hooks_table *tab = &hooks_tabs[index];

	if (!tab->read) {
		struct hookable_obj *j = &tab->judge;

		tab->read = true;
		tab->err = functab_read(&tab->tab, o->path);
		/* a limit on memory, not a lack of functions: said, or the hints would mislead */
		if (tab->err == -ENOMEM) {
			char why[160];

			log_once(LOG_ONCE_TABLES,
				 "cannot read the functions of %s: %s; none of them is hooked",
				 o->name, log_strerror_limit(ENOMEM, why, sizeof(why)));
		}
		if (tab->err)
			return NULL;
		j->t = &tab->tab;
		j->name = o->name;
		j->shim = o->is_shim;
		j->counter = xp.counter.kind;
		j->base = o->base;
		j->code = hooks_code_at;
		j->resolve = hooks_resolve_ifunc;
		j->arg = (void *)o;
		hookable_obj_rules(j);
		/* without it (no memory), entries look at every symbol */
		hooks_names_make(&tab->names, &tab->tab);
	}
	return tab->err ? NULL : tab;
}

void hooks_tables_free(void)
{
	for (int i = 0; i < ELFOBJ_MAX; i++) {
		hooks_names_free(&hooks_tabs[i].names);
		if (hooks_tabs[i].read)
			functab_free(&hooks_tabs[i].tab);
		memset(&hooks_tabs[i], 0, sizeof(hooks_tabs[i]));
	}
}
