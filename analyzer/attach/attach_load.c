// SPDX-License-Identifier: MIT
/*
 * attach_load: the shim into a running process, and its hooks written.
 *
 *   1. a thread borrowed (attach_call.c); the others run from here on
 *   2. dlopen(libextprof.so, RTLD_NOW) in it, found in the process's own
 *      libc.so.6 (.dynsym, at libc's load address in /proc/PID/maps);
 *      the shim's constructor sees it was not preloaded and does nothing.
 *      A shim already there from an earlier attachment is used again.
 *   3. the settings written into the shim's block, extprof_attach_begin()
 *      called: counter, calibration, hooks planned, stubs built, nothing
 *      of the program's code touched; its lines printed here
 *   4. the thread given back; every thread stopped again
 *   5. while a thread has its pc inside the first bytes of a function
 *      about to be patched, the threads run a moment and are stopped
 *      again (a function a thread stays in, in a system call say, is left
 *      unhooked)
 *   6. each entry's bytes checked against what begin saw, the jmp written
 *      through /proc/PID/mem; T1 noted; state ATTACHED
 *
 * Then the caller lets every thread go.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach.h"

#define OUTSIDE_TRIES	 20 /* x OUTSIDE_PAUSE_MS for the threads to leave the entries' bytes */
#define OUTSIDE_PAUSE_MS 2

static int64_t load_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Write the tracer's part of the block: the settings, the new id. */
static int load_configure(pid_t pid, uint64_t block, const struct xp_attach_cfg *cfg, uint64_t id,
			  struct xp_err *e)
{
	struct extprof_attach_block *b = calloc(1, sizeof(*b));
	size_t from = offsetof(struct extprof_attach_block, flags);
	size_t to = offsetof(struct extprof_attach_block, log);
	int err = 0;

	if (!b)
		return xp_err_set(e, -ENOMEM, "out of memory");
	b->flags = cfg->follow_forks ? EXTPROF_ATTACH_F_FOLLOW_FORKS : 0;
	b->next_id = id;
	if ((cfg->hooks && strlen(cfg->hooks) >= sizeof(b->hooks)) ||
	    strlen(cfg->dir) >= sizeof(b->dir) ||
	    (cfg->spec && strlen(cfg->spec) >= sizeof(b->spec)))
		err = xp_err_set(e, -E2BIG, "attach: the hooks, --spec or -o are too long");
	if (!err) {
		snprintf(b->hooks, sizeof(b->hooks), "%s", cfg->hooks ? cfg->hooks : "");
		snprintf(b->spec, sizeof(b->spec), "%s", cfg->spec ? cfg->spec : "");
		snprintf(b->counter, sizeof(b->counter), "%s", cfg->counter ? cfg->counter : "");
		snprintf(b->dir, sizeof(b->dir), "%s", cfg->dir);
		if (xp_mem_write(pid, block + from, (char *)b + from, to - from))
			err = xp_err_set(e, -errno, "process %d: writing the shim's settings: %s",
					 (int)pid, strerror(errno));
	}
	free(b);
	return err;
}

/* dlopen the shim in the borrowed thread; the layout re-read after. */
static int load_dlopen(struct xp_trace *tr, struct xp_hijack *h, struct xp_layout *l,
		       const char *shim, struct xp_err *e)
{
	uint64_t fn_dlopen, fn_dlerror, args[2] = {0, RTLD_NOW}, handle = 0, msg = 0;
	char text[512] = "";
	int err;

	err = xp_object_symbol(tr->pid, &l->libc, "dlopen", &fn_dlopen, e);
	if (!err)
		err = xp_object_symbol(tr->pid, &l->libc, "dlerror", &fn_dlerror, e);
	if (err)
		return xp_err_set(e, err, "attach: process %d: %s (glibc older than 2.34?)",
				  (int)tr->pid, e->msg);
	err = xp_hijack_call(tr, h, fn_dlopen, args, 2, shim, strlen(shim) + 1, 0, true, &handle,
			     e);
	if (err)
		return err;
	if (!handle) {
		err = xp_hijack_call(tr, h, fn_dlerror, NULL, 0, NULL, 0, -1, true, &msg, e);
		if (!err && msg)
			xp_mem_read(tr->pid, msg, text, sizeof(text) - 1);
		text[sizeof(text) - 1] = '\0';
		/* dlerror names the file first: say it once */
		if (!strncmp(text, shim, strlen(shim)) && !strncmp(text + strlen(shim), ": ", 2))
			memmove(text, text + strlen(shim) + 2, strlen(text + strlen(shim) + 2) + 1);
		return xp_err_set(
			e, -ENOEXEC, "attach: process %d cannot load %s: %s%s", (int)tr->pid, shim,
			text[0] ? text : "dlopen failed",
			strstr(text, "static TLS")
				? " (the reserve its libraries left is too small; "
				  "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096 in its "
				  "environment when it starts makes more)"
				: "");
	}
	xp_layout_free(l);
	err = xp_layout_read(tr->pid, l, e);
	if (!err && !l->shim.found)
		err = xp_err_set(e, -ENOEXEC, "attach: process %d: the shim is not in its maps",
				 (int)tr->pid);
	return err;
}

