// SPDX-License-Identifier: MIT
/*
 * init: the shim's life in the process.  The constructor runs before main,
 * while the process has one thread, in steps:
 *
 *   secure-execution mode?    (setuid, setgid, capabilities) stay out
 *   read the configuration    the EXTPROF_* variables
 *   anything to count?        no function named here: stay out, and say
 *                             nothing if a profiled parent said it all
 *   choose the counter        and what every dump says about the process
 *   calibrate                 the hook's own cost (at the first dlopen that
 *                             brings a function, if none is loaded yet)
 *   install the hooks         patch, seal the stubs, make the directory
 *
 * A clean exit (return from main, exit) finishes every dump; a fork child
 * starts from zero with dumps of its own.  Whatever goes wrong is said in
 * one "extprof:" line and the program runs on: the shim never exits and
 * never changes what the program does.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "arch/arch.h"
#include "core/cancel.h"
#include "resolve/hooks.h"
#include "core/log.h"
#include "core/maps.h"
#include "core/state.h"
#include "count/calibrate.h"
#include "count/counter.h"
#include "host/exec.h"
#include "host/init.h"
#include "host/longjmp.h"
#include "host/sandbox.h"
#include "resolve/unwind_stub.h"
#include "store/process.h"
#include "store/rank.h"
#include "count/thread.h"
#include "store/worker.h"
#include "resolve/spec.h"
#include "steps/step.h"

/* Chains kept per declaration and worker; the last slot is "other". */
#define INIT_CALLER_SLOTS 16

static struct spec_list init_spec;
static const char *init_window; /* EXTPROF_WINDOW, NULL when unset or malformed */
static bool init_pool_ready;	/* the worker pool: once per process */

static const char *init_getenv(const char *name)
{
	return getenv(name);
}

/*
 * Where the EXTPROF_* settings of what to hook and how come from: the
 * environment, or an attachment's block (attach.c).
 */
static init_var_fn init_var = init_getenv;

static bool init_env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

static void init_after_fork_child(void)
{
	uint32_t busy = xp_self.busy;

	if (!xp.enabled)
		return;
	/*
	 * The shim's own calls (getpid, munmap) pass through uncounted: hooked,
	 * they would count into the parent's dumps, and munmap's would write
	 * into the tables it had just unmapped.
	 */
	xp_self.busy = 1;
	/* first: a fork from inside a stepped function leaves the child stepped */
	step_reset_after_fork();
	/* under a seccomp filter the child makes no dump of its own (worker.c) */
	if (!xp.sandboxed)
		process_fill_ids(&xp.meta);
	thread_reset_after_fork();
	xp_self.busy = busy;
	/* EXTPROF_CHILDREN=0: the first process only; a fork child's calls pass */
	if (xp.children_off)
		xp.enabled = false;
}

static void init_finish(void *self)
{
	thread_finish_all(self);
}

static void init_at_exit(void)
{
	if (!xp.enabled || xp.finished)
		return;
	/*
	 * exit() in a child that clone() made with CLONE_VM but not as a
	 * thread (or in a vfork child): the memory, and the dumps, are its
	 * parent's, which counts on (not asked under a seccomp filter: no
	 * system call there).
	 */
	if (!xp.sandboxed && (uint64_t)getpid() != xp.meta.pid)
		return;
	init_finish_here();
}

void init_finish_here(void)
{
	struct xp_thread *t;
	struct cancel_hold h;

	/* the caller's own state, that of a thread without TLS of its own too */
	t = state_self((uint64_t)__builtin_frame_address(0), false);
	/* exit() from inside a stepped function: the dumps are not stepped through */
	step_stop(t ? t : &xp_self);
	/* a cancellation pending does not act in the dumps' writing, which runs
	 * on the shim's stack: exit may be called on a small one */
	cancel_hold(&h, t);
	worker_call_own(t, init_finish, t);
	cancel_release(&h);
}

/*
 * A set-user-ID (or set-group-ID, or file-capability) program runs with
 * rights its user does not have, and the EXTPROF_* variables are the
 * user's: nothing of theirs is read, no file opened, nothing hooked.  One
 * line, on the stderr the loader made sure is open, and only if the user
 * asked for something; it names no value.
 */
