/* SPDX-License-Identifier: MIT */
/*
 * attach: "extprof attach" and "extprof detach", the tracer's side
 * (docs/attach.md).  The parts, each in a file of its own:
 *
 *   attach_proc.c    what /proc says of the process: status, maps, threads
 *   attach_elf.c     symbols and kind of the ELF files it maps
 *   attach_check.c   the refusals, before anything is touched
 *   attach_trace.c   ptrace: every thread seized, stopped, resumed, let go
 *   attach_x86_64.c  registers, and remote calls a thread finishes by
 *                    itself (attach_arch.h)
 *   attach_pick.c    which thread may be hijacked, and when none is inside
 *                    the shim
 *   attach_gate.c    where the remote calls' gate goes in the process
 *   attach_call.c    a thread borrowed for remote calls
 *   attach_block.c   the shim's block: found, read back, its log said
 *   attach_load.c    the shim loaded, begin called, the entries written
 *   attach_end.c     the entries put back, end called, children, exec
 *   attach_dumps.c   the attachment's dumps in the directory
 *   cmd_attach.c     the two commands
 */
#ifndef XP_ATTACH_H
#define XP_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "attach/attach_arch.h"
#include "read/dir_list.h"
#include "util/err.h"
#include "extprof/attach.h"

/* ---- attach_proc.c -------------------------------------------------------- */

/* One line of /proc/PID/maps. */
struct xp_map {
	uint64_t lo, hi, off;
	char perms[5];
	char *path; /* "" for an anonymous mapping */
};

struct xp_maps {
	struct xp_map *v;
	size_t n, cap;
};

/* /proc/@pid/maps into @m: 0, or -errno with @e set. */
int xp_maps_read(pid_t pid, struct xp_maps *m, struct xp_err *e);
/* Free what xp_maps_read filled in. */
void xp_maps_free(struct xp_maps *m);
/* The mapping that holds @addr, or NULL. */
const struct xp_map *xp_maps_at(const struct xp_maps *m, uint64_t addr);

/* A loaded ELF object, as the maps show it. */
struct xp_object {
	char path[4096]; /* as the process names it */
	uint64_t base;	 /* the mapping at file offset 0 */
	uint64_t text_lo, text_hi;
	bool found;
};

/* The first object whose basename starts with @prefix ("libc.so.6"). */
void xp_maps_object(const struct xp_maps *m, const char *prefix, struct xp_object *o);

/* What /proc/PID/status says. */
struct xp_pstatus {
	char name[64];
	char state; /* R, S, D, T, t, Z, X */
	pid_t ppid;
	pid_t tracer;
	uid_t uid[4]; /* real, effective, saved, fs */
	gid_t gid[4];
	uint64_t cap_eff;
	uint64_t sig_pending; /* the thread's own (SigPnd) */
	uint64_t shd_pending; /* the process's (ShdPnd) */
};

/* /proc/@pid/status, or /proc/@pid/task/@tid/status when @tid > 0. */
int xp_pstatus_read(pid_t pid, pid_t tid, struct xp_pstatus *s);
/* The id under which /proc shows @pid's memory: @pid, or a live thread's if its leader ended. */
pid_t xp_proc_view(pid_t pid);
/* Whether some thread of @pid is still alive (not a zombie). */
bool xp_proc_alive(pid_t pid);
/* The thread ids of @pid, sorted; the caller frees *@tids. */
int xp_tasks_list(pid_t pid, pid_t **tids, size_t *n);
/* /proc/@pid/stat's starttime (clock ticks after boot): a pid's identity. */
uint64_t xp_proc_starttime(pid_t pid);

/* Read and write the process's memory (/proc/PID/mem: also its read-only code). */
int xp_mem_read(pid_t pid, uint64_t addr, void *buf, size_t len);
/* Write @len bytes at @addr of @pid (its code too): 0 or -errno. */
int xp_mem_write(pid_t pid, uint64_t addr, const void *buf, size_t len);

/* ---- attach_elf.c ----------------------------------------------------------- */

struct xp_elf_kind {
	int elf_class; /* ELFCLASS32, ELFCLASS64 */
	int machine;   /* EM_X86_64, ... */
	bool dynamic;  /* has PT_INTERP */
	char interp[256];
};

