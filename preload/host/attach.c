// SPDX-License-Identifier: MIT
/*
 * attach: the shim in a process that was running before it came.
 * "extprof attach" loads it with dlopen from a hijacked thread; the
 * constructor then does nothing (it was not preloaded), and the tracer
 * drives it through the exported block and two entries
 * (include/extprof/attach.h):
 *
 *   extprof_attach_begin()   the start-up steps of init.c with the block's
 *                            settings, every entry listed, none written;
 *                            the tracer writes them, all threads stopped
 *   extprof_attach_end()     the tracer has put the entries back and let
 *                            the activations in flight return: the dumps
 *                            are finished, those still in flight counted
 *                            abandoned and left to return uncounted
 *
 * Both run in whatever thread the tracer picked, with its signals blocked:
 * begin while the other threads run (it mallocs, through libelf), end
 * while they are stopped, none inside the shim (the tracer makes sure), so
 * that no activation can start or end under it.  Neither changes errno.
 * The shim stays loaded afterwards: the stubs must outlive every
 * activation in flight, and a later attachment reuses it.
 *
 * A fork child of an attached process is not followed unless the tracer
 * asked (EXTPROF_ATTACH_F_FOLLOW_FORKS): it puts the entries back in its
 * own copy of the code and counts nothing.  Followed, it counts from zero
 * in dumps of its own, and writes its pid where the tracer finds it, to
 * end its attachment too.
 */
#include <errno.h>
#include <link.h>
#include <elf.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "count/activation.h"
#include "arch/arch.h"
#include "host/attach.h"
#include "core/cancel.h"
#include "elfsyms.h"
#include "extprof/attach.h"
#include "core/log.h"
#include "core/state.h"
#include "store/dump.h"
#include "count/counter.h"
#include "count/eval.h"
#include "host/init.h"
#include "host/unwind.h"
#include "store/process.h"
#include "count/record.h"
#include "count/thread.h"
#include "store/worker.h"

#define ATTACH_RANGES	 EXTPROF_ATTACH_RANGES_MAX
#define ATTACH_REDIRECTS EXTPROF_ATTACH_REDIRECTS_MAX

__attribute__((visibility("default"))) struct extprof_attach_block extprof_attach = {
	.magic = EXTPROF_ATTACH_MAGIC,
	.version = EXTPROF_ATTACH_VERSION,
	.size = sizeof(struct extprof_attach_block),
};

/* Two entries a declaration at most (a short patch); mapped at the first begin. */
#define ATTACH_PATCHES (2u * XP_MAX_DECLS)

_Static_assert(ATTACH_PATCHES + ATTACH_REDIRECTS == EXTPROF_ATTACH_PATCHES_MAX,
	       "the tracer's limit (extprof/attach.h) is the shim's");
static struct extprof_attach_patch *attach_patches;
static struct extprof_attach_range attach_ranges[ATTACH_RANGES];

/* The unwinder's entries sent to unwind.c's wrappers: planned once, for good. */
static struct extprof_attach_patch attach_redirects[ATTACH_REDIRECTS];
static uint32_t attach_nredirects;
static bool attach_redirects_planned;

/* ---- loaded how -------------------------------------------------------- */

struct attach_order {
	uint64_t self;
	bool seen_libc;
	bool first;
};

static int attach_order_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct attach_order *o = arg;
	const char *slash = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	const char *base = slash ? slash + 1 : info->dlpi_name;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && o->self >= lo && o->self < lo + ph->p_memsz) {
			o->first = !o->seen_libc;
			return 1;
		}
	}
	if (base && !strncmp(base, "libc.so.", 8))
		o->seen_libc = true;
	return 0;
}

/*
 * Preloaded objects (LD_PRELOAD, /etc/ld.so.preload, or a DT_NEEDED of the
 * program's) come before libc in the loader's list; an object dlopen'ed
 * into a running program comes after it.
 */
bool attach_preloaded(void)
{
	struct attach_order o = {(uint64_t)attach_preloaded, false, false};

	dl_iterate_phdr(attach_order_visit, &o);
	return o.first;
}

void attach_mark_preloaded(void)
{
	extprof_attach.state = EXTPROF_ATTACH_PRELOADED;
}

/* Entries listed as they are written: a short patch is two writes, the padding first. */
static int attach_list(const struct arch_hook *h, uint32_t decl, uint32_t room)
{
	struct arch_patch_bytes w[2];
	int n = arch_entry_bytes(h, w, 2);

	if (n < 0 || extprof_attach.npatches + (uint32_t)n > room)
		return -ENOSPC;
	for (int i = 0; i < n; i++) {
		struct extprof_attach_patch *p = &attach_patches[extprof_attach.npatches++];

		p->at = w[i].at;
		p->length = w[i].len;
		p->decl = decl;
		memcpy(p->code, w[i].code, w[i].len);
		memcpy(p->orig, w[i].orig, w[i].len);
	}
	return 0;
}

