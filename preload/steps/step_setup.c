// SPDX-License-Identifier: MIT
/*
 * step_setup: the steps counter made ready (step.c): its sampling from the
 * environment, a tracer refused, the shim's own text found (whose
 * instructions are never counted), the SIGTRAP handler installed; and a
 * thread's stepping stopped where the shim itself ends it (a thread's or the
 * process's exit, a fork child); the engine's own stack told apart from the
 * thread's.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "arch/arch.h"
#include "store/dump.h"
#include "core/log.h"
#include "core/state.h"
#include "steps/step.h"
#include "steps/state.h"
#include "steps/xlate.h"

/* EXTPROF_STEP_*: a number from @min to @max, else the default, said once. */
static uint64_t step_read_env(const char *name, uint64_t dflt, uint64_t min, uint64_t max)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return dflt;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || v[0] == '-' || n < min || n > max) {
		log_msg("%s=%s: not a number from %llu to %llu; %llu", name, v,
			(unsigned long long)min, (unsigned long long)max, (unsigned long long)dflt);
		return dflt;
	}
	return n;
}

/* The tracer attached to this process (TracerPid in /proc/self/status), 0: none. */
static long step_tracer(void)
{
	char buf[4096], *p;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nTracerPid:");
	return p ? strtol(p + 11, NULL, 10) : 0;
}

static int step_text_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t here = (uint64_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && here >= lo && here < hi) {
			step_text_lo = lo;
			step_text_hi = hi;
			return 1;
		}
	}
	return 0;
}

/* A lazily bound object's GOT[2]: the loader's entry for binding its PLT's symbols. */
static int step_resolver_visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const ElfW(Dyn) * dyn;
		uint64_t got = 0, entry;

		if (ph->p_type != PT_DYNAMIC)
			continue;
		dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		for (; dyn->d_tag != DT_NULL && !got; dyn++)
			if (dyn->d_tag == DT_PLTGOT)
				got = dyn->d_un.d_ptr;
		/* glibc relocates the dynamic section's addresses in place; a
		 * loader that does not leaves an offset from the base */
		if (!got)
			continue;
		if (got < info->dlpi_addr)
			got += info->dlpi_addr;
		/* 0 where the object was bound at load (-z now) */
		entry = ((const uint64_t *)got)[2];
		for (int k = 0; entry && k < STEP_RESOLVERS; k++) {
			if (step_resolvers[k] == entry)
				break;
			if (!step_resolvers[k]) {
				__atomic_store_n(&step_resolvers[k], entry, __ATOMIC_RELEASE);
				break;
			}
		}
	}
	return 0;
}

void step_find_resolvers(void)
{
	/* the code cache counts every evaluation: none held back, nothing to find */
	if (xp.counter.kind == EXTPROF_COUNTER_STEPS && step_cfg.engine == STEP_ENGINE_TRAP)
		dl_iterate_phdr(step_resolver_visit, NULL);
}

/* EXTPROF_STEP_ENGINE: translate (the default) or trap. */
static uint32_t step_read_engine(void)
{
	const char *v = getenv("EXTPROF_STEP_ENGINE");

	if (!v || !*v || !strcmp(v, "translate"))
		return STEP_ENGINE_TRANSLATE;
	if (!strcmp(v, "trap"))
		return STEP_ENGINE_TRAP;
	log_msg("EXTPROF_STEP_ENGINE=%s: not translate or trap; translate", v);
	return STEP_ENGINE_TRANSLATE;
}

int step_setup(struct dump_meta *meta, bool automatic, const struct arch_thunks *thunks)
{
	long tracer;
	int err;

	step_cfg.engine = automatic ? STEP_ENGINE_TRANSLATE : step_read_engine();
	if (!dl_iterate_phdr(step_text_visit, (void *)(uint64_t)step_setup)) {
		log_msg("steps: cannot find the shim's own code");
		return -ENOENT;
	}
	if (step_cfg.engine == STEP_ENGINE_TRANSLATE) {
		err = xlate_setup();
		if (!err) {
			/* every evaluation, none of them given up */
			meta->step_first = 0;
			meta->step_every = 1;
			meta->step_limit = 0;
			return 0;
		}
		if (automatic)
			return err;
		log_msg("steps: single-stepping instead");
		step_cfg.engine = STEP_ENGINE_TRAP;
	}
	tracer = step_tracer();
	if (tracer) {
		log_msg("steps: a tracer (pid %ld) is attached, and single-stepping would trap "
			"into it",
			tracer);
		return -EBUSY;
	}
	arch_step_know_thunks(thunks);
	err = step_signal_install();
	if (err) {
		log_msg("steps: cannot install a SIGTRAP handler: %s", log_strerror(-err));
		return err;
	}
	step_cfg.first =
		(uint32_t)step_read_env("EXTPROF_STEP_FIRST", STEP_FIRST_DEFAULT, 0, UINT32_MAX);
	step_cfg.every =
		(uint32_t)step_read_env("EXTPROF_STEP_EVERY", STEP_EVERY_DEFAULT, 0, UINT32_MAX);
	step_cfg.limit = step_read_env("EXTPROF_STEP_LIMIT", STEP_LIMIT_DEFAULT, 1, UINT64_MAX / 4);
	/* the kernel's signal frame, as large as the CPU's extended state */
	if (getauxval(AT_MINSIGSTKSZ))
		step_cfg.trap_room = getauxval(AT_MINSIGSTKSZ) + STEP_TRAP_HANDLER;
	meta->step_first = step_cfg.first;
	meta->step_every = step_cfg.every;
	meta->step_limit = step_cfg.limit;
	dl_iterate_phdr(step_resolver_visit, NULL);
	return 0;
}

void step_stop_self(void)
{
	step_stop(&xp_self);
}

void step_stop(struct xp_thread *thread)
{
	if (xp.counter.kind != EXTPROF_COUNTER_STEPS)
		return;
	if (step_cfg.engine == STEP_ENGINE_TRANSLATE) {
		/* the code cache is the thread's own (xl_self): no shared block's other thread's */
		if (thread == &xp_self)
			xlate_thread_exit(thread);
		return;
	}
	step_alt_off(thread, NULL);
	if (!thread->step.depth)
		return;
	step_end(thread, NULL);
	arch_step_self(false);
}

bool step_own_stack(uint64_t sp)
{
	const struct xl_cache *c = xl_self.cache;

	return c && sp - (uint64_t)c->dstack < XL_DSTACK_BYTES;
}

void step_prepare_sandbox(struct xp_thread *thread)
{
	if (xp.counter.kind != EXTPROF_COUNTER_STEPS)
		return;
	if (step_cfg.engine == STEP_ENGINE_TRAP)
		step_stop(thread);
	else if (thread == &xp_self) /* a shared block's other thread runs natively */
		xlate_prepare_sandbox(thread);
}

void step_reset_after_fork(void)
{
	struct xp_thread *t = &xp_self;

	if (xp.counter.kind != EXTPROF_COUNTER_STEPS)
		return;
	if (step_cfg.engine == STEP_ENGINE_TRANSLATE) {
		xlate_after_fork(t);
		memset(&t->step, 0, sizeof(t->step));
		return;
	}
	if (t->step.depth)
		step_end(t, NULL);
	step_alt_off(t, NULL);
	memset(&t->step, 0, sizeof(t->step));
	arch_step_self(false);
}