/* What the ELF file @path is (class, machine, dynamic or not): 0 or -errno with @e set. */
int xp_elf_kind(const char *path, struct xp_elf_kind *k, struct xp_err *e);
/* @name's address in object @o as @pid has it loaded: 0, or -errno with @e set. */
int xp_object_symbol(pid_t pid, const struct xp_object *o, const char *name, uint64_t *addr,
		     struct xp_err *e);

/* ---- attach_check.c --------------------------------------------------------- */

/*
 * Whether extprof may attach to @pid: 0, or -errno with the refusal in @e,
 * one line.  Nothing of the process is touched.  @detach: for "extprof
 * detach" (the process must carry an attachment instead).
 */
int xp_attach_check(pid_t pid, bool detach, struct xp_err *e);

/* After PTRACE_SEIZE failed with @err: the likeliest reason, in @e. */
int xp_attach_explain_seize(pid_t pid, int err, struct xp_err *e);

/* ---- attach_trace.c --------------------------------------------------------- */

enum xp_tstop {
	XP_TS_RUNNING = 0,
	XP_TS_INTERRUPT, /* our PTRACE_INTERRUPT, a new thread's first stop, an event */
	XP_TS_SIGNAL,	 /* a fault in a call: @sig, passed on or not at the next resume */
	XP_TS_GROUP,	 /* a stop signal stopped the process */
	XP_TS_SYSCALL,	 /* at a system call's entry or exit (PTRACE_SYSCALL) */
};

struct xp_tthread {
	pid_t tid;
	enum xp_tstop stop;
	int sig;       /* to deliver when it goes on (XP_TS_SIGNAL) */
	bool asked;    /* a PTRACE_INTERRUPT is on its way */
	bool calling;  /* borrowed for a call: its faults are reaped, not passed on */
	bool syscalls; /* last let go with PTRACE_SYSCALL, and to go on so */
	bool gone;
};

struct xp_trace {
	pid_t pid;
	struct xp_tthread *t;
	size_t n, cap;
	bool exited;	 /* every thread gone */
	bool execed;	 /* a thread exec'd: the image is another */
	bool group_stop; /* a stop signal came meanwhile: it stays stopped after */
};

/*
 * Seize every thread of @pid (new ones follow by PTRACE_O_TRACECLONE) and
 * stop them all.  0, or -errno with @e set; nothing is left seized then.
 */
int xp_trace_attach(struct xp_trace *tr, pid_t pid, struct xp_err *e);
/* Stop every thread not stopped: 0, or -errno (the process ended, exec'd). */
int xp_trace_stop_all(struct xp_trace *tr, struct xp_err *e);
/* Let every stopped thread go on but @except (0: none), with the signals kept for it. */
int xp_trace_resume_all(struct xp_trace *tr, pid_t except);
/* Let @t go on (PTRACE_CONT; PTRACE_SYSCALL with @syscalls), with the signal kept for it. */
int xp_trace_resume(struct xp_trace *tr, struct xp_tthread *t, bool syscalls);
/*
 * Wait until @t stops (any reason; 0 with @t->stop set) or @timeout_ms
 * passes (-ETIMEDOUT), taking care of every other thread's events meanwhile
 * (signals passed on to those running, new threads let go if @others_run).
 * -ESRCH when the process ended or exec'd.
 */
int xp_trace_wait(struct xp_trace *tr, struct xp_tthread *t, int timeout_ms, bool others_run);
/*
 * Let every thread go for good: each stopped first, then detached with its
 * signal; one killed meanwhile (an exec, an exit) reaped (xp_trace_reap).
 */
void xp_trace_release(struct xp_trace *tr);
/*
 * Let go of every thread of @pid still traced by us, reaping each that
 * exited (an exec waits for that), for up to @timeout_ms: how many are left.
 */
int xp_trace_reap(pid_t pid, int timeout_ms);
/* The thread @tid of @tr (the array moves as threads come): NULL when gone. */
struct xp_tthread *xp_trace_thread(struct xp_trace *tr, pid_t tid);
/* Wait for events for @ms, passing signals on: the threads run meanwhile. */
void xp_trace_run_for(struct xp_trace *tr, int ms);
/* Before each change made to the process: EXTPROF_TEST_ATTACH_KILL_AT's point (tests). */
void xp_trace_test_point(void);
/* How many changes were made so far (the tests choose their kill points from it). */
long xp_trace_test_changes(void);
/* The number in the environment variable @name, 0 when unset or empty (tests). */
long xp_trace_test_env(const char *name);
/* Create the file EXTPROF_TEST_ATTACH_TOUCH names, then let 300 ms pass (tests). */
void xp_trace_test_touch(void);