int attach_keep_patch(const struct arch_hook *h, uint32_t idx, char *why, size_t whylen)
{
	if (attach_list(h, idx, ATTACH_PATCHES)) {
		snprintf(why, whylen, "cannot list its entry for the tracer");
		return -ENOSPC;
	}
	return 0;
}

/* ---- the unwinder's entries ---------------------------------------------- */

struct attach_defs {
	const char *names[ATTACH_REDIRECTS];
	uint64_t value[ATTACH_REDIRECTS], size[ATTACH_REDIRECTS];
	int n;
};

static int attach_defs_visit(const struct elf_sym *sym, void *arg)
{
	struct attach_defs *d = arg;

	if (!sym->defined || sym->type != STT_FUNC || !sym->size)
		return 0;
	for (int i = 0; i < d->n; i++)
		if (!d->value[i] && !strcmp(sym->name, d->names[i])) {
			d->value[i] = sym->value;
			d->size[i] = sym->size;
		}
	return 0;
}

/*
 * The shim is not preloaded, so it does not interpose the unwinder: C++
 * exceptions and backtrace(3) would stop at a hooked frame's stub (an
 * exception out of a hooked function would end the program).  Instead the
 * real functions' entries (the first definitions, in the objects loaded
 * before the shim: those the program binds to) jump to unwind.c's
 * wrappers, which call them through trampolines.
 */
static void attach_plan_redirects(void)
{
	static struct elf_object objs[ELFOBJ_MAX];
	struct attach_defs d;
	void *wrapper[ATTACH_REDIRECTS];
	int n = elfobj_list(objs, ELFOBJ_MAX);

	memset(&d, 0, sizeof(d));
	while (d.n < ATTACH_REDIRECTS && !unwind_wrapper(d.n, &d.names[d.n], &wrapper[d.n]))
		d.n++;
	for (int k = 0; k < n && !objs[k].is_shim; k++) {
		memset(d.value, 0, sizeof(d.value));
		elfsym_each(objs[k].path, attach_defs_visit, &d);
		for (int i = 0; i < d.n; i++) {
			uint64_t addr = objs[k].base + d.value[i];
			struct extprof_attach_patch *p = &attach_redirects[attach_nredirects];
			struct arch_patch_bytes w;
			struct arch_hook h;
			char why[256];
			void *orig;

			if (!d.value[i] || !wrapper[i])
				continue;
			if (!elfobj_in_text(&objs[k], addr, d.size[i]) ||
			    arch_prepare_redirect(addr, d.size[i], (uint64_t)wrapper[i], &h, &orig,
						  why, sizeof(why)) ||
			    arch_entry_bytes(&h, &w, 1) != 1) {
				log_msg("%s in %s cannot be redirected (%s): an exception through "
					"a hooked function would end the program",
					d.names[i], objs[k].name, why);
			} else {
				p->at = w.at;
				p->length = w.len;
				memcpy(p->code, w.code, w.len);
				memcpy(p->orig, w.orig, w.len);
				p->decl = EXTPROF_ATTACH_REDIRECT;
				attach_nredirects++;
				unwind_set_real(i, orig);
			}
			wrapper[i] = NULL; /* the first definition only */
		}
	}
	arch_seal_code();
}

/* ---- the settings and the messages -------------------------------------- */

/* init_start()'s settings: the block's; no window, no callers. */
static const char *attach_var(const char *name)
{
	struct extprof_attach_block *b = &extprof_attach;

	if (!strcmp(name, "EXTPROF_HOOKS"))
		return b->hooks;
	if (!strcmp(name, "EXTPROF_SPEC"))
		return b->spec[0] ? b->spec : NULL;
	if (!strcmp(name, "EXTPROF_COUNTER"))
		return b->counter[0] ? b->counter : NULL;
	if (!strcmp(name, "EXTPROF_DIR"))
		return b->dir[0] ? b->dir : NULL;
	return NULL;
}

/* A line for the tracer; several threads may say one at once. */
static void attach_log_sink(const char *line, size_t len)
{
	uint32_t off = __atomic_fetch_add(&extprof_attach.log_len, (uint32_t)len, __ATOMIC_RELAXED);

	if (off < sizeof(extprof_attach.log) && len <= sizeof(extprof_attach.log) - off)
		memcpy(extprof_attach.log + off, line, len);
}

/* ---- fork children ------------------------------------------------------- */

