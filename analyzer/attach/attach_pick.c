// SPDX-License-Identifier: MIT
/*
 * attach_pick: which thread may run a remote call, and when no thread is
 * inside the shim.
 *
 * dlopen and begin take the loader's locks and malloc's: a thread stopped
 * while it held one would deadlock on it in the call.  So the thread is
 * one whose pc is
 *
 *   - not in ld.so, and holding none of the loader's recursive locks
 *     (their owner fields, found in _rtld_global);
 *   - not in libc, unless it waits in a system call that holds nothing
 *     of libc's (futex, read, poll, nanosleep, ...): a thread in malloc
 *     holds its arena's lock;
 *   - not in the shim or its stubs (a later attachment);
 *
 * with room on its stack; the other threads run during the call, so a lock
 * one of them holds is let go.  A thread in the program's own code comes
 * first, then one waiting in a system call.  None: the caller lets the
 * threads run a moment and asks again.
 *
 * Ending the dumps needs every thread out of the shim: no pc in its text
 * or its stubs, its per-thread "busy" word 0 (a slow path through libc),
 * and no signal handler running on top of either: the pc a handler will
 * return to is in the signal frame the kernel left on the thread's stack,
 * found by its return address, glibc's __restore_rt (an interrupted stub
 * would go on writing into a dump that end has finished).  A thread inside
 * a handler is not picked for dlopen either: the handler may have
 * interrupted malloc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach/attach.h"

#define PICK_STACK_ROOM (256u * 1024u) /* dlopen and begin use a few tens of KiB */

int xp_layout_read(pid_t pid, struct xp_layout *l, struct xp_err *e)
{
	char link[64], exe[4096];
	const char *base;
	ssize_t n;
	int err;

	memset(l, 0, sizeof(*l));
	err = xp_maps_read(pid, &l->maps, e);
	if (err)
		return err;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)xp_proc_view(pid));
	n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	base = strrchr(exe, '/');
	if (base && base[1])
		xp_maps_object(&l->maps, base + 1, &l->exe);
	xp_maps_object(&l->maps, "libc.so.6", &l->libc);
	xp_maps_object(&l->maps, "ld-linux-x86-64.so", &l->ld);
	xp_maps_object(&l->maps, "libextprof.so", &l->shim);
	return 0;
}

void xp_layout_free(struct xp_layout *l)
{
	xp_maps_free(&l->maps);
}

static bool in_object(const struct xp_object *o, uint64_t pc)
{
	return o->found && pc >= o->text_lo && pc < o->text_hi;
}