/* ---- attach_pick.c ---------------------------------------------------------- */

/* The process's layout that the picking needs, read with every thread stopped. */
struct xp_layout {
	struct xp_maps maps;
	struct xp_object exe, libc, ld, shim;
	uint64_t gate_lo, gate_hi; /* the calls' gate: no thread inside it is borrowed */
};

/* Read @pid's maps and find its executable, libc, loader and shim: 0 or -errno with @e set. */
int xp_layout_read(pid_t pid, struct xp_layout *l, struct xp_err *e);
/* Free what xp_layout_read filled in. */
void xp_layout_free(struct xp_layout *l);

enum xp_pick_for {
	XP_PICK_LOAD, /* dlopen and begin, the other threads running */
	XP_PICK_END,  /* end, every other thread stopped */
};

/*
 * A stopped thread that may run a remote call: one at a safe point (not in
 * the loader, not inside libc unless waiting in a system call that holds
 * nothing, room on its stack), its state saved in @saved.  NULL when none
 * is.  EXTPROF_TEST_ATTACH_PICK=user|syscall takes only that kind (tests).
 */
struct xp_tthread *xp_pick_thread(struct xp_trace *tr, const struct xp_layout *l,
				  enum xp_pick_for why, struct xp_arch_state *saved);

/* glibc's __restore_rt in @pid (the restorer of its signal frames), or 0. */
uint64_t xp_pick_restorer(pid_t pid, const struct xp_layout *l);

/*
 * The pcs that the signal handlers running on a thread (stack pointer @sp)
 * will return to, from their signal frames, most recent first; at most
 * @max.  Returns how many.
 */
int xp_pick_handler_pcs(pid_t pid, const struct xp_layout *l, uint64_t sp, uint64_t *pcs, int max);

/*
 * Whether no thread is inside the shim's own code, its stubs or its
 * bookkeeping (@blk's ranges and per-thread word): 1 yes, 0 no, <0 error.
 */
int xp_pick_quiescent(struct xp_trace *tr, const struct xp_layout *l,
		      const struct extprof_attach_block *blk);

/* ---- attach_load.c ---------------------------------------------------------- */

struct xp_attach_cfg {
	const char *hooks;   /* comma-joined -H entries, or NULL */
	const char *spec;    /* absolute, or NULL */
	const char *counter; /* or NULL */
	const char *dir;     /* absolute */
	const char *shim;    /* absolute path of libextprof.so */
	bool follow_forks;
};

/* What an attachment is, once made. */
struct xp_attachment {
	pid_t pid;
	uint64_t id;
	uint64_t block; /* extprof_attach's address in the process */
	uint32_t npatches;
	int64_t start_ns;
};

/*
 * Load the shim into @pid (seized and stopped in @tr), prepare the hooks
 * of @cfg and write their entries.  The shim's messages go to our stderr.
 * 0, or -errno with @e set (the process is as it was, but for the shim
 * being loaded).
 */
int xp_attach_load(struct xp_trace *tr, const struct xp_attach_cfg *cfg, struct xp_attachment *a,
		   struct xp_err *e);

/* ---- attach_gate.c ---------------------------------------------------------- */

/* The gate in the process: where, and the bytes it covers. */
struct xp_gate {
	uint64_t at; /* 0: not there */
	size_t len;
	bool found; /* there already: left for a thread that may still be on its way back */
	uint8_t orig[256];
};

/*
 * Where the gate goes after a code segment of @pid (libc's first), and the
 * bytes there (@l->gate_lo and gate_hi set too): 0, or -errno with @e set.
 */
int xp_gate_find(pid_t pid, struct xp_layout *l, struct xp_gate *g, struct xp_err *e);
/* Write the gate found: 0, or -errno with @e set. */
int xp_gate_put(pid_t pid, struct xp_gate *g, struct xp_err *e);
/*
 * Put back the bytes the gate covers, unless a thread of @tr may still be
 * in it: one of ours on its way back, or (a gate found there) one we
 * cannot see stopped outside it.
 */
