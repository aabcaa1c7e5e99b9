// SPDX-License-Identifier: MIT
/*
 * init: the shim's life in the process.  The constructor runs before main,
 * while the process has one thread: it reads the EXTPROF_* variables,
 * chooses the counter, calibrates the hook, patches the functions and
 * seals the stubs.  A clean exit (return from main, exit) finishes every
 * dump; a fork child starts from zero with dumps of its own.  Whatever goes
 * wrong is said in one "extprof:" line and the program runs on: the shim
 * never exits and never changes what the program does.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "hooks.h"
#include "log.h"
#include "shim.h"
#include "spec.h"

/* Chains kept per declaration and worker; the last slot is "other". */
#define INIT_CALLER_SLOTS 16

struct xp_state xp;
static struct spec_list init_spec;

static void init_after_fork_child(void)
{
	if (!xp.enabled)
		return;
	process_fill_ids(&xp.meta);
	worker_reset_after_fork();
}

static void init_at_exit(void)
{
	if (!xp.enabled || xp.finished)
		return;
	worker_finish_all();
}

static void init_read_callers(void)
{
	const char *v = getenv("EXTPROF_CALLERS");
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

static int init_read_hooks(void)
{
	const char *hooks = getenv("EXTPROF_HOOKS"), *spec = getenv("EXTPROF_SPEC");

	if (hooks && *hooks)
		spec_parse_text(&init_spec, hooks, "EXTPROF_HOOKS", 0);
	if (spec && *spec)
		spec_parse_file(&init_spec, spec);
	if (!init_spec.n && !(getenv("EXTPROF_WINDOW") && *getenv("EXTPROF_WINDOW"))) {
		log_msg("EXTPROF_HOOKS and EXTPROF_SPEC name no function: nothing is hooked");
		return -ENOENT;
	}
	return 0;
}

static void init_fill_meta(void)
{
	const char *window = getenv("EXTPROF_WINDOW");

	process_fill_meta(&xp.meta);
	xp.meta.counter = xp.counter.kind;
	xp.meta.counter_flags = xp.counter.flags;
	memcpy(xp.meta.counter_name, xp.counter.name, sizeof(xp.meta.counter_name));
	strncpy(xp.meta.counter_unit, xp.counter.unit, sizeof(xp.meta.counter_unit) - 1);
	xp.meta.callers_depth = xp.callers;
	if (window && *window) {
		strncpy(xp.meta.window, window, sizeof(xp.meta.window) - 1);
		xp.meta.flags |= EXTPROF_DUMP_F_WINDOW;
	}
}

static void init_choose_dir(void)
{
	const char *dir = getenv("EXTPROF_DIR");
	int err;

	if (!dir || !*dir)
		dir = "extprof.data";
	if (strlen(dir) >= sizeof(xp.dir) - 128) {
		log_msg("EXTPROF_DIR is too long; counting without dumps");
		return;
	}
	strcpy(xp.dir, dir);
	err = process_make_dir(dir);
	if (err)
		log_msg("EXTPROF_DIR %s: %s; counting without dumps", dir, log_strerror(-err));
}

__attribute__((constructor)) static void init_shim(void)
{
	const char *why;
	int err;

	if (log_setup(getenv("EXTPROF_LOG"), &why))
		log_msg("EXTPROF_LOG %s: %s; logging to stderr", getenv("EXTPROF_LOG"), why);
	xp.window_decl = UINT32_MAX;
	pthread_mutex_init(&xp.decls_lock, NULL);
	if (init_read_hooks())
		return;
	init_read_callers();
	if (xp.callers) {
		xp.meta.caller_slots = INIT_CALLER_SLOTS;
		arch_use_callers_thunk();
	}
	counter_setup(getenv("EXTPROF_COUNTER"));
	arch_choose_fast_path(&xp.counter, xp.callers != 0,
			      getenv("EXTPROF_WINDOW") && *getenv("EXTPROF_WINDOW"));
	init_fill_meta();
	arch_probe_xsave();
	err = worker_init_pool();
	if (!err)
		err = calibrate_hook();
	if (err) {
		log_msg("cannot calibrate the hook: %s; nothing is hooked", log_strerror(-err));
		return;
	}
	xp.meta.counter_flags = xp.counter.flags;
	/* nothing hooked and nothing that a dlopen could bring: stay out */
	if (hooks_install(&init_spec, getenv("EXTPROF_WINDOW")) <= 0 && !xp.meta.late_decls)
		return;
	arch_seal_code();
	init_choose_dir();
	pthread_atfork(NULL, NULL, init_after_fork_child);
	xp.enabled = true;
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
