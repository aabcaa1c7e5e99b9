// SPDX-License-Identifier: MIT
/*
 * attach_end: an attachment undone.
 *
 *   1. every thread stopped; each entry's original bytes put back (those
 *      that still hold our jmp): no new activation can begin
 *   2. the threads run, still seized, until the activations in flight
 *      have returned (their dumps' open counts reach 0) or the grace is
 *      over: their returns, through the stubs that stay, are counted
 *   3. every thread stopped at a moment when none is inside the shim;
 *      one of them calls extprof_attach_end(): the dumps are finished
 *      (complete), what is still in flight is abandoned and returns
 *      uncounted later
 *   4. the unwinder's entries put back too, unless an activation is still
 *      on a shadow stack (its exception would need the wrapper)
 *   5. let go; then the same for each fork child that followed
 *
 * A process that has exited meanwhile is left to its dumps (its shim's
 * destructor finished them if it exited cleanly).  One that exec'd has
 * no shim any more: the caller marks its dumps.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach.h"

#define END_TRIES    400 /* x END_PAUSE_MS to find a quiet moment */
#define END_PAUSE_MS 5
#define SEIZE_TRIES  50 /* x 100 ms while another extprof holds it */

static int64_t end_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Seize it; another extprof (attach ending it, or detach) may hold it a moment. */
static int end_seize(struct xp_trace *tr, pid_t pid, struct xp_err *e)
{
	int err = -EBUSY;

	for (int i = 0; i < SEIZE_TRIES; i++) {
		struct xp_pstatus s;

		err = xp_trace_attach(tr, pid, e);
		if (err != -EBUSY && err != -EPERM)
			return err;
		if (xp_pstatus_read(pid, 0, &s) || !s.tracer)
			return err;
		usleep(100000);
	}
	return err;
}

/*
 * Put the entries' own bytes back: the hooked functions' (@redirects
 * false), or the unwinder's.  Returns how many were ours.
 */
static int end_restore(pid_t pid, const struct extprof_attach_block *blk, bool redirects,
		       struct xp_err *e)
{
	struct extprof_attach_patch *p = calloc(blk->npatches ? blk->npatches : 1, sizeof(*p));
	uint32_t changed = 0;
	int restored = 0;

	if (!p)
		return xp_err_set(e, -ENOMEM, "out of memory");
	if (xp_mem_read(pid, blk->patches, p, blk->npatches * sizeof(*p))) {
		free(p);
		return xp_err_set(e, -errno, "process %d: reading the shim's entries: %s", (int)pid,
				  strerror(errno));
	}
	for (uint32_t k = 0; k < blk->npatches; k++) {
		uint8_t now[16];

		if ((p[k].decl == EXTPROF_ATTACH_REDIRECT) != redirects ||
		    p[k].length > sizeof(now) || xp_mem_read(pid, p[k].at, now, p[k].length))
			continue;
		if (!memcmp(now, p[k].orig, p[k].length))
			continue; /* never written (a thread stayed inside it) */
		if (memcmp(now, p[k].code, p[k].length)) {
			changed++;
			continue;
		}
		if (xp_mem_write(pid, p[k].at, p[k].orig, p[k].length)) {
			int err = xp_err_set(e, -errno,
					     "process %d: restoring the entry at 0x%" PRIx64 ": %s",
					     (int)pid, p[k].at, strerror(errno));

			free(p);
			return err;
		}
		restored++;
	}
	if (changed)
		fprintf(stderr,
			"extprof: detach: process %d: %u entr%s changed by someone else since the "
			"attachment; left as found\n",
			(int)pid, changed, changed == 1 ? "y" : "ies");
	free(p);
	return restored;
}

/* Run until the activations in flight have returned, or @grace_ms. */
static void end_grace(struct xp_trace *tr, const struct extprof_attach_block *blk, int grace_ms)
{
	int64_t deadline = end_now_ms() + grace_ms;

	while (!tr->exited && !tr->execed && xp_attach_in_flight(blk->dir, blk->id, tr->pid) &&
	       end_now_ms() < deadline)
		xp_trace_run_for(tr, 10);
}

/* Step 3: the shim's end() from a thread, at a moment none is inside the shim. */
static int end_call(struct xp_trace *tr, uint64_t block, struct extprof_attach_block *blk,
		    struct xp_err *e)
{
	struct xp_layout l;
	uint64_t fn_end = 0, r = 0;
	int err;

	for (int i = 0; i < END_TRIES; i++) {
		struct xp_hijack h;
		int quiet;

		err = xp_trace_stop_all(tr, e);
		if (err)
			return err;
		err = xp_layout_read(tr->pid, &l, e);
		if (err)
			return err;
		quiet = xp_pick_quiescent(tr, &l, blk);
		if (quiet < 0) {
			xp_layout_free(&l);
			return xp_err_set(e, quiet, "process %d: %s", (int)tr->pid,
					  strerror(-quiet));
		}
		if (!fn_end) {
			err = xp_object_symbol(tr->pid, &l.shim, EXTPROF_ATTACH_END, &fn_end, e);
			if (err) {
				xp_layout_free(&l);
				return err;
			}
		}
		if (quiet) {
			err = xp_hijack_begin(tr, &l, XP_PICK_END, 0, &h, e);
			if (!err)
				err = xp_hijack_call(tr, &h, fn_end, NULL, 0, NULL, 0, -1, false,
						     &r, e);
			xp_hijack_end(tr, &h);
		}
		xp_layout_free(&l);
		if (err)
			return err;
		if (quiet && (int32_t)r != -EAGAIN)
			break;
		xp_trace_run_for(tr, END_PAUSE_MS);
	}
	if (xp_block_read(tr->pid, block, blk))
		return xp_err_set(e, -EIO, "process %d: reading the shim's block", (int)tr->pid);
	xp_block_say(blk, 0);
	if (blk->state != EXTPROF_ATTACH_DETACHED)
		return xp_err_set(
			e, -EAGAIN,
			"detach: process %d: no moment came when no thread was inside the "
			"shim; its entries are restored, its dumps stay live (extprof "
			"detach %d tries again)",
			(int)tr->pid, (int)tr->pid);
	return 0;
}

