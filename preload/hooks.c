// SPDX-License-Identifier: MIT
/*
 * hooks: turn entries into declarations.  Each entry's pattern is looked up
 * in the symbol tables of the loaded objects (the executable first, then the
 * others in load order; with @OBJECT, only the objects whose basename
 * matches), each function found is patched, and the outcome is summed up in
 * one line: "hooked 6/7; refused 1: tiny4 is 4 bytes".
 */
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "demangle.h"
#include "elfsyms.h"
#include "hooks.h"
#include "log.h"
#include "shim.h"

#define HOOKS_REFUSALS_SHOWN 4
#define HOOKS_LATE_DECLS     32

struct hooks_tally {
	unsigned tried;
	unsigned hooked;
	unsigned refused;
	char refusals[1024];
};

static struct elf_object hooks_objs[ELFOBJ_MAX];
static int hooks_nobjs;

struct hooks_match {
	const struct spec_entry *e;
	const struct elf_object *o;
	struct hooks_tally *tally;
	bool window;
	unsigned found;
	bool dry; /* only look: stop at the first match (hooks_any) */
};

static void hooks_refuse(struct hooks_tally *t, const char *symbol, const char *why)
{
	size_t used = strlen(t->refusals);

	t->refused++;
	if (t->refused > HOOKS_REFUSALS_SHOWN)
		return;
	snprintf(t->refusals + used, sizeof(t->refusals) - used, "%s%s %s",
		 t->refused > 1 ? "; " : "", symbol, why);
}

static int hooks_find_address(uint64_t addr)
{
	for (uint32_t i = 0; i < xp.ndecls; i++) {
		if (xp.decls[i].address == addr)
			return (int)i;
	}
	return -1;
}

/* A declaration of the same key: an object dlclose'd and loaded again. */
static int hooks_find_key(const char *kind, const char *symbol, const char *object)
{
	for (uint32_t i = 0; i < xp.ndecls; i++) {
		if (!strcmp(xp.decls[i].kind, kind) && !strcmp(xp.decls[i].symbol, symbol) &&
		    !strcmp(xp.decls[i].object, object))
			return (int)i;
	}
	return -1;
}

/* Register and patch one function. */
static void hooks_add(struct hooks_match *m, const char *symbol, uint64_t addr, uint64_t size)
{
	struct hooks_tally *t = m->tally;
	const char *kind = m->window ? "window" : m->e->kind;
	struct xp_decl *d, fresh;
	struct arch_hook h;
	uint32_t idx;
	char why[256];
	int dup;

	t->tried++;
	dup = hooks_find_address(addr);
	if (dup >= 0) {
		/* an alias, or a second entry naming the same function */
		if (strcmp(xp.decls[dup].symbol, symbol) ||
		    strcmp(xp.decls[dup].kind, m->e->kind)) {
			snprintf(why, sizeof(why), "is already hooked as %s:%s", xp.decls[dup].kind,
				 xp.decls[dup].symbol);
			hooks_refuse(t, symbol, why);
		} else {
			t->tried--;
		}
		return;
	}
	if (!elfobj_in_text(m->o, addr, size)) {
		hooks_refuse(t, symbol, "is not in an executable segment");
		return;
	}
	dup = hooks_find_key(kind, symbol, m->o->name);
	idx = dup >= 0 ? (uint32_t)dup : xp.ndecls;
	if (idx == XP_MAX_DECLS) {
		hooks_refuse(t, symbol, "is past the limit of declarations");
		return;
	}
	if (dup < 0 && !worker_room_for_decl()) {
		hooks_refuse(t, symbol, "finds no room left in the dumps already made");
		return;
	}
	d = &fresh;
	memset(d, 0, sizeof(*d));
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	snprintf(d->symbol, sizeof(d->symbol), "%s", symbol);
	snprintf(d->object, sizeof(d->object), "%s", m->o->name);
	d->address = addr;
	d->offset = addr - m->o->base;
	d->size = size;
	d->window = m->window;
	if (arch_prepare_hook(addr, size, idx, &h, why, sizeof(why))) {
		hooks_refuse(t, symbol, why);
		return;
	}
	d->stub = h.stub;
	xp.decls[idx] = fresh;
	if (dup < 0) {
		/* in every dump before any thread can reach it */
		worker_add_decl(idx);
		__atomic_store_n(&xp.ndecls, xp.ndecls + 1, __ATOMIC_RELEASE);
	}
	if (m->window)
		xp.window_decl = idx;
	if (arch_commit_hook(&h, why, sizeof(why))) {
		/* listed, never called */
		hooks_refuse(t, symbol, why);
		return;
	}
	t->hooked++;
}

static int hooks_visit_symbol(const struct elf_sym *s, void *arg)
{
	struct hooks_match *m = arg;

	char qualified[256];

	if (!s->defined || !s->size || s->type != STT_FUNC)
		return 0;
	/* a .cold part is a branch target of its function, not a function */
	if (strstr(s->name, ".cold"))
		return 0;
	/* C++: "ns::fn" matches too; the symbol stays mangled, and unique */
	if (fnmatch(m->e->pattern, s->name, 0) &&
	    (!demangle_qualified(s->name, qualified, sizeof(qualified)) ||
	     fnmatch(m->e->pattern, qualified, 0)))
		return 0;
	m->found++;
	if (m->dry)
		return 1;
	hooks_add(m, s->name, m->o->base + s->value, s->size);
	return 0;
}

