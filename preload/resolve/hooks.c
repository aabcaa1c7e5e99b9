// SPDX-License-Identifier: MIT
/*
 * hooks: turn entries into declarations.  Each entry's pattern is looked up
 * in the function tables of the loaded objects (the executable first, then
 * the others in load order; with @OBJECT, only the objects whose basename
 * matches), each function found is patched, and the outcome is summed up in
 * one line: "hooked 6/7; refused 1: tiny4 is 4 bytes".
 *
 * What a name stands for is what the dynamic linker would bind: the
 * default version of a versioned symbol, and for an IFUNC the
 * implementation its resolver picks on this CPU (the resolver is called,
 * as the loader calls it).  Some functions are never hooked, whatever
 * their bytes say (hookable.c); an 0xOFFSET must be where a function
 * starts (a symbol's value, or an .eh_frame FDE's start) unless the entry
 * says it is meant (0xOFFSET!).
 */
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "elfsyms.h"
#include "functab.h"
#include "hookable.h"
#include "resolve/hooks.h"
#include "hooks_entry.h"
#include "resolve/hooks_hint.h"
#include "resolve/hooks_table.h"
#include "hooks_tally.h"
#include "core/log.h"
#include "core/state.h"
#include "resolve/unwind_stub.h"
#include "store/worker.h"

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

#define HOOKS_LATE_DECLS  32
#define HOOKS_OFFSET_SCAN 4096 /* bytes scanned after a forced 0xOFFSET without an FDE */

static struct elf_object hooks_objs[ELFOBJ_MAX];
static int hooks_nobjs;

struct hooks_match {
	const struct hooks_want *w;
	const struct elf_object *o;
	struct hooks_table *tab;
	struct hooks_tally *tally;
	bool window;
	bool late;
	unsigned found;
	hooks_keep_fn keep; /* NULL: patches written here */
};

/*
 * Declarations by address and by key, so that tens of thousands of them
 * are registered in linear time: open addressing, the slot holding the
 * declaration's index + 1, the tables at most half full (made twice as
 * large, from the declarations, before they would be more).  An address
 * that changed (its object was loaded again) is left where it was and
 * skipped: a lookup checks the declaration.
 */
#define HOOKS_HASH_FIRST 1024u

static uint32_t *hooks_by_addr, *hooks_by_key;
static uint32_t hooks_hash_size;

static uint32_t hooks_hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return (uint32_t)v;
}

static uint32_t hooks_hash_key(const char *kind, const char *symbol, const char *object)
{
	uint64_t h = 1469598103934665603ull;
	const char *parts[3] = {kind, symbol, object};

	for (int i = 0; i < 3; i++) {
		for (const char *p = parts[i]; *p; p++)
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
		h = (h ^ 0x1f) * 1099511628211ull;
	}
	return (uint32_t)h;
}

static int hooks_find_address(uint64_t addr)
{
	for (uint32_t i = hooks_hash_u64(addr) % hooks_hash_size, n = 0; n < hooks_hash_size;
	     i = (i + 1) % hooks_hash_size, n++) {
		uint32_t d = hooks_by_addr[i];

		if (!d)
			return -1;
		if (xp.decls[d - 1].address == addr)
			return (int)(d - 1);
	}
	return -1;
}

/* A declaration of the same key: an object dlclose'd and loaded again. */
static int hooks_find_key(const char *kind, const char *symbol, const char *object)
{
	for (uint32_t i = hooks_hash_key(kind, symbol, object) % hooks_hash_size, n = 0;
	     n < hooks_hash_size; i = (i + 1) % hooks_hash_size, n++) {
		uint32_t d = hooks_by_key[i];

		if (!d)
			return -1;
		if (!strcmp(xp.decls[d - 1].kind, kind) &&
		    !strcmp(xp.decls[d - 1].symbol, symbol) &&
		    !strcmp(xp.decls[d - 1].object, object))
			return (int)(d - 1);
	}
	return -1;
}

static void hooks_hash_put(uint32_t *table, uint32_t h, uint32_t idx)
{
	for (uint32_t i = h % hooks_hash_size, n = 0; n < hooks_hash_size;
	     i = (i + 1) % hooks_hash_size, n++) {
		if (!table[i] || table[i] == idx + 1) {
			table[i] = idx + 1;
			return;
		}
	}
}

