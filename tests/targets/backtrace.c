// SPDX-License-Identifier: MIT
/*
 * Matrix case "backtrace": backtrace(3) called inside a hooked function
 * (bt_inner, called by the hooked bt_outer, called by main).  What the
 * trace shows is an observation, not a requirement: under the shim a hooked
 * function's return address is in its stub (see preload/arch/x86_64/thunk.S),
 * which the unwinder has no unwind information for.  Linked with -rdynamic,
 * so that backtrace_symbols() can name the program's functions.
 *
 * The same walk is also made with libgcc's _Unwind_Backtrace directly, as
 * programs and libraries that do not go through backtrace(3) do.
 *
 * stdout: only what does not depend on the shim.  stderr: the frame counts,
 * whether bt_outer and main were reached, and the frames:
 *   checker-frames: all N           backtrace(3)
 *   checker-reached: bt_outer 0|1
 *   checker-reached: main 0|1
 *   checker-frames: unwind N        _Unwind_Backtrace
 *   checker-reached: unwind-main 0|1
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

#include "matrix.h"

static unsigned long n_inner, n_outer;

struct walk {
	int frames;
	int main_reached;
};

static _Unwind_Reason_Code walk_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	Dl_info info;

	w->frames++;
	if (dladdr((void *)_Unwind_GetIP(ctx), &info) && info.dli_sname)
		w->main_reached |= !strcmp(info.dli_sname, "main");
	return _URC_NO_REASON;
}

HOOKED int bt_inner(int x)
{
	void *frames[64];
	int n = backtrace(frames, 64), outer = 0, main_ = 0;
	char **names = backtrace_symbols(frames, n);

	n_inner++;
	for (int i = 0; names && i < n; i++) {
		outer |= strstr(names[i], "(bt_outer+") != NULL;
		main_ |= strstr(names[i], "(main+") != NULL;
		fprintf(stderr, "checker-frame: %s\n", names[i]);
	}
	free(names);
	TRUTH("frames", "all", n);
	TRUTH("reached", "bt_outer", outer);
	TRUTH("reached", "main", main_);
	{
		struct walk w = {0, 0};

		_Unwind_Backtrace(walk_frame, &w);
		TRUTH("frames", "unwind", w.frames);
		TRUTH("reached", "unwind-main", w.main_reached);
	}
	return x + 1;
}

HOOKED int bt_outer(int x)
{
	n_outer++;
	return bt_inner(x + 1) + 1;
}

int main(void)
{
	int r = bt_outer(1);

	printf("bt_outer(1) = %d\n", r);
	TRUTH("truth", "bt_inner", n_inner);
	TRUTH("truth", "bt_outer", n_outer);
	return 0;
}
