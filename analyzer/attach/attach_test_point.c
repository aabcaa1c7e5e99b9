// SPDX-License-Identifier: MIT
/*
 * attach_test_point: the points where the tests kill extprof attach or make
 * its target exec, counted over every change made to the process; a file of
 * its own, which every file that changes the process calls and which calls
 * none of them.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "attach.h"

/*
 * For the tests only, before the Nth change we make to the process (a
 * ptrace request that moves a thread, a write into its memory):
 * EXTPROF_TEST_ATTACH_KILL_AT=N, SIGKILL ourselves, where a tracer may die;
 * EXTPROF_TEST_ATTACH_TOUCH_AT=N, create the file EXTPROF_TEST_ATTACH_TOUCH
 * names and let 300 ms pass, for the test's target to exec (or exit) there
 * (-K: once the first letting go has let K threads go).
 */
static long trace_changes;

long xp_trace_test_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? atol(v) : 0;
}

void xp_trace_test_touch(void)
{
	const char *path = getenv("EXTPROF_TEST_ATTACH_TOUCH");

	if (path) {
		close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
		usleep(300000);
	}
}

void xp_trace_test_point(void)
{
	static long kill_at = -1, touch_at;

	if (kill_at < 0) {
		kill_at = xp_trace_test_env("EXTPROF_TEST_ATTACH_KILL_AT");
		touch_at = xp_trace_test_env("EXTPROF_TEST_ATTACH_TOUCH_AT");
	}
	if (++trace_changes == kill_at)
		raise(SIGKILL);
	if (trace_changes == touch_at)
		xp_trace_test_touch();
}

long xp_trace_test_changes(void)
{
	return trace_changes;
}