/* Room in both tables for @n declarations, kept at most half full: 0 or -ENOMEM. */
static int hooks_hash_room(uint32_t n)
{
	uint32_t size = hooks_hash_size ? hooks_hash_size : HOOKS_HASH_FIRST;
	uint32_t *by_addr, *by_key;

	if ((uint64_t)n * 2 <= hooks_hash_size)
		return 0;
	while ((uint64_t)n * 2 > size)
		size *= 2;
	by_addr = calloc(size, sizeof(*by_addr));
	by_key = calloc(size, sizeof(*by_key));
	if (!by_addr || !by_key) {
		free(by_addr);
		free(by_key);
		return -ENOMEM;
	}
	free(hooks_by_addr);
	free(hooks_by_key);
	hooks_by_addr = by_addr;
	hooks_by_key = by_key;
	hooks_hash_size = size;
	for (uint32_t i = 0; i < xp.ndecls; i++) {
		const struct xp_decl *d = &xp.decls[i];

		hooks_hash_put(hooks_by_addr, hooks_hash_u64(d->address), i);
		hooks_hash_put(hooks_by_key, hooks_hash_key(d->kind, d->symbol, d->object), i);
	}
	return 0;
}

/*
 * Write @h's entry now, or hand it to @keep (extprof attach's tracer writes
 * it).  The code segments of @o are opened for writing at its first
 * function, and closed once the entries are all resolved (hooks_install,
 * hooks_rescan): two mprotect calls a segment, not two a function.
 */
static int hooks_commit(const struct arch_hook *h, const struct elf_object *o, uint32_t idx,
			hooks_keep_fn keep, char *why, size_t whylen)
{
	int err;

	if (keep) {
		err = keep(h, idx, why, whylen);
	} else {
		for (int i = 0; i < o->nsegs; i++)
			arch_code_open(o->segs[i][0], o->segs[i][1]);
		err = arch_commit_hook(h, why, whylen);
	}
	/* its rows for the unwinder, registered with the others (unwind_stub.c) */
	if (!err)
		unwind_stub_add(h);
	return err;
}

/*
 * Register and patch one function, @symbol its declaration's name, which
 * hookable_target found in @v; or say why not.
 */
static void hooks_add(struct hooks_match *m, const char *symbol, struct hookable_verdict *v)
{
	struct hooks_tally *t = m->tally;
	const char *kind = m->window ? "window" : m->w->kind;
	uint64_t addr = m->o->base + v->value;
	struct xp_decl *d, fresh;
	struct arch_hook h;
	uint32_t idx;
	char why[400];
	int dup, err;

	t->tried++;
	if (v->ifunc && v->outcome == HOOKABLE_OK)
		hooks_tally_ifunc(t, symbol, v->impl);
	if (v->outcome != HOOKABLE_OK) {
		hooks_tally_refuse(t, symbol, v->why);
		return;
	}
	/* before the plan: an alias hooked already has its entry patched */
	err = hooks_hash_room(xp.ndecls + 1);
	if (err) {
		hooks_tally_refuse(t, symbol, "finds no memory to be looked up");
		return;
	}
	dup = hooks_find_address(addr);
	if (dup >= 0) {
		/* an alias, or a second entry naming the same function */
		if (strcmp(xp.decls[dup].symbol, symbol) || strcmp(xp.decls[dup].kind, kind)) {
			snprintf(why, sizeof(why), "is already hooked as %s:%s", xp.decls[dup].kind,
				 xp.decls[dup].symbol);
			hooks_tally_refuse(t, symbol, why);
		} else {
			t->tried--;
		}
		return;
	}
	if (!hookable_plan(&m->tab->judge, v)) {
		hooks_tally_refuse(t, symbol, v->why);
		return;
	}
	dup = hooks_find_key(kind, symbol, m->o->name);
	idx = dup >= 0 ? (uint32_t)dup : xp.ndecls;
	if (idx == XP_MAX_DECLS) {
		snprintf(why, sizeof(why), "is past the limit of %u declarations", XP_MAX_DECLS);
		hooks_tally_refuse(t, symbol, why);
		return;
	}
	if (dup < 0 && !worker_room_for_decl()) {
		hooks_tally_refuse(t, symbol, "finds no room left in the dumps already made");
		return;
	}
	err = worker_room_for_decls(idx + 1);
	if (err) {
		char text[160];

		snprintf(why, sizeof(why), "finds no memory for its declaration (%s)",
			 log_strerror_limit(-err, text, sizeof(text)));
		hooks_tally_refuse(t, symbol, why);
		return;
	}
	d = &fresh;
	memset(d, 0, sizeof(*d));
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	snprintf(d->symbol, sizeof(d->symbol), "%s", symbol);
	snprintf(d->object, sizeof(d->object), "%s", m->o->name);
	d->address = addr;
	d->offset = v->value;
	d->size = v->size;
	d->window = m->window;
	if (arch_build_hook(addr, &v->plan, idx, &h, why, sizeof(why))) {
		hooks_tally_refuse(t, symbol, why);
		return;
	}
	d->stub = h.stub;
	/* in every dump before any thread can reach it */
	worker_publish_decl(idx, &fresh);
	hooks_hash_put(hooks_by_addr, hooks_hash_u64(addr), idx);
	if (dup < 0)
		hooks_hash_put(hooks_by_key, hooks_hash_key(kind, symbol, m->o->name), idx);
	if (m->window)
		xp.window_decl = idx;
	if (hooks_commit(&h, m->o, idx, m->keep, why, sizeof(why))) {
		/* listed, never called */
		hooks_tally_refuse(t, symbol, why);
		return;
	}
	t->hooked++;
}