static bool init_secure_mode(void)
{
	if (!getauxval(AT_SECURE))
		return false;
	if (init_env_set("EXTPROF_HOOKS") || init_env_set("EXTPROF_SPEC") ||
	    init_env_set("EXTPROF_WINDOW"))
		log_msg("secure-execution mode (a set-user-ID, set-group-ID or capability "
			"program): nothing is hooked");
	return true;
}

static int init_own_visit(const struct maps_entry *e, void *arg)
{
	char *path = arg;
	uint64_t self = (uint64_t)(uintptr_t)&init_own_visit;

	if (self < e->start || self >= e->end)
		return 0;
	if (e->truncated || e->path[0] != '/')
		return -ENOENT;
	strcpy(path, e->path);
	return 1;
}

static int init_parent_visit(const struct maps_entry *e, void *arg)
{
	const char *own = arg;
	size_t n = strlen(own);

	/* " (deleted)": the parent runs a shim rebuilt since it started */
	return !strncmp(e->path, own, n) && (!e->path[n] || !strcmp(e->path + n, " (deleted)"));
}

/*
 * Whether the parent process has this very shim loaded: this process was
 * started by a profiled one (popen, system, a shell's children...), and
 * inherited its variables.  An exec'd image keeps its pid and parent: it
 * is the same process as far as this goes.
 */
static bool init_is_descendant(void)
{
	static int known = -1;
	char own[4200], line[4200], file[64];

	if (known >= 0)
		return known;
	known = 0;
	log_format(file, sizeof(file), "/proc/%d/maps", (int)getppid());
	if (maps_each("/proc/self/maps", line, sizeof(line), init_own_visit, own) == 1)
		known = maps_each(file, line, sizeof(line), init_parent_visit, own) == 1;
	return known;
}

static bool init_is_first(void)
{
	return !init_is_descendant();
}

static void init_read_callers(void)
{
	const char *v = init_var("EXTPROF_CALLERS");
	char *end;
	unsigned long n;

	if (!v || !*v)
		return;
	n = strtoul(v, &end, 10);
	if (*end || n > EXTPROF_CALLERS_MAX_DEPTH) {
		log_msg("EXTPROF_CALLERS=%s: not a number from 0 to %d; callers are off", v,
			EXTPROF_CALLERS_MAX_DEPTH);
		return;
	}
	xp.callers = (uint32_t)n;
}

/* EXTPROF_CHILDREN: 1 (the default) profiles every descendant, 0 the first process only. */
static void init_read_children(void)
{
	const char *v = getenv("EXTPROF_CHILDREN");

	if (!v || !*v || !strcmp(v, "1"))
		return;
	if (!strcmp(v, "0"))
		xp.children_off = true;
	else
		log_msg("EXTPROF_CHILDREN=%s: not 0 or 1; children are profiled", v);
}

static int init_read_hooks(void)
{
	const char *hooks = init_var("EXTPROF_HOOKS"), *spec = init_var("EXTPROF_SPEC");
	const char *window = init_var("EXTPROF_WINDOW");

	if (hooks && *hooks)
		spec_parse_text(&init_spec, hooks, "EXTPROF_HOOKS", 0);
	if (spec && *spec)
		spec_parse_file(&init_spec, spec);
	if (window && *window && spec_check_pattern(window, "EXTPROF_WINDOW"))
		init_window = window;
	if (!init_spec.n && !init_window) {
		log_msg("EXTPROF_HOOKS and EXTPROF_SPEC name no function: nothing is hooked");
		return -ENOENT;
	}
	return 0;
}

/* Step 1: the variables.  -ENOENT when they name nothing for this process to hook. */
static int init_read_config(void)
{
	const char *why;

	if (log_setup(getenv("EXTPROF_LOG"), &why))
		log_msg("EXTPROF_LOG %s: %s; logging to stderr", getenv("EXTPROF_LOG"), why);
	xp.window_decl = UINT32_MAX;
	pthread_mutex_init(&xp.decls_lock, NULL);
	init_read_children();
	/* EXTPROF_CHILDREN=0 in a descendant: not even its entries are read */
	if ((xp.children_off && init_is_descendant()) || init_read_hooks())
		return -ENOENT;
	init_read_callers();
	return 0;
}