struct hooks_containing {
	uint64_t value;
	const char *name;
	uint64_t size;
	char buf[256];
};

static int hooks_visit_containing(const struct elf_sym *s, void *arg)
{
	struct hooks_containing *c = arg;

	if (s->defined && s->type == STT_FUNC && s->value == c->value && s->size) {
		snprintf(c->buf, sizeof(c->buf), "%s", s->name);
		c->name = c->buf;
		c->size = s->size;
		return 1;
	}
	return 0;
}

/* 0xOFFSET from the object's load base: a stripped object's function. */
static void hooks_add_offset(struct hooks_match *m)
{
	struct hooks_containing c = {0, NULL, 0, ""};
	char *end, name[256];
	uint64_t addr;

	c.value = strtoull(m->e->pattern, &end, 16);
	if (*end) {
		log_msg("hook %s:%s: '%s' is not a hexadecimal offset", m->e->kind, m->e->pattern,
			m->e->pattern);
		return;
	}
	addr = m->o->base + c.value;
	elfsym_each(m->o->path, hooks_visit_containing, &c);
	if (!c.name) {
		/* No symbol: scan what the segment allows, up to 4 KiB. */
		snprintf(name, sizeof(name), "%s", m->e->pattern);
		c.name = name;
		c.size = addr < m->o->text_hi ? m->o->text_hi - addr : 0;
		if (c.size > 4096)
			c.size = 4096;
	}
	m->found++;
	hooks_add(m, c.name, addr, c.size);
}

static bool hooks_object_matches(const struct spec_entry *e, const struct elf_object *o)
{
	if (e->object[0])
		return !fnmatch(e->object, o->name, 0);
	return !o->is_shim;
}

static void hooks_say_no_match(const struct spec_entry *e)
{
	log_msg("hook %s:%s%s%s: no function matches", e->kind, e->pattern, e->object[0] ? "@" : "",
		e->object);
}

static void hooks_say_no_window(const char *window)
{
	log_msg("EXTPROF_WINDOW=%s: not hooked; the window is the whole run", window);
}

/* What @e names: a function of a loaded object, an object not loaded yet, or nothing. */
static enum hooks_found hooks_entry_any(const struct spec_entry *e)
{
	bool any_object = false;

	for (int i = 0; i < hooks_nobjs; i++) {
		struct hooks_match m = {e, &hooks_objs[i], NULL, false, 0, true};

		if (!hooks_object_matches(e, &hooks_objs[i]))
			continue;
		any_object = true;
		if (!strncmp(e->pattern, "0x", 2))
			return HOOKS_NOW;
		elfsym_each(hooks_objs[i].path, hooks_visit_symbol, &m);
		if (m.found)
			return HOOKS_NOW;
	}
	return e->object[0] && !any_object ? HOOKS_LATER : HOOKS_NONE;
}

/* Whether some declaration already answers to @e. */
static bool hooks_find_any(const struct spec_entry *e)
{
	for (uint32_t i = 0; i < xp.ndecls; i++) {
		if (!fnmatch(e->pattern, xp.decls[i].symbol, 0) &&
		    (!e->object[0] || !fnmatch(e->object, xp.decls[i].object, 0)))
			return true;
	}
	return false;
}

/* Objects already looked at, so that a dlopen looks only at new ones. */
struct hooks_seen {
	uint64_t base;
	char name[256];
};

static struct hooks_seen hooks_seen[ELFOBJ_MAX];
static int hooks_nseen;
static const struct spec_list *hooks_list;
static struct spec_entry hooks_window;

static bool hooks_is_new(const struct elf_object *o)
{
	for (int i = 0; i < hooks_nseen; i++) {
		if (hooks_seen[i].base == o->base && !strcmp(hooks_seen[i].name, o->name))
			return false;
	}
	return true;
}

static void hooks_remember_objects(void)
{
	hooks_nseen = hooks_nobjs;
	for (int i = 0; i < hooks_nobjs; i++) {
		hooks_seen[i].base = hooks_objs[i].base;
		snprintf(hooks_seen[i].name, sizeof(hooks_seen[i].name), "%s", hooks_objs[i].name);
	}
}

/*
 * One entry: every object in order; without @OBJECT, the first that has it.
 * @late: only objects loaded since the last look, and only for entries that
 * name their object (the contract: "dlopen'ed later when named with @OBJECT").
 */