/* One function of the table that answers to the entry (@arg: the match). */
static int hooks_add_sym(const struct functab_sym *s, void *arg)
{
	struct hooks_match *m = arg;
	const struct functab *t = &m->tab->tab;
	const struct functab_sym *best;
	struct hookable_verdict v;
	char symbol[300];

	m->found++;
	/* of aliases that all answer (a glob), the best name is the one hooked */
	best = functab_sym_at(t, s->value);
	if (best && best != s && best->type == s->type && hooks_want_matches(m->w, best))
		return 0;
	functab_sym_name(s, symbol, sizeof(symbol));
	hookable_target(&m->tab->judge, s->name, s->value, s->size, s->type == STT_GNU_IFUNC, &v);
	hooks_add(m, symbol, &v);
	return 0;
}

/*
 * 0xOFFSET from the object's load base: a function's start, which a
 * stripped object's .eh_frame still gives; anywhere else only with '!'.
 */
static void hooks_add_offset(struct hooks_match *m)
{
	const struct functab *t = &m->tab->tab;
	const struct hooks_want *w = m->w;
	const struct functab_sym *at = functab_sym_at(t, w->off), *in;
	const struct functab_fde *fde = functab_fde_holding(t, w->off);
	struct hookable_verdict v;
	char name[300], why[400];
	uint64_t size = functab_size_at(t, w->off);

	m->found++;
	if (at)
		functab_sym_name(at, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)w->off);
	if (size && (at || (fde && fde->start == w->off))) {
		hookable_target(&m->tab->judge, at ? at->name : NULL, w->off, size, false, &v);
		hooks_add(m, name, &v);
		return;
	}
	if (!w->forced) {
		in = functab_sym_holding(t, w->off);
		m->tally->tried++;
		if (in)
			snprintf(why, sizeof(why),
				 "is inside %s (+0x%llx), not a function's start; %s! hooks it "
				 "all the same",
				 functab_sym_name(in, name, sizeof(name)),
				 (unsigned long long)(w->off - in->value), w->pattern);
		else if (fde)
			snprintf(why, sizeof(why),
				 "is inside the function at 0x%llx (+0x%llx, from .eh_frame), not "
				 "its start; %s! hooks it all the same",
				 (unsigned long long)fde->start,
				 (unsigned long long)(w->off - fde->start), w->pattern);
		else
			snprintf(why, sizeof(why),
				 "is in no function the object describes (no symbol, no .eh_frame "
				 "entry); %s! hooks it all the same",
				 w->pattern);
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)w->off);
		hooks_tally_refuse(m->tally, name, why);
		return;
	}
	/* meant: scan to the end of what holds it, or what the segment allows */
	snprintf(name, sizeof(name), "0x%llx", (unsigned long long)w->off);
	if (fde) {
		size = fde->start + fde->size - w->off;
	} else if ((in = functab_sym_holding(t, w->off))) {
		size = in->value + in->size - w->off;
	} else {
		uint64_t addr = m->o->base + w->off;

		size = addr < m->o->text_hi ? m->o->text_hi - addr : 0;
		if (size > HOOKS_OFFSET_SCAN)
			size = HOOKS_OFFSET_SCAN;
	}
	hookable_target(&m->tab->judge, NULL, w->off, size, false, &v);
	hooks_add(m, name, &v);
}