/*
 * Step 2: whether this process has anything to count.  Looking costs a
 * walk of the symbol tables; calibrating, which would come next, costs
 * more, and a process started by a profiled one (a shell, a compiler...)
 * mostly has nothing of what the entries name.
 */
static enum hooks_found init_wanted(void)
{
	enum hooks_found found = hooks_any(&init_spec, init_window);

	/* entry by entry, what was not found (held: a descendant drops it) */
	if (found == HOOKS_NONE)
		hooks_say_unmatched();
	return found;
}

static void init_fill_meta(void)
{
	const char *window = init_window, *slash;

	process_fill_meta(&xp.meta);
	rank_fill(&xp.meta);
	xp.meta.counter = xp.counter.kind;
	xp.meta.counter_flags = xp.counter.flags;
	memcpy(xp.meta.counter_name, xp.counter.name, sizeof(xp.meta.counter_name));
	strncpy(xp.meta.counter_unit, xp.counter.unit, sizeof(xp.meta.counter_unit) - 1);
	xp.meta.callers_depth = xp.callers;
	if (window && *window) {
		strncpy(xp.meta.window, window, sizeof(xp.meta.window) - 1);
		xp.meta.flags |= EXTPROF_DUMP_F_WINDOW;
	}
	slash = strrchr(xp.meta.exe_path, '/');
	process_safe_name(xp.file_exe, sizeof(xp.file_exe), slash ? slash + 1 : "");
	process_safe_name(xp.file_host, sizeof(xp.file_host), xp.meta.hostname);
}

/* The thunks a single-step trap may land on, for the steps counter's trap engine. */
static const struct arch_thunks init_thunks = {(uint64_t)xp_thunk_enter, (uint64_t)xp_thunk_exit,
					       (uint64_t)xp_thunk_exit_callers};

/* Step 3: the counter, and what every dump of the process carries. */
static void init_choose_counter(void)
{
	counter_setup(init_var("EXTPROF_COUNTER"), &init_thunks);
	/* a chain would hold the stepped evaluations only, not its own count of them */
	/* single-stepping a sample would give a chain the stepped evaluations only */
	if (xp.callers && xp.counter.kind == EXTPROF_COUNTER_STEPS &&
	    step_cfg.engine == STEP_ENGINE_TRAP) {
		log_msg("EXTPROF_CALLERS=%u: callers are not counted with steps' trap engine; "
			"callers are off",
			xp.callers);
		xp.callers = 0;
	}
	if (xp.callers) {
		xp.meta.caller_slots = INIT_CALLER_SLOTS;
		arch_use_callers_thunk();
	}
	arch_choose_fast_path(&xp.counter, xp.callers != 0, init_window != NULL);
	init_fill_meta();
	arch_probe_cpu();
}

/*
 * Step 4: the hook's own cost, once: at start-up, or, when the entries name
 * only objects not loaded yet, at the dlopen that brings the first (dlopen.c).
 * A process that never hooks anything never calibrates.
 */
int init_calibrate(void)
{
	static int result = 1; /* not yet */
	int err = 0;

	if (result <= 0)
		return result;
	if (!init_pool_ready)
		init_pool_ready = !(err = thread_init());
	if (!err)
		err = calibrate_hook();
	result = err;
	if (err) {
		char why[160];

		log_msg("cannot calibrate the hook: %s; nothing is hooked",
			log_strerror_limit(-err, why, sizeof(why)));
		return err;
	}
	xp.meta.counter_flags = xp.counter.flags;
	return 0;
}

/*
 * EXTPROF_DIR, made absolute now: the program may chdir before a dump is
 * made or finished.  A problem is said here, once; the workers then count
 * in memory without trying again.
 */