/* The shim's begin(): the hooks prepared.  Its lines are printed. */
static int load_begin(struct xp_trace *tr, struct xp_hijack *h, const struct xp_layout *l,
		      const struct xp_attach_cfg *cfg, struct xp_attachment *a,
		      struct extprof_attach_block *blk, struct xp_err *e)
{
	uint64_t fn_begin, r = 0;
	int err;

	err = xp_block_find(tr->pid, l, &a->block, e);
	if (!err && !a->block)
		err = -EPROTO;
	if (!err)
		err = xp_block_read(tr->pid, a->block, blk);
	if (err)
		return xp_err_set(e, err, "attach: process %d: the shim's block: %s", (int)tr->pid,
				  err == -EPROTO ? "another version of the shim" : strerror(-err));
	if (getrandom(&a->id, sizeof(a->id), 0) != sizeof(a->id) || !a->id)
		a->id = (uint64_t)load_now_ns() ^ ((uint64_t)tr->pid << 32);
	err = load_configure(tr->pid, a->block, cfg, a->id, e);
	if (!err)
		err = xp_object_symbol(tr->pid, &l->shim, EXTPROF_ATTACH_BEGIN, &fn_begin, e);
	if (!err)
		err = xp_hijack_call(tr, h, fn_begin, NULL, 0, NULL, 0, -1, true, &r, e);
	if (!err && xp_block_read(tr->pid, a->block, blk))
		err = xp_err_set(e, -EIO, "attach: process %d: reading the shim's block",
				 (int)tr->pid);
	if (err)
		return err;
	xp_block_say(blk, 0);
	/* said: the block's log is empty again for what the shim says later */
	xp_mem_write(tr->pid, a->block + offsetof(struct extprof_attach_block, log_len),
		     &(uint32_t){0}, sizeof(uint32_t));
	if ((int32_t)r <= 0)
		return xp_err_set(e, (int32_t)r < 0 ? (int32_t)r : -ENOENT,
				  "attach: nothing was hooked in process %d", (int)tr->pid);
	a->npatches = blk->npatches;
	return 0;
}

/* Is @pc strictly inside the bytes of @p that the jmp replaces? */
static bool load_inside(const struct extprof_attach_patch *p, uint64_t pc)
{
	return pc > p->at && pc < p->at + p->length;
}

/*
 * Mark in @skip the entries a thread is inside, or that a signal handler
 * running on it would return into.  Returns how many.
 */
static uint32_t load_mark_inside(struct xp_trace *tr, const struct xp_layout *l,
				 const struct extprof_attach_patch *p, uint32_t n, bool *skip)
{
	uint32_t inside = 0;

	memset(skip, 0, n * sizeof(*skip));
	for (size_t i = 0; i < tr->n; i++) {
		struct xp_arch_now now;
		uint64_t pcs[17];
		int npcs;

		if (tr->t[i].gone || xp_arch_now_of(tr->t[i].tid, &now))
			continue;
		/* its pc, and the pcs its signal handlers will return to */
		pcs[0] = now.pc;
		npcs = 1 + xp_pick_handler_pcs(tr->pid, l, now.sp, pcs + 1, 16);
		for (uint32_t k = 0; k < n; k++)
			for (int j = 0; j < npcs && !skip[k]; j++)
				if (load_inside(&p[k], pcs[j])) {
					skip[k] = true;
					inside++;
				}
	}
	return inside;
}

/*
 * No thread may be inside the bytes an entry's jmp replaces: while one
 * is, the threads run a moment and are stopped again (never stepped: a
 * tracer that died then would leave a thread to a SIGTRAP).  An entry a
 * thread stays inside (in a system call there, say) is marked in @skip.
 */
