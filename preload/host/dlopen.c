// SPDX-License-Identifier: MIT
/*
 * dlopen: objects loaded after start-up.  An entry that names its object
 * (KIND:PATTERN@OBJECT) is hooked when that object appears.  Patching
 * happens before dlopen returns, so before the program can have taken an
 * address in the new object; a thread the object's own constructors
 * started could run its code meanwhile (docs/limits.md).
 */
#include <dlfcn.h>
#include <pthread.h>

#include "core/cancel.h"
#include "resolve/hooks.h"
#include "core/interpose.h"
#include "core/state.h"
#include "host/init.h"
#include "resolve/unwind_stub.h"
#include "steps/step.h"

typedef void *(*dlopen_fn)(const char *file, int mode);

static const char *const dlopen_names[] = {"dlopen"};
static void *dlopen_cache[1];
static const struct interpose_table dlopen_reals = {dlopen_names, dlopen_cache, 1};

/* libc's dlopen itself, not the shim's wrapper. */
static void *dlopen_real(const char *file, int mode)
{
	return ((dlopen_fn)interpose_real(&dlopen_reals, 0))(file, mode);
}

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	void *handle = dlopen_real(file, mode);

	/* under a seccomp filter, no rescan: it reads files (sandbox.c) */
	if (handle && xp.enabled && !xp.finished && !xp.sandboxed) {
		/* the caller's own state, that of a thread without TLS of its own too */
		struct xp_thread *t = state_self((uint64_t)__builtin_frame_address(0), false);
		struct cancel_hold h;

		if (!t)
			t = &xp_self;
		/* libelf's reads are cancellation points: not with the lock held */
		cancel_hold(&h, t);
		pthread_mutex_lock(&xp.decls_lock);
		/* nothing hooked at start-up: calibrated first, its calls counted (init.c) */
		if (!init_calibrate()) {
			/* other threads lay out their dumps meanwhile (worker.c says how) */
			t->busy++;
			hooks_rescan();
			/* steps: the new objects' lazy binding, if they are bound lazily */
			step_find_resolvers();
			/* the new stubs' unwind rows; libgcc_s's unwinder may have come too */
			unwind_stub_publish();
			t->busy--;
		}
		pthread_mutex_unlock(&xp.decls_lock);
		cancel_release(&h);
	}
	return handle;
}