/* System calls whose waiters hold nothing of libc's. */
static bool pick_safe_syscall(long nr)
{
	static const long safe[] = {
		SYS_futex,	 SYS_nanosleep,	    SYS_clock_nanosleep, SYS_read,
		SYS_poll,	 SYS_ppoll,	    SYS_select,		 SYS_pselect6,
		SYS_epoll_wait,	 SYS_epoll_pwait,   SYS_wait4,		 SYS_waitid,
		SYS_pause,	 SYS_rt_sigsuspend, SYS_rt_sigtimedwait, SYS_accept,
		SYS_accept4,	 SYS_recvfrom,	    SYS_recvmsg,	 SYS_msgrcv,
		SYS_sched_yield,
	};

	for (size_t i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
		if (safe[i] == nr)
			return true;
	return false;
}

/*
 * The owners of the loader's recursive locks (_dl_load_lock and the two
 * after it in _rtld_global): found as three recursive pthread mutexes in a
 * row, so that no glibc layout is assumed.  0 where unknown.
 */
static void pick_loader_owners(pid_t pid, const struct xp_layout *l, pid_t owners[3])
{
	enum { MUTEX = 40, KIND = 16, OWNER = 8, SCAN = 8192 };
	uint64_t addr;
	struct xp_err e;
	uint8_t *buf;

	memset(owners, 0, 3 * sizeof(pid_t));
	if (!l->ld.found || xp_object_symbol(pid, &l->ld, "_rtld_global", &addr, &e) ||
	    !(buf = malloc(SCAN)))
		return;
	if (!xp_mem_read(pid, addr, buf, SCAN)) {
		for (size_t o = 0; o + 3 * MUTEX <= SCAN; o += 8) {
			int k[3];

			for (int i = 0; i < 3; i++)
				memcpy(&k[i], buf + o + i * MUTEX + KIND, sizeof(int));
			/* PTHREAD_MUTEX_RECURSIVE_NP, alone or with the elision bits off */
			if ((k[0] & 0x7f) == 1 && (k[1] & 0x7f) == 1 && (k[2] & 0x7f) == 1) {
				for (int i = 0; i < 3; i++)
					memcpy(&owners[i], buf + o + i * MUTEX + OWNER,
					       sizeof(pid_t));
				break;
			}
		}
	}
	free(buf);
}

/*
 * glibc's __restore_rt in @pid: the code "mov $15,%rax; syscall" (rt_sigreturn)
 * in libc's text.  Found once per libc mapping.
 */
uint64_t xp_pick_restorer(pid_t pid, const struct xp_layout *l)
{
	static const uint8_t code[9] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
	static pid_t cached_pid;
	static uint64_t cached_base, cached;
	size_t len;
	uint8_t *text;

	if (!l->libc.found || !l->libc.text_hi)
		return 0;
	if (cached_pid == pid && cached_base == l->libc.base)
		return cached;
	len = l->libc.text_hi - l->libc.text_lo;
	text = len < (64u << 20) ? malloc(len) : NULL;
	cached = 0;
	if (text && !xp_mem_read(pid, l->libc.text_lo, text, len)) {
		uint8_t *hit = memmem(text, len, code, sizeof(code));

		if (hit)
			cached = l->libc.text_lo + (uint64_t)(hit - text);
	}
	free(text);
	cached_pid = pid;
	cached_base = l->libc.base;
	return cached;
}

int xp_pick_handler_pcs(pid_t pid, const struct xp_layout *l, uint64_t sp, uint64_t *pcs, int max)
{
	enum { SCAN = 1u << 20 };
	const uint64_t at_pc = xp_arch_sigframe_pc;
	const struct xp_map *m = xp_maps_at(&l->maps, sp);
	uint64_t restorer = xp_pick_restorer(pid, l), lo = sp & ~7ull;
	size_t len;
	uint8_t *buf;
	int n = 0;

	if (!restorer || !m)
		return 0;
	len = m->hi - lo < SCAN ? (size_t)(m->hi - lo) : SCAN;
	buf = malloc(len);
	if (!buf || xp_mem_read(pid, lo, buf, len)) {
		free(buf);
		return 0;
	}
	for (size_t off = 0; off + at_pc + 8 <= len && n < max; off += 8) {
		uint64_t v;

		memcpy(&v, buf + off, 8);
		if (v == restorer)
			memcpy(&pcs[n++], buf + off + at_pc, 8);
	}
	free(buf);
	return n;
}

/* Whether a thread's stack has room below @sp for the call. */
static bool pick_stack_room(const struct xp_layout *l, uint64_t sp)
{
	const struct xp_map *m = xp_maps_at(&l->maps, sp - XP_ARCH_STACK_GAP);

	if (!m || m->perms[0] != 'r' || m->perms[1] != 'w')
		return false;
	return !strcmp(m->path, "[stack]") || sp - m->lo >= PICK_STACK_ROOM;
}

static bool pick_in_ranges(const struct extprof_attach_range *r, uint32_t n, uint64_t pc)
{
	for (uint32_t i = 0; i < n; i++)
		if (pc >= r[i].lo && pc < r[i].hi)
			return true;
	return false;
}

enum pick_rank {
	PICK_UNSAFE = 0,
	PICK_ASLEEP,  /* in a sleep the way back finishes (xp_arch_sleeps): it waits for it */
	PICK_WAITING, /* waiting in a system call that holds nothing of libc's */
	PICK_USER,    /* in the program's own code */
};

static const char *const pick_rank_name[] = {
	[PICK_UNSAFE] = "",
	[PICK_ASLEEP] = "asleep in a system call",
	[PICK_WAITING] = "waiting in a system call",
	[PICK_USER] = "in its own code",
};

/* EXTPROF_TEST_ATTACH_PICK=user|syscall|sleep, for the tests: only that kind. */
static enum pick_rank pick_test_only(enum pick_rank rank)
{
	static const char *const kinds[] = {[PICK_UNSAFE] = "",
					    [PICK_ASLEEP] = "sleep",
					    [PICK_WAITING] = "syscall",
					    [PICK_USER] = "user"};
	const char *only = getenv("EXTPROF_TEST_ATTACH_PICK");

	if (!rank || !only || !*only)
		return rank;
	return !strcmp(only, kinds[rank]) ? rank : PICK_UNSAFE;
}

static enum pick_rank pick_rank(pid_t pid, const struct xp_layout *l, const struct xp_arch_state *s,
				const pid_t owners[3], pid_t tid, enum xp_pick_for why)
{
	uint64_t pc = xp_arch_pc(s), handler_pc;
	long nr = xp_arch_syscall(s);
	enum pick_rank waiting = xp_arch_sleeps(s) ? PICK_ASLEEP : PICK_WAITING;

	if (!pick_stack_room(l, xp_arch_sp(s)) || (pc >= l->gate_lo && pc < l->gate_hi))
		return PICK_UNSAFE;
	if (why == XP_PICK_LOAD && xp_pick_handler_pcs(pid, l, xp_arch_sp(s), &handler_pc, 1))
		return PICK_UNSAFE;
	if (why == XP_PICK_END)
		return pick_test_only(nr >= 0 ? waiting : PICK_USER);
	if (in_object(&l->ld, pc) || in_object(&l->shim, pc))
		return PICK_UNSAFE;
	if (owners[0] == tid || owners[1] == tid || owners[2] == tid)
		return PICK_UNSAFE;
	if (nr >= 0)
		return pick_test_only(pick_safe_syscall(nr) ? waiting : PICK_UNSAFE);
	return pick_test_only(in_object(&l->libc, pc) ? PICK_UNSAFE : PICK_USER);
}

/*
 * Whether @t is stopped at a system call's entry (a borrowed thread still
 * traced with PTRACE_SYSCALL on its way back): a call made from there
 * would skip that system call.
 */
static bool pick_before_syscall(const struct xp_tthread *t)
{
	struct __ptrace_syscall_info si;

	memset(&si, 0, sizeof(si));
	return t->stop == XP_TS_SYSCALL &&
	       (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(si), &si) <= 0 ||
		si.op != PTRACE_SYSCALL_INFO_EXIT);
}