static void attach_after_fork_child(void)
{
	struct extprof_attach_block *b = &extprof_attach;
	struct extprof_attach_children *kids = (void *)b->children;

	if (b->state != EXTPROF_ATTACH_ATTACHED)
		return;
	if ((b->flags & EXTPROF_ATTACH_F_FOLLOW_FORKS) && kids) {
		uint32_t n = __atomic_fetch_add(&kids->n, 1, __ATOMIC_RELAXED);

		if (n < EXTPROF_ATTACH_CHILDREN)
			__atomic_store_n(&kids->pid[n], (int32_t)getpid(), __ATOMIC_RELEASE);
		return;
	}
	/* not followed: the program's own code again, in this copy of it; the
	 * unwinder's too, unless an inherited activation may unwind through it */
	for (uint32_t i = 0; i < b->npatches; i++)
		if (attach_patches[i].decl != EXTPROF_ATTACH_REDIRECT || !xp_self.depth)
			arch_write_code(attach_patches[i].at, attach_patches[i].orig,
					attach_patches[i].length);
	xp.finished = true;
	b->state = EXTPROF_ATTACH_DETACHED;
}

/* ---- begin ---------------------------------------------------------------- */

/* What a previous attachment left: its declarations and settings go. */
static void attach_reset(void)
{
	struct extprof_attach_block *b = &extprof_attach;

	xp.enabled = false;
	xp.finished = false;
	xp.dir_ok = false;
	xp.children_off = false;
	if (xp.decls)
		memset(xp.decls, 0, (size_t)xp.ndecls * sizeof(xp.decls[0]));
	xp.ndecls = 0;
	xp.callers = 0;
	xp.nworkers = 0;
	/* a late return of an old activation may read the counter meanwhile:
	 * its kind changes, its addresses stay valid (counter.c never zeroes them) */
	xp.counter.kind = EXTPROF_COUNTER_TSC;
	xp.counter.flags = 0;
	memset(&xp.meta, 0, sizeof(xp.meta));
	b->npatches = 0;
	b->nranges = 0;
	b->hooks[sizeof(b->hooks) - 1] = '\0';
	b->spec[sizeof(b->spec) - 1] = '\0';
	b->counter[sizeof(b->counter) - 1] = '\0';
	b->dir[sizeof(b->dir) - 1] = '\0';
	memset(b->log, 0, sizeof(b->log));
	b->log_len = 0;
}

/* The page fork children that follow write their pids in: shared by them all. */
static int attach_map_children(void)
{
	struct extprof_attach_children *kids = (void *)extprof_attach.children;

	if (!kids) {
		kids = mmap(NULL, sizeof(*kids), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			    -1, 0);
		if (kids == MAP_FAILED)
			return -errno;
		extprof_attach.children = (uint64_t)kids;
	}
	kids->n = 0;
	return 0;
}

static void attach_publish(void)
{
	struct extprof_attach_block *b = &extprof_attach;
	int n;

	b->self_tpoff = (int64_t)((uint64_t)&xp_self - arch_thread_pointer());
	b->busy_off = (uint32_t)offsetof(struct xp_thread, busy);
	b->depth_off = (uint32_t)offsetof(struct xp_thread, depth);
	b->patches = (uint64_t)attach_patches;
	n = arch_code_ranges(attach_ranges, ATTACH_RANGES);
	b->nranges = (uint32_t)(n < ATTACH_RANGES ? n : ATTACH_RANGES);
	b->ranges = (uint64_t)attach_ranges;
	b->id = b->next_id;
	b->process_id = xp.meta.process_id;
	b->start_ns = xp.meta.start_ns;
	b->start_ns_addr = (uint64_t)&xp.meta.start_ns;
	b->end_ns = 0;
}

/*
 * Prepare an attachment: returns how many entries are listed for the
 * tracer, or -errno (said in the block's log).
 */
__attribute__((visibility("default"))) int extprof_attach_begin(void)
{
	struct extprof_attach_block *b = &extprof_attach;
	static bool atfork;
	struct cancel_hold h;
	int saved = errno, r;

	/* the hijacked thread's pending cancellation waits until the tracer is done */
	cancel_hold(&h, state_self((uint64_t)__builtin_frame_address(0), false));
	if (b->state == EXTPROF_ATTACH_PRELOADED || b->state == EXTPROF_ATTACH_ATTACHED) {
		r = -EBUSY;
		goto out;
	}
	if (!attach_patches) {
		void *p = mmap(NULL, (ATTACH_PATCHES + ATTACH_REDIRECTS) * sizeof(*attach_patches),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);

		if (p == MAP_FAILED) {
			r = -errno;
			goto out;
		}
		attach_patches = p;
	}
	attach_reset();
	log_set_sink(attach_log_sink);
	r = init_start(attach_var, attach_keep_patch);
	if (!r && (b->flags & EXTPROF_ATTACH_F_FOLLOW_FORKS))
		r = attach_map_children();
	if (r) {
		xp.enabled = false;
		b->state = EXTPROF_ATTACH_IDLE;
		goto out;
	}
	xp.meta.flags |= EXTPROF_DUMP_F_ATTACHED;
	xp.meta.attach_id = b->next_id;
	if (!attach_redirects_planned)
		attach_plan_redirects();
	attach_redirects_planned = true;
	memcpy(&attach_patches[b->npatches], attach_redirects,
	       attach_nredirects * sizeof(attach_redirects[0]));
	b->npatches += attach_nredirects;
	if (!atfork)
		pthread_atfork(NULL, NULL, attach_after_fork_child);
	atfork = true;
	attach_publish();
	b->state = EXTPROF_ATTACH_PREPARED;
	r = (int)b->npatches;
out:
	b->result = r;
	cancel_release(&h);
	errno = saved;
	return r;
}