static int load_wait_outside(struct xp_trace *tr, struct xp_layout *l,
			     const struct extprof_attach_patch *p, uint32_t n, bool *skip,
			     struct xp_err *e)
{
	for (int i = 0; i < OUTSIDE_TRIES && load_mark_inside(tr, l, p, n, skip); i++) {
		int err;

		xp_trace_run_for(tr, OUTSIDE_PAUSE_MS);
		err = xp_trace_stop_all(tr, e);
		if (!err) {
			xp_layout_free(l);
			err = xp_layout_read(tr->pid, l, e);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Write the entries, every thread stopped and none inside one. */
static int load_write(struct xp_trace *tr, struct xp_layout *l, struct xp_attachment *a,
		      const struct extprof_attach_block *blk, struct xp_err *e)
{
	uint32_t n = blk->npatches, written = 0, moved = 0, inside = 0;
	struct extprof_attach_patch *p = calloc(n ? n : 1, sizeof(*p));
	bool *skip = calloc(n ? n : 1, sizeof(*skip));
	uint32_t state = EXTPROF_ATTACH_ATTACHED;
	int64_t t1;
	int err = 0;

	if (!p || !skip) {
		err = xp_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	if (xp_mem_read(tr->pid, blk->patches, p, n * sizeof(*p))) {
		err = xp_err_set(e, -errno, "process %d: reading the shim's entries: %s",
				 (int)tr->pid, strerror(errno));
		goto out;
	}
	err = load_wait_outside(tr, l, p, n, skip, e);
	if (err)
		goto out;
	for (uint32_t k = 0; k < n; k++) {
		bool redirect = p[k].decl == EXTPROF_ATTACH_REDIRECT;
		uint8_t now[16];

		if (!skip[k] && p[k].length <= sizeof(now) &&
		    !xp_mem_read(tr->pid, p[k].at, now, p[k].length)) {
			/* an unwinder's entry a detach left redirected (activations in flight) */
			if (redirect && !memcmp(now, p[k].code, p[k].length))
				continue;
			if (memcmp(now, p[k].orig, p[k].length))
				moved += !redirect;
			else if (xp_mem_write(tr->pid, p[k].at, p[k].code, p[k].length)) {
				err = xp_err_set(e, -errno,
						 "process %d: writing an entry at 0x%" PRIx64
						 ": %s",
						 (int)tr->pid, p[k].at, strerror(errno));
				goto out;
			} else {
				written += !redirect;
				continue;
			}
		} else {
			inside += !redirect;
		}
		if (redirect)
			fprintf(stderr,
				"extprof: attach: the unwinder's entry at 0x%" PRIx64
				" could not be "
				"redirected: an exception through a hooked function would end the "
				"program\n",
				p[k].at);
	}
	if (inside)
		fprintf(stderr,
			"extprof: attach: %u function%s left unhooked: a thread stayed inside its "
			"first bytes\n",
			inside, inside == 1 ? "" : "s");
	if (moved)
		fprintf(stderr,
			"extprof: attach: %u function%s left unhooked: its first bytes changed "
			"meanwhile (a debugger's breakpoint?)\n",
			moved, moved == 1 ? "" : "s");
	t1 = load_now_ns();
	if (xp_mem_write(tr->pid, blk->start_ns_addr, &t1, sizeof(t1)) ||
	    xp_mem_write(tr->pid, a->block + offsetof(struct extprof_attach_block, start_ns), &t1,
			 sizeof(t1)) ||
	    xp_mem_write(tr->pid, a->block + offsetof(struct extprof_attach_block, state), &state,
			 sizeof(state)))
		err = xp_err_set(e, -errno, "process %d: writing the shim's state: %s",
				 (int)tr->pid, strerror(errno));
	a->start_ns = t1;
	a->npatches = written;
out:
	free(p);
	free(skip);
	return err;
}

int xp_attach_load(struct xp_trace *tr, const struct xp_attach_cfg *cfg, struct xp_attachment *a,
		   struct xp_err *e)
{
	struct extprof_attach_block *blk = calloc(1, sizeof(*blk));
	uint64_t errno_location = 0;
	struct xp_layout l;
	struct xp_hijack h;
	int err;

	memset(a, 0, sizeof(*a));
	a->pid = tr->pid;
	if (!blk)
		return xp_err_set(e, -ENOMEM, "out of memory");
	err = xp_layout_read(tr->pid, &l, e);
	if (err) {
		free(blk);
		return err;
	}
	memset(&h, 0, sizeof(h));
	err = xp_object_symbol(tr->pid, &l.libc, "__errno_location", &errno_location, e);
	if (!err)
		err = xp_hijack_begin(tr, &l, XP_PICK_LOAD, errno_location, &h, e);
	if (!err && !l.shim.found)
		err = load_dlopen(tr, &h, &l, cfg->shim, e);
	if (!err)
		err = load_begin(tr, &h, &l, cfg, a, blk, e);
	/* the thread goes back as it was, whatever happened; then the gate goes */
	xp_hijack_end(tr, &h);
	if (!err)
		err = xp_trace_stop_all(tr, e);
	/* the threads made meanwhile have stacks of their own */
	if (!err) {
		xp_layout_free(&l);
		err = xp_layout_read(tr->pid, &l, e);
	}
	if (!err)
		err = load_write(tr, &l, a, blk, e);
	xp_layout_free(&l);
	free(blk);
	return err;
}