struct xp_tthread *xp_pick_thread(struct xp_trace *tr, const struct xp_layout *l,
				  enum xp_pick_for why, struct xp_arch_state *saved)
{
	struct xp_tthread *best = NULL;
	struct xp_arch_state *s = malloc(sizeof(*s));
	pid_t owners[3] = {0, 0, 0};
	enum pick_rank best_rank = PICK_UNSAFE;

	if (!s)
		return NULL;
	if (why == XP_PICK_LOAD)
		pick_loader_owners(tr->pid, l, owners);
	for (size_t i = 0; i < tr->n; i++) {
		struct xp_tthread *t = &tr->t[i];
		enum pick_rank rank;
		struct xp_err e;

		/* a thread with a signal to take, or stopped by one, stays as it is */
		if (t->gone || (t->stop != XP_TS_INTERRUPT && t->stop != XP_TS_SYSCALL) || t->sig ||
		    pick_before_syscall(t))
			continue;
		if (xp_arch_save(t->tid, s, &e))
			continue;
		rank = pick_rank(tr->pid, l, s, owners, t->tid, why);
		if (rank > best_rank) {
			best = t;
			best_rank = rank;
			*saved = *s;
		}
	}
	free(s);
	/* for the tests that pick the kind: which thread it was */
	if (best && getenv("EXTPROF_TEST_ATTACH_PICK") && *getenv("EXTPROF_TEST_ATTACH_PICK"))
		fprintf(stderr, "extprof: attach: test: calls in thread %d (%s)\n", (int)best->tid,
			pick_rank_name[best_rank]);
	return best;
}

/* Does a signal handler on the thread interrupt the shim or a stub? */
static bool pick_handler_inside(pid_t pid, const struct xp_layout *l, const struct xp_arch_state *s,
				const struct extprof_attach_range *r, uint32_t n)
{
	uint64_t pcs[16];
	int k = xp_pick_handler_pcs(pid, l, xp_arch_sp(s), pcs, 16);

	for (int i = 0; i < k; i++)
		if (in_object(&l->shim, pcs[i]) || pick_in_ranges(r, n, pcs[i]))
			return true;
	return false;
}

int xp_pick_quiescent(struct xp_trace *tr, const struct xp_layout *l,
		      const struct extprof_attach_block *blk)
{
	struct extprof_attach_range *r = NULL;
	uint32_t n = blk->nranges;
	int quiet = 1;

	if (n) {
		r = calloc(n, sizeof(*r));
		if (!r)
			return -ENOMEM;
		if (xp_mem_read(tr->pid, blk->ranges, r, n * sizeof(*r))) {
			free(r);
			return -errno;
		}
	}
	for (size_t i = 0; i < tr->n && quiet; i++) {
		struct xp_tthread *t = &tr->t[i];
		struct xp_arch_state *s;
		uint64_t busy = 0;
		struct xp_err e;

		if (t->gone)
			continue;
		s = malloc(sizeof(*s));
		if (!s || xp_arch_save(t->tid, s, &e)) {
			free(s);
			quiet = s ? 0 : -ENOMEM;
			break;
		}
		if (in_object(&l->shim, xp_arch_pc(s)) || pick_in_ranges(r, n, xp_arch_pc(s)))
			quiet = 0;
		else if (pick_handler_inside(tr->pid, l, s, r, n))
			quiet = 0;
		else if (!xp_mem_read(tr->pid,
				      xp_arch_tp(s) + (uint64_t)blk->self_tpoff + blk->busy_off,
				      &busy, sizeof(busy)) &&
			 busy)
			quiet = 0;
		free(s);
	}
	free(r);
	return quiet;
}