/* Activations still on the threads' shadow stacks, counted or not (every thread stopped). */
static uint64_t end_frames(struct xp_trace *tr, const struct extprof_attach_block *blk)
{
	uint64_t frames = 0;

	for (size_t i = 0; i < tr->n; i++) {
		struct xp_arch_now now;
		uint32_t depth = 0;

		if (tr->t[i].gone || xp_arch_now_of(tr->t[i].tid, &now))
			continue;
		if (!xp_mem_read(tr->pid, now.tp + (uint64_t)blk->self_tpoff + blk->depth_off,
				 &depth, sizeof(depth)))
			frames += depth;
	}
	return frames;
}

/*
 * Step 4: the unwinder's entries back too, unless an activation is still
 * in flight: an exception out of it needs the wrapper to find its caller.
 */
static int end_unredirect(struct xp_trace *tr, const struct extprof_attach_block *blk,
			  struct xp_err *e)
{
	uint64_t frames = end_frames(tr, blk);

	if (!frames)
		return end_restore(tr->pid, blk, true, e) < 0 ? -EIO : 0;
	fprintf(stderr,
		"extprof: detach: process %d: %" PRIu64 " activation%s still in flight: the "
		"unwinder's entries stay sent through the shim (for an exception out of them) "
		"until "
		"the end of a later attachment\n",
		(int)tr->pid, frames, frames == 1 ? "" : "s");
	return 0;
}

/* One process: steps 1 to 3.  @kids: the followed children's pids, if any (caller frees). */
static int end_one(pid_t pid, uint64_t expect_id, int grace_ms, struct xp_attach_end *out,
		   int32_t **kids, uint32_t *nkids, struct xp_err *e)
{
	struct extprof_attach_block *blk = calloc(1, sizeof(*blk));
	struct xp_trace tr;
	struct xp_layout l;
	uint64_t block = 0;
	int err;

	*kids = NULL;
	*nkids = 0;
	if (!blk)
		return xp_err_set(e, -ENOMEM, "out of memory");
	if (!xp_proc_alive(pid)) {
		out->gone = true;
		free(blk);
		return 0;
	}
	err = end_seize(&tr, pid, e);
	if (err) {
		free(blk);
		if (!xp_proc_alive(pid)) {
			out->gone = true;
			return 0;
		}
		return err;
	}
	err = xp_layout_read(pid, &l, e);
	if (!err)
		err = xp_block_find(pid, &l, &block, e);
	xp_layout_free(&l);
	if (!err && !block) {
		out->execed = true; /* no shim in it any more: another image */
		goto out;
	}
	if (!err)
		err = xp_block_read(pid, block, blk);
	if (err)
		goto out;
	snprintf(out->dir, sizeof(out->dir), "%s", blk->dir);
	out->id = blk->id;
	out->end_ns = blk->end_ns;
	if ((expect_id && blk->id != expect_id) ||
	    (blk->state != EXTPROF_ATTACH_ATTACHED && blk->state != EXTPROF_ATTACH_PREPARED)) {
		out->already = true;
		goto out;
	}
	err = end_restore(pid, blk, false, e);
	if (err >= 0) {
		end_grace(&tr, blk, grace_ms);
		err = tr.exited ? 0 : end_call(&tr, block, blk, e);
	}
	if (!err && !tr.exited)
		err = end_unredirect(&tr, blk, e);
	if (tr.exited) {
		out->gone = true;
		err = 0;
	}
	out->end_ns = blk->end_ns;
	if (!err && blk->children && (blk->flags & EXTPROF_ATTACH_F_FOLLOW_FORKS)) {
		struct extprof_attach_children *c = malloc(sizeof(*c));

		if (c && !xp_mem_read(pid, blk->children, c, sizeof(*c))) {
			*nkids = c->n < EXTPROF_ATTACH_CHILDREN ? c->n : EXTPROF_ATTACH_CHILDREN;
			*kids = malloc((*nkids ? *nkids : 1) * sizeof(int32_t));
			if (*kids)
				memcpy(*kids, c->pid, *nkids * sizeof(int32_t));
			else
				*nkids = 0;
		}
		free(c);
	}
out:
	xp_trace_release(&tr);
	free(blk);
	return err < 0 ? err : 0;
}

int xp_attach_finish(pid_t pid, uint64_t expect_id, int grace_ms, struct xp_attach_end *out,
		     struct xp_err *e)
{
	int32_t *kids;
	uint32_t nkids;
	int err;

	memset(out, 0, sizeof(*out));
	err = end_one(pid, expect_id, grace_ms, out, &kids, &nkids, e);
	for (uint32_t i = 0; !err && i < nkids; i++) {
		struct xp_attach_end kid;
		struct xp_err ke;
		int32_t *none;
		uint32_t nnone;

		if (kids[i] <= 0 || kids[i] == pid)
			continue;
		memset(&kid, 0, sizeof(kid));
		if (end_one(kids[i], out->id, grace_ms, &kid, &none, &nnone, &ke))
			fprintf(stderr, "extprof: detach: fork child %d: %s\n", (int)kids[i],
				ke.msg);
		else if (kid.execed &&
			 xp_attach_mark_exec(out->dir, out->id, kids[i], out->end_ns, &ke))
			fprintf(stderr, "extprof: detach: %s\n", ke.msg);
		free(none);
	}
	free(kids);
	return err;
}