/* ---- end ------------------------------------------------------------------ */

/*
 * A finished dump's mapping, replaced by zeroed memory of the same size
 * rather than unmapped: the tracer saw no thread inside a stub, but a
 * handler with a signal frame it could not read (a restorer of the
 * program's own) would write through pointers it holds into it.  The file
 * itself is let go.  The address range stays taken: a few tens of KiB per
 * worker and attachment, never touched.
 */
static void attach_retire_map(struct dump_map *m)
{
	/* if that fails, the file's mapping stays: never a hole */
	for (uint32_t k = 0; m->base && k < m->nchunks; k++)
		mmap(m->chunk[k].base, m->chunk[k].size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}

/*
 * Every worker's dump finished, complete.  The activations in flight are
 * counted abandoned and marked uncounted, so that their returns, later,
 * only put the caller's return address back; the threads give their
 * workers up, and the next attachment starts from fresh ones.
 */
static void attach_finish_workers(void)
{
	uint32_t n = __atomic_load_n(&xp.nworkers, __ATOMIC_ACQUIRE);
	bool lost_said = false;
	int err;

	for (uint32_t i = 0; i < n; i++) {
		struct xp_worker *w = &xp.workers[i];
		struct xp_thread *t = w->owner;

		if (!w->map.base)
			continue;
		if (!lost_said) {
			w->map.hdr->lost += __atomic_exchange_n(&xp_lost, 0, __ATOMIC_RELAXED);
			lost_said = true;
		}
		if (t) {
			for (uint32_t d = 0; d < t->depth; d++)
				activation_abandon(w, &t->stack[d], ACTIVATION_ENDS);
			thread_close_run(w, t);
			counter_close_thread(t);
			t->worker = NULL;
		}
		w->map.hdr->end_ns = extprof_attach.end_ns;
		if (xp.counter.kind == EXTPROF_COUNTER_STEPS)
			record_held_samples(w);
		if (w->map.path[0]) {
			err = dump_write_compact(&w->map, EXTPROF_DUMP_F_COMPLETE);
			if (err)
				log_msg("cannot finish %s: %s", w->map.path, strerror(-err));
		}
		w->owner = NULL;
		attach_retire_map(&w->map);
		memset(&w->map, 0, sizeof(w->map));
		__atomic_store_n(&w->state, XP_WORKER_FREE, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&xp.nworkers, 0, __ATOMIC_RELEASE);
}

/*
 * End the attachment: 0, or -EAGAIN when a dlopen is adding declarations
 * (the tracer lets the threads run a moment and asks again).
 */
__attribute__((visibility("default"))) int extprof_attach_end(void)
{
	struct extprof_attach_block *b = &extprof_attach;
	struct cancel_hold h;
	int saved = errno, r = 0;

	cancel_hold(&h, state_self((uint64_t)__builtin_frame_address(0), false));
	if (b->state != EXTPROF_ATTACH_ATTACHED && b->state != EXTPROF_ATTACH_PREPARED) {
		r = -EINVAL;
		goto out;
	}
	/* a dlopen adding declarations holds it: never waited for, its thread
	 * may be stopped (a thread laying out a dump is busy: the tracer saw none) */
	if (pthread_mutex_trylock(&xp.decls_lock)) {
		r = -EAGAIN;
		goto out;
	}
	xp.finished = true;
	b->end_ns = process_now_ns();
	/* the dumps' writing calls what may be hooked (libc's write): not the program's calls */
	xp_self.busy = 1;
	attach_finish_workers();
	xp_self.busy = 0;
	pthread_mutex_unlock(&xp.decls_lock);
	b->state = EXTPROF_ATTACH_DETACHED;
out:
	b->result = r;
	cancel_release(&h);
	errno = saved;
	return r;
}