void xp_gate_take(struct xp_trace *tr, struct xp_gate *g);

/* ---- attach_call.c ---------------------------------------------------------- */

/* A thread borrowed for remote calls, each of which it finishes by itself. */
struct xp_hijack {
	pid_t tid;
	struct xp_arch_state saved; /* as it was */
	struct xp_arch_calls calls;
	struct xp_gate gate;
	bool away;    /* a call was started: the thread is not back yet */
	bool at_done; /* stopped at a call's end, where the next may start */
};

/*
 * Borrow a thread for calls (@l re-read while none is at a safe point:
 * the threads run a moment between looks, about 2 s in all), put the gate
 * in and lay the calls out.  With @errno_location, each call keeps the
 * thread's errno.  0, or -errno with @e set.
 */
int xp_hijack_begin(struct xp_trace *tr, struct xp_layout *l, enum xp_pick_for why,
		    uint64_t errno_location, struct xp_hijack *h, struct xp_err *e);
/*
 * Call @fn(@args) in the borrowed thread, its signals blocked; @data (@len
 * bytes, at most XP_ARCH_CALL_DATA) is put on its stack first and its
 * address passed as argument @data_arg.  The other threads run meanwhile
 * if @others_run.  @ret: the return value.  0, or -errno with @e set.
 * Whatever happens to us, the thread finishes and comes back by itself.
 */
int xp_hijack_call(struct xp_trace *tr, struct xp_hijack *h, uint64_t fn, uint64_t *args, int nargs,
		   const void *data, size_t len, int data_arg, bool others_run, uint64_t *ret,
		   struct xp_err *e);
/*
 * Give the thread back: it goes its way back (a system call it was in
 * finished on the way, if need be), and the gate's bytes go back once it
 * is out; a thread still asleep in that system call after a while goes
 * on by itself, and the gate stays for it (a line says so).
 */
void xp_hijack_end(struct xp_trace *tr, struct xp_hijack *h);

/* ---- attach_block.c --------------------------------------------------------- */

/* Where @pid's shim keeps its block: 0 when it carries none (or -errno). */
int xp_block_find(pid_t pid, const struct xp_layout *l, uint64_t *addr, struct xp_err *e);
/* Read the shim's block at @addr of @pid: 0, or -errno (another version: -EPROTO). */
int xp_block_read(pid_t pid, uint64_t addr, struct extprof_attach_block *blk);
/* Print the lines of @blk's log from @from on, as "extprof: ..." on stderr; returns the end. */
uint32_t xp_block_say(const struct extprof_attach_block *blk, uint32_t from);

/* ---- attach_end.c ----------------------------------------------------------- */

/* How an attachment ended. */
struct xp_attach_end {
	uint64_t id;
	char dir[4096];
	bool gone;    /* the process had ended (its dumps say how) */
	bool execed;  /* it exec'd: the image that was attached is gone */
	bool already; /* another detach ended it first */
	int64_t end_ns;
};

/*
 * End the attachment of @pid: stop it, put every entry back, let the
 * activations in flight return (a grace of @grace_ms), have the shim
 * finish its dumps, let go; then the same for the fork children that
 * followed it.  @expect_id: the attachment to end (0: whichever it is).
 * 0, or -errno with @e set.
 */
int xp_attach_finish(pid_t pid, uint64_t expect_id, int grace_ms, struct xp_attach_end *out,
		     struct xp_err *e);

/* ---- attach_dumps.c --------------------------------------------------------- */

/* The dumps in @dir made by attachment @id (and pid @pid if not 0). */
int xp_attach_dumps(const char *dir, uint64_t id, pid_t pid, struct xp_names *out,
		    struct xp_err *e);
/* Activations in flight in those dumps (the sum of their decls' open). */
uint64_t xp_attach_in_flight(const char *dir, uint64_t id, pid_t pid);
/* Mark those dumps as ended by exec (their open activations abandoned). */
int xp_attach_mark_exec(const char *dir, uint64_t id, pid_t pid, int64_t when, struct xp_err *e);

#endif