static void hooks_resolve(const struct spec_entry *e, struct hooks_tally *tally, bool window,
			  bool late)
{
	bool any_object = false;

	if (late && !e->object[0])
		return;
	for (int i = 0; i < hooks_nobjs; i++) {
		struct hooks_match m = {e, &hooks_objs[i], tally, window, 0};

		if (!hooks_object_matches(e, &hooks_objs[i]))
			continue;
		if (late && !hooks_is_new(&hooks_objs[i]))
			continue;
		any_object = true;
		if (!strncmp(e->pattern, "0x", 2))
			hooks_add_offset(&m);
		else
			elfsym_each(hooks_objs[i].path, hooks_visit_symbol, &m);
		if (m.found && (!e->object[0] || !strncmp(e->pattern, "0x", 2)))
			return;
	}
	if (late)
		return;
	if (!any_object)
		log_msg("hook %s:%s@%s: no loaded object is called %s yet; hooked if it is "
			"dlopen'ed",
			e->kind, e->pattern, e->object, e->object);
	else if (!hooks_find_any(e))
		hooks_say_no_match(e);
}

static void hooks_say_tally(const struct hooks_tally *t, const char *where)
{
	if (!t->tried)
		return;
	if (t->refused)
		log_msg("hooked %u/%u%s; refused %u: %s%s", t->hooked, t->tried, where, t->refused,
			t->refusals, t->refused > HOOKS_REFUSALS_SHOWN ? "; ..." : "");
	else
		log_msg("hooked %u/%u%s", t->hooked, t->tried, where);
}

/* What hooks_any() found nothing for, for hooks_say_unmatched(). */
static const struct spec_list *hooks_unmatched;
static const char *hooks_unmatched_window;

void hooks_say_unmatched(void)
{
	if (hooks_unmatched_window && *hooks_unmatched_window)
		hooks_say_no_window(hooks_unmatched_window);
	for (int i = 0; hooks_unmatched && i < hooks_unmatched->n; i++)
		hooks_say_no_match(&hooks_unmatched->entries[i]);
}

/* EXTPROF_WINDOW as an entry, in hooks_window. */
static void hooks_set_window(const char *window)
{
	char *at;

	strcpy(hooks_window.kind, "window");
	snprintf(hooks_window.pattern, sizeof(hooks_window.pattern), "%s", window);
	at = strchr(hooks_window.pattern, '@');
	if (at) {
		*at = '\0';
		snprintf(hooks_window.object, sizeof(hooks_window.object), "%s", at + 1);
	}
}

enum hooks_found hooks_any(const struct spec_list *list, const char *window)
{
	enum hooks_found found = HOOKS_NONE;

	/* nothing found: every entry found objects, and no function in them */
	hooks_unmatched = list;
	hooks_unmatched_window = window;
	hooks_nobjs = elfobj_list(hooks_objs, ELFOBJ_MAX);
	if (window && *window) {
		hooks_set_window(window);
		found = hooks_entry_any(&hooks_window);
	}
	for (int i = 0; i < list->n && found != HOOKS_NOW; i++) {
		enum hooks_found f = hooks_entry_any(&list->entries[i]);

		if (f > found)
			found = f;
	}
	return found;
}

/*
 * Hook every function the entries name, and the window function.  Returns
 * the number hooked.
 */
int hooks_install(const struct spec_list *list, const char *window)
{
	struct hooks_tally tally;
	bool named_objects = false;

	memset(&tally, 0, sizeof(tally));
	hooks_list = list;
	hooks_nobjs = elfobj_list(hooks_objs, ELFOBJ_MAX);
	xp.window_decl = UINT32_MAX;
	if (window && *window) {
		hooks_set_window(window);
		hooks_resolve(&hooks_window, &tally, true, false);
		if (xp.window_decl == UINT32_MAX)
			hooks_say_no_window(window);
	}
	for (int i = 0; i < list->n; i++) {
		hooks_resolve(&list->entries[i], &tally, false, false);
		named_objects |= list->entries[i].object[0] != '\0';
	}
	/* room in every dump for what a later dlopen may add */
	xp.meta.late_decls = named_objects ? HOOKS_LATE_DECLS : 0;
	hooks_remember_objects();
	hooks_say_tally(&tally, "");
	return (int)tally.hooked;
}

/*
 * After a dlopen: hook what the entries name in the objects that appeared.
 * Runs with the declarations lock held, in the thread that called dlopen.
 */
void hooks_rescan(void)
{
	struct hooks_tally tally;
	char where[300] = " in dlopen'ed objects";

	memset(&tally, 0, sizeof(tally));
	hooks_nobjs = elfobj_list(hooks_objs, ELFOBJ_MAX);
	for (int i = 0; i < hooks_nobjs; i++) {
		if (!hooks_is_new(&hooks_objs[i]))
			continue;
		snprintf(where, sizeof(where), " in %s", hooks_objs[i].name);
		/* an object loaded again: its old code is gone */
		for (uint32_t d = 0; d < xp.ndecls; d++) {
			if (!strcmp(xp.decls[d].object, hooks_objs[i].name))
				xp.decls[d].address = 0;
		}
	}
	if (hooks_window.pattern[0] && xp.window_decl == UINT32_MAX)
		hooks_resolve(&hooks_window, &tally, true, true);
	for (int i = 0; hooks_list && i < hooks_list->n; i++)
		hooks_resolve(&hooks_list->entries[i], &tally, false, true);
	hooks_remember_objects();
	arch_seal_code();
	hooks_say_tally(&tally, where);
}
