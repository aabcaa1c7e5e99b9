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

#include "hooks.h"
#include "interpose.h"
#include "shim.h"
#include "step.h"

typedef void *(*dlopen_fn)(const char *file, int mode);

static const char *const dlopen_names[] = {"dlopen"};
static void *dlopen_cache[1];
static const struct interpose_table dlopen_reals = {dlopen_names, dlopen_cache, 1};

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	dlopen_fn real = (dlopen_fn)interpose_real(&dlopen_reals, 0);
	void *handle = real(file, mode);

	if (handle && xp.enabled && !xp.finished) {
		pthread_mutex_lock(&xp.decls_lock);
		/* nothing hooked at start-up: calibrated first, its calls counted (init.c) */
		if (!init_calibrate()) {
			/* other threads lay out their dumps meanwhile (worker.c says how) */
			xp_self.busy++;
			hooks_rescan();
			/* steps: the new objects' lazy binding, if they are bound lazily */
			step_find_resolvers();
			xp_self.busy--;
		}
		pthread_mutex_unlock(&xp.decls_lock);
	}
	return handle;
}