static bool hooks_object_matches(const struct hooks_want *w, const struct elf_object *o)
{
	if (w->object[0])
		return !fnmatch(w->object, o->name, 0);
	return !o->is_shim;
}

/* Whether some declaration already answers to @w. */
static bool hooks_find_any(const struct hooks_want *w)
{
	for (uint32_t i = 0; i < xp.ndecls; i++) {
		if (!fnmatch(w->pattern, xp.decls[i].symbol, 0) &&
		    (!w->object[0] || !fnmatch(w->object, xp.decls[i].object, 0)))
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

/* Every function of object @i that answers to @m's entry. */
static void hooks_match_object(struct hooks_match *m, int i)
{
	struct functab *t;

	m->tab = hooks_table_of(i, &hooks_objs[i]);
	if (!m->tab)
		return;
	t = &m->tab->tab;
	if (m->w->offset) {
		hooks_add_offset(m);
		return;
	}
	hooks_want_each(m->w, t, &m->tab->names, hooks_add_sym, m);
}

/*
 * One entry: every object in order; without @OBJECT, the first that has it.
 * @late: only objects loaded since the last look, and only for entries that
 * name their object (an object dlopen'ed later is hooked when an entry
 * names it with @OBJECT, docs/usage.md).
 */
static void hooks_resolve(const struct spec_entry *e, struct hooks_tally *tally, bool window,
			  bool late, hooks_keep_fn keep)
{
	struct hooks_want w;
	bool any_object = false;
	unsigned found = 0;
	char text[700];

	hooks_want_parse(&w, e);
	if (late && !w.object[0])
		return;
	if (w.bad_offset) {
		if (!late)
			log_msg("hook %s: '%s' is not a hexadecimal offset (0xOFFSET, or 0xOFFSET! "
				"for one that is not a function's start)",
				hooks_want_text(&w, text, sizeof(text)), w.pattern);
		return;
	}
	for (int i = 0; i < hooks_nobjs; i++) {
		struct hooks_match m = {&w, &hooks_objs[i], NULL, tally, window, late, 0, keep};

		if (!hooks_object_matches(&w, &hooks_objs[i]))
			continue;
		if (late && !hooks_is_new(&hooks_objs[i]))
			continue;
		any_object = true;
		hooks_match_object(&m, i);
		found += m.found;
		if (m.found && (!w.object[0] || w.offset))
			return;
	}
	if (late)
		return;
	if (!any_object)
		log_msg("hook %s: no loaded object is called %s yet; hooked if it is dlopen'ed",
			hooks_want_text(&w, text, sizeof(text)), w.object);
	else if (!found && !hooks_find_any(&w))
		hooks_hint_no_match(&w, hooks_objs, hooks_nobjs);
}

/* "PATTERN[@OBJECT]" of EXTPROF_WINDOW, as an entry of kind window. */
static void hooks_window_entry(struct spec_entry *e, const char *window)
{
	const char *at = strchr(window, '@');
	size_t n = at ? (size_t)(at - window) : strlen(window);

	memset(e, 0, sizeof(*e));
	strcpy(e->kind, "window");
	if (n >= sizeof(e->pattern))
		n = sizeof(e->pattern) - 1;
	memcpy(e->pattern, window, n);
	if (at)
		snprintf(e->object, sizeof(e->object), "%s", at + 1);
}

/* hooks_want_each's stop at the first function found. */
static int hooks_found_one(const struct functab_sym *s, void *arg)
{
	(void)s;
	(void)arg;
	return 1;
}

/* What @e names: a function of a loaded object, an object not loaded yet, or nothing. */
static enum hooks_found hooks_entry_any(const struct spec_entry *e)
{
	struct hooks_want w;
	bool any_object = false;

	hooks_want_parse(&w, e);
	if (w.bad_offset)
		return HOOKS_NONE;
	for (int i = 0; i < hooks_nobjs; i++) {
		const struct hooks_table *tab;

		if (!hooks_object_matches(&w, &hooks_objs[i]))
			continue;
		any_object = true;
		if (w.offset)
			return HOOKS_NOW;
		tab = hooks_table_of(i, &hooks_objs[i]);
		if (tab && hooks_want_each(&w, &tab->tab, &tab->names, hooks_found_one, NULL))
			return HOOKS_NOW;
	}
	return w.object[0] && !any_object ? HOOKS_LATER : HOOKS_NONE;
}

/* Say what a round of hooking did (hooks_tally_lines), @where after its counts. */
static void hooks_say(const struct hooks_tally *t, const char *where)
{
	char ifuncs[800], line[1000];

	hooks_tally_lines(t, where, ifuncs, sizeof(ifuncs), line, sizeof(line));
	if (ifuncs[0])
		log_msg("%s", ifuncs);
	if (line[0])
		log_msg("%s", line);
}

/* What hooks_any() found nothing for, for hooks_say_unmatched(). */
static const struct spec_list *hooks_unmatched;
static const char *hooks_unmatched_window;

void hooks_say_unmatched(void)
{
	struct hooks_want w;

	if (hooks_unmatched_window && *hooks_unmatched_window)
		log_msg("EXTPROF_WINDOW=%s: not hooked; the window is the whole run",
			hooks_unmatched_window);
	for (int i = 0; hooks_unmatched && i < hooks_unmatched->n; i++) {
		hooks_want_parse(&w, &hooks_unmatched->entries[i]);
		hooks_hint_no_match(&w, hooks_objs, hooks_nobjs);
	}
	hooks_tables_free();
}

enum hooks_found hooks_any(const struct spec_list *list, const char *window)
{
	enum hooks_found found = HOOKS_NONE;

	/* nothing found: every entry found objects, and no function in them */
	hooks_unmatched = list;
	hooks_unmatched_window = window;
	hooks_nobjs = elfobj_list(hooks_objs, ELFOBJ_MAX);
	if (window && *window) {
		hooks_window_entry(&hooks_window, window);
		found = hooks_entry_any(&hooks_window);
	}
	for (int i = 0; i < list->n && found != HOOKS_NOW; i++) {
		enum hooks_found f = hooks_entry_any(&list->entries[i]);

		if (f > found)
			found = f;
	}
	/* the tables' refusals depend on the counter, not chosen yet: read again */
	if (found != HOOKS_NONE)
		hooks_tables_free();
	return found;
}

/*
 * Hook every function the entries name, and the window function, each patch
 * written here or handed to @keep.  Returns the number hooked.
 */
int hooks_install(const struct spec_list *list, const char *window, hooks_keep_fn keep)
{
	struct hooks_tally tally;
	bool named_objects = false;

	memset(&tally, 0, sizeof(tally));
	hooks_list = list;
	hooks_nobjs = elfobj_list(hooks_objs, ELFOBJ_MAX);
	xp.window_decl = UINT32_MAX;
	if (window && *window) {
		hooks_window_entry(&hooks_window, window);
		hooks_resolve(&hooks_window, &tally, true, false, keep);
		if (xp.window_decl == UINT32_MAX)
			log_msg("EXTPROF_WINDOW=%s: not hooked; the window is the whole run",
				window);
	}
	for (int i = 0; i < list->n; i++) {
		hooks_resolve(&list->entries[i], &tally, false, false, keep);
		named_objects |= list->entries[i].object[0] != '\0';
	}
	arch_code_close_all();
	/* room in every dump for what a later dlopen may add */
	xp.meta.late_decls = named_objects ? HOOKS_LATE_DECLS : 0;
	hooks_remember_objects();
	hooks_tables_free();
	hooks_say(&tally, "");
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
		hooks_resolve(&hooks_window, &tally, true, true, NULL);
	for (int i = 0; hooks_list && i < hooks_list->n; i++)
		hooks_resolve(&hooks_list->entries[i], &tally, false, true, NULL);
	arch_code_close_all();
	hooks_remember_objects();
	hooks_tables_free();
	arch_seal_code();
	hooks_say(&tally, where);
}
