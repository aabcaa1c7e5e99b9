// SPDX-License-Identifier: MIT
/*
 * run_env: the child's environment.  Options override EXTPROF_* variables
 * already set; those not given on the command line are passed as they are.
 * Set in our own environment before fork: the analyzer itself never execs
 * anything else, so nothing of ours reads them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

static int env_set(const char *name, const char *value, struct xp_err *e)
{
	if (value && setenv(name, value, 1) < 0)
		return xp_err_set(e, -errno, "setting %s: %s", name, strerror(errno));
	return 0;
}

/* The shim first, the user's own preloads after it. */
static int env_preload(const char *shim, struct xp_err *e)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;
	int err;

	if (asprintf(&value, "%s%s%s", shim, old && *old ? ":" : "", old && *old ? old : "") < 0)
		return xp_err_set(e, -ENOMEM, "out of memory");
	err = env_set("LD_PRELOAD", value, e);
	free(value);
	return err;
}

static int env_spec(const char *spec, struct xp_err *e)
{
	char *abs;
	int err;

	if (!spec)
		return 0;
	/* Absolute, and checked now: the program may chdir before the shim reads it. */
	abs = realpath(spec, NULL);
	if (!abs)
		return xp_err_set(e, -errno, "--spec %s: %s", spec, strerror(errno));
	err = env_set("EXTPROF_SPEC", abs, e);
	free(abs);
	return err;
}

int xp_run_set_env(const struct xp_run_opts *o, const char *shim, const char *dir, struct xp_err *e)
{
	int err = env_set("EXTPROF_DIR", dir, e);

	if (!err)
		err = env_set("EXTPROF_HOOKS", o->hooks, e);
	if (!err)
		err = env_spec(o->spec, e);
	if (!err)
		err = env_set("EXTPROF_WINDOW", o->window, e);
	if (!err)
		err = env_set("EXTPROF_COUNTER", o->counter, e);
	if (!err)
		err = env_set("EXTPROF_CALLERS", o->callers, e);
	if (!err && o->no_children)
		err = env_set("EXTPROF_CHILDREN", "0", e);
	if (!err)
		err = env_set("EXTPROF_STEP_FIRST", o->step_first, e);
	if (!err)
		err = env_set("EXTPROF_STEP_EVERY", o->step_every, e);
	if (!err)
		err = env_set("EXTPROF_STEP_LIMIT", o->step_limit, e);
	if (!err)
		err = env_set("EXTPROF_STEP_ENGINE", o->step_engine, e);
	if (!err)
		err = env_preload(shim, e);
	return err;
}