static void init_choose_dir(void)
{
	const char *dir = init_var("EXTPROF_DIR"), *why;
	size_t n = 0;
	int err;

	if (!dir || !*dir)
		dir = "extprof.data";
	if (dir[0] != '/') {
		if (!getcwd(xp.dir, sizeof(xp.dir) - 1)) {
			log_msg("EXTPROF_DIR %s: the current directory: %s; counting without dumps",
				dir, log_strerror(errno));
			return;
		}
		n = strlen(xp.dir);
		if (xp.dir[n - 1] != '/')
			xp.dir[n++] = '/';
	}
	if (n + strlen(dir) >= sizeof(xp.dir) - 128) {
		log_msg("EXTPROF_DIR %s: the path is too long; counting without dumps", dir);
		return;
	}
	strcpy(xp.dir + n, dir);
	err = process_make_dir(xp.dir,
			       init_var("EXTPROF_SHARED_DIR") &&
				       !strcmp(init_var("EXTPROF_SHARED_DIR"), "1"),
			       &why);
	if (err) {
		log_msg("EXTPROF_DIR %s: %s; counting without dumps", xp.dir, why);
		return;
	}
	xp.dir_ok = true;
}

/*
 * Step 5: patch (each patch written here or, unless NULL, handed to @keep),
 * seal, and be ready.  Returns whether anything was hooked.
 */
static bool init_install_hooks(hooks_keep_fn keep)
{
	int hooked;

	/* looked up now: a signal handler may longjmp or exec, not look them up */
	longjmp_resolve();
	exec_resolve();
	cancel_resolve();
	unwind_stub_resolve();
	sandbox_resolve();
	hooked = hooks_install(&init_spec, init_window, keep);
	/* nothing hooked and nothing that a dlopen could bring: stay out */
	if (hooked <= 0 && !xp.meta.late_decls)
		return false;
	static bool atfork_set;
	arch_seal_code();
	/* the stubs' unwind rows, if libgcc's unwinder is loaded already (C++) */
	unwind_stub_publish();
	init_choose_dir();
	/* once: an attachment after another comes here again */
	if (!atfork_set)
		pthread_atfork(NULL, NULL, init_after_fork_child);
	atfork_set = true;
	xp.enabled = true;
	return hooked > 0;
}

/*
 * The start-up steps for "extprof attach", with the settings @var gives
 * (by their EXTPROF_* names, from the attachment's block), then with the
 * entries handed to @keep, for the tracer to write.  Calibrated every time:
 * an attachment may count with another counter than the one before.
 * Returns 0 when something was hooked, else -errno (said).
 */
int init_start(init_var_fn var, hooks_keep_fn keep)
{
	int err = 0;

	init_var = var;
	init_spec.n = 0;
	init_window = NULL;
	xp.window_decl = UINT32_MAX;
	pthread_mutex_init(&xp.decls_lock, NULL);
	if (init_read_hooks())
		return -ENOENT;
	init_read_callers();
	init_choose_counter();
	if (!init_pool_ready)
		init_pool_ready = !(err = thread_init());
	if (!err)
		err = calibrate_hook();
	if (err) {
		char why[160];

		log_msg("cannot calibrate the hook: %s; nothing is hooked",
			log_strerror_limit(-err, why, sizeof(why)));
		return err;
	}
	xp.meta.counter_flags = xp.counter.flags;
	return init_install_hooks(keep) ? 0 : -ENOENT;
}

bool init_preloaded(void)
{
	enum hooks_found found;
	bool hooked = false;

	if (init_secure_mode())
		return false;
	/* a descendant that hooks nothing says nothing: its lines wait */
	log_hold(init_is_first);
	if (!init_read_config() && (found = init_wanted()) != HOOKS_NONE) {
		init_choose_counter();
		if (found == HOOKS_LATER || !init_calibrate())
			hooked = init_install_hooks(NULL);
	}
	log_release(hooked || !init_is_descendant());
	return xp.enabled;
}

/*
 * exit() and a return from main end here, after the program's own atexit
 * handlers and destructors (the preloaded shim was initialised first, so it
 * is finalised last): their hooked calls count too.
 */
__attribute__((destructor)) static void fini_shim(void)
{
	init_at_exit();
}
