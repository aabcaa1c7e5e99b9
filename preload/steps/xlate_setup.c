// SPDX-License-Identifier: MIT
/*
 * xlate_setup: the translation engine of the steps counter made ready at
 * start-up (step_setup.c chooses it): the thread-local slots' offsets its
 * code reaches through %fs, the bound of a thread's cache, the process's
 * executable mappings, and the program's signal handlers wrapped; and
 * made ready for a seccomp filter, a thread's arenas near all its code.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "arch/arch.h"
#include "core/log.h"
#include "core/state.h"
#include "steps/state.h"
#include "steps/xlate.h"

int xlate_setup(void)
{
	const char *v = getenv("EXTPROF_XLATE_CACHE_MB");
	uint64_t tp = arch_thread_pointer(), mb = XL_CACHE_MB_DEFAULT;
	char *end;

	if (v && *v) {
		errno = 0;
		mb = strtoull(v, &end, 10);
		if (errno || *end || v[0] == '-' || mb < 8 || mb > 65536) {
			log_msg("EXTPROF_XLATE_CACHE_MB=%s: not a number from 8 to 65536; %u", v,
				XL_CACHE_MB_DEFAULT);
			mb = XL_CACHE_MB_DEFAULT;
		}
	}
	xl_cfg.cache_bytes = mb << 20;
	xl_cfg.tp_count = (uint64_t)&xp_self.step.count - tp;
	xl_cfg.tp_xl = (uint64_t)&xl_self - tp;
	xl_cfg.dispatch = (uint64_t)xlate_dispatch_entry;
	/* %fs:disp32: the shim's TLS is a few KB from the thread pointer */
	if ((int64_t)xl_cfg.tp_count != (int32_t)xl_cfg.tp_count ||
	    (int64_t)xl_cfg.tp_xl != (int32_t)xl_cfg.tp_xl) {
		log_msg("steps: the shim's thread-local storage is out of reach of the code cache");
		return -ERANGE;
	}
	xlate_code_refresh();
	__atomic_store_n(&xl_on, true, __ATOMIC_RELEASE);
	if (xlate_signals_install())
		log_msg("steps: cannot wrap the program's signal handlers: a handler interrupting "
			"translated code sees the code cache's addresses");
	return 0;
}

void xlate_thread_exit(struct xp_thread *thread)
{
	struct xl_thread *x = &xl_self;

	/* inside a session, its last instructions may be translated: kept until it is gone */
	if (x->active) {
		xlate_end(thread);
		return;
	}
	if (x->cache) {
		xlate_cache_put(x->cache);
		x->cache = NULL;
	}
}

void xlate_prepare_sandbox(struct xp_thread *t)
{
	struct xl_thread *x = &xl_self;
	int saved = errno;
	sigset_t all, old;

	/* the mmaps' and the mappings' reads' hooked calls are not the program's */
	t->busy++;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	xlate_code_refresh();
	/* one in use is never flushed here: its translated code may be running it */
	if (!x->cache)
		x->cache = xlate_cache_get(t, (uint64_t)xlate_prepare_sandbox);
	if (x->cache)
		xlate_code_each(xlate_cache_reach, x->cache);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	t->busy--;
	errno = saved;
}
