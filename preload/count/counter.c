// SPDX-License-Identifier: MIT
/*
 * counter: choose the unit (EXTPROF_COUNTER) and set up what reading it
 * needs.  tsc and ns need nothing; var:SYMBOL needs the variable's address
 * (a global) or its offset from the thread pointer (a __thread variable in
 * static TLS: the same offset in every thread); instructions and cycles
 * need a perf event per thread, opened at the thread's first evaluation and
 * read from user space through its mapped page where the kernel allows it.
 */
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "extprof/names.h"

#include "arch/arch.h"
#include "count/counter_read.h"
#include "elfsyms.h"
#include "core/log.h"
#include "core/state.h"
#include "count/counter.h"
#include "steps/step.h"
#include "core/sys.h"

/*
 * EXTPROF_PMU_SOFTWARE=1, for tests on machines without a PMU: instructions
 * and cycles open the kernel's task clock (ns of the thread's CPU time), a
 * software event, so that the whole path runs (a perf event per thread at
 * its first evaluation, the mapped page, and the read() fallback, as a
 * software event has no hardware counter index).  The counter is then called
 * "task-clock", in ns.
 */
static bool counter_pmu_software;

static int counter_perf_open(uint32_t kind, void **page)
{
	struct perf_event_attr attr;
	void *p;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = kind == EXTPROF_COUNTER_CYCLES ? PERF_COUNT_HW_CPU_CYCLES
						     : PERF_COUNT_HW_INSTRUCTIONS;
	if (counter_pmu_software) {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_TASK_CLOCK;
	}
	/* user mode only: allowed at perf_event_paranoid 2, and what we mean */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)arch_syscall6(SYS_perf_event_open, (long)&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC,
				0);
	if (fd < 0)
		return fd;
	p = mmap(NULL, (size_t)getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	*page = p;
	return fd;
}

int counter_open_thread(struct xp_thread *thread)
{
	int fd;

	if (xp.counter.kind != EXTPROF_COUNTER_INSTRUCTIONS &&
	    xp.counter.kind != EXTPROF_COUNTER_CYCLES)
		return 0;
	/* under a seccomp filter, no perf event: its deltas read 0 (sandbox.c) */
	if (xp.sandboxed)
		return -EPERM;
	fd = counter_perf_open(xp.counter.kind, &thread->pmu_page);
	if (fd < 0) {
		log_once(LOG_ONCE_PMU,
			 "%s: perf_event_open failed in a thread (%s); its deltas read 0",
			 xp.counter.name, log_strerror(-fd));
		thread->pmu_page = NULL;
		return fd;
	}
	thread->pmu_fd = fd;
	return 0;
}

void counter_close_thread(struct xp_thread *thread)
{
	if (!thread->pmu_page || xp.sandboxed)
		return;
	sys_munmap(thread->pmu_page, (size_t)getpagesize());
	/* at the thread's exit: raw, no cancellation point there */
	sys_close(thread->pmu_fd);
	thread->pmu_page = NULL;
}

/* Whether the PMU works here; on success, whether user space may read it itself. */
static int counter_probe_pmu(uint32_t kind, bool *user_read)
{
	void *page;
	int fd = counter_perf_open(kind, &page);

	if (fd < 0)
		return fd;
	*user_read = ((struct perf_event_mmap_page *)page)->cap_user_rdpmc;
	sys_munmap(page, (size_t)getpagesize());
	close(fd);
	return 0;
}

struct var_search {
	const char *symbol;
	const struct elf_object *obj;
	bool found;
	bool tls;
	uint64_t value;
	uint64_t size;
};

static int counter_var_visit(const struct elf_sym *s, void *arg)
{
	struct var_search *v = arg;

	if (!s->defined || (s->type != STT_OBJECT && s->type != STT_TLS) ||
	    strcmp(s->name, v->symbol))
		return 0;
	v->found = true;
	v->tls = s->type == STT_TLS;
	v->value = s->value;
	v->size = s->size;
	return 1;
}

/* var:SYMBOL[@OBJECT]: a 64-bit variable of the program's. */
static int counter_setup_var(const char *spec)
{
	static struct elf_object objs[ELFOBJ_MAX];
	char symbol[256], *at;
	int n = elfobj_list(objs, ELFOBJ_MAX);

	if (strlen(spec) >= sizeof(symbol))
		return -ENAMETOOLONG;
	strcpy(symbol, spec);
	at = strchr(symbol, '@');
	if (at)
		*at++ = '\0';
	for (int i = 0; i < n; i++) {
		struct var_search v = {symbol, &objs[i], false, false, 0, 0};

		if (objs[i].is_shim || (at && fnmatch(at, objs[i].name, 0)))
			continue;
		if (elfsym_each(objs[i].path, counter_var_visit, &v) <= 0 || !v.found)
			continue;
		if (v.size != 8) {
			log_msg("counter var:%s: %s is %llu bytes, not a 64-bit variable", spec,
				symbol, (unsigned long long)v.size);
			return -EINVAL;
		}
		if (v.tls) {
			if (!objs[i].tls_data) {
				log_msg("counter var:%s: %s's TLS block is not static", spec,
					objs[i].name);
				return -EINVAL;
			}
			xp.counter.var_tls = true;
			xp.counter.var_tpoff = (int64_t)((uint64_t)objs[i].tls_data + v.value -
							 arch_thread_pointer());
			xp.counter.flags |= EXTPROF_COUNTER_F_THREAD_LOCAL;
		} else {
			/* the address first: a reader of the old setting never sees 0 */
			xp.counter.var_addr = objs[i].base + v.value;
			xp.counter.var_tls = false;
		}
		return 0;
	}
	log_msg("counter var:%s: no 64-bit variable %s%s%s", spec, symbol, at ? " in " : "",
		at ? at : "");
	return -ENOENT;
}

uint64_t xp_counter_read(void)
{
	return counter_read_inline();
}

static void counter_set(uint32_t kind, const char *name, const char *unit, uint32_t flags)
{
	xp.counter.kind = kind;
	strncpy(xp.counter.name, name, sizeof(xp.counter.name) - 1);
	xp.counter.unit = unit;
	xp.counter.flags |= flags;
	/* a clock or a PMU count is read between fences; the program's own variable needs none */
	xp.ordered = kind != EXTPROF_COUNTER_VAR;
}

/* steps' code cache for auto without a PMU (@pmu_err): 0, or -errno when it cannot count. */
static int counter_auto_steps(int pmu_err, const struct arch_thunks *thunks)
{
	int err = step_setup(&xp.meta, true, thunks);

	if (err)
		return err;
	log_msg("no PMU for instructions (perf_event_open: %s); counting steps: instructions, "
		"every call, from a code cache",
		log_strerror(-pmu_err));
	counter_set(EXTPROF_COUNTER_STEPS, "steps", "instructions",
		    EXTPROF_COUNTER_F_DETERMINISTIC | EXTPROF_COUNTER_F_TRANSLATED);
	xp.ordered = false;
	return 0;
}

/* EXTPROF_COUNTER.  What cannot be had is said once; tsc stands in. */
int counter_setup(const char *spec, const struct arch_thunks *thunks)
{
	enum extprof_counter_choice choice;
	bool user_read = false;
	int err;

	if (!spec || !*spec)
		spec = "auto";
	choice = extprof_counter_choice(spec);
	switch (choice) {
	case EXTPROF_CHOICE_TSC:
		counter_set(EXTPROF_COUNTER_TSC, "tsc", "ticks", 0);
		break;
	case EXTPROF_CHOICE_TSC_UNORDERED:
		/* an explicit choice: cheaper, and blind to what overlaps the reads */
		counter_set(EXTPROF_COUNTER_TSC, "tsc-unordered", "ticks", 0);
		xp.ordered = false;
		break;
	case EXTPROF_CHOICE_NS:
		counter_set(EXTPROF_COUNTER_NS, "ns", "ns", 0);
		break;
	case EXTPROF_CHOICE_STEPS:
		err = step_setup(&xp.meta, false, thunks);
		if (err) {
			log_msg("counting tsc instead");
			counter_set(EXTPROF_COUNTER_TSC, "tsc", "ticks", 0);
			return err;
		}
		counter_set(EXTPROF_COUNTER_STEPS, "steps", "instructions",
			    EXTPROF_COUNTER_F_DETERMINISTIC |
				    (step_cfg.engine == STEP_ENGINE_TRAP
					     ? EXTPROF_COUNTER_F_SAMPLED
					     : EXTPROF_COUNTER_F_TRANSLATED));
		/* no fences: its count moves in the SIGTRAP handler, at instruction bounds */
		xp.ordered = false;
		break;
	case EXTPROF_CHOICE_VAR:
		err = counter_setup_var(spec + 4);
		if (err) {
			counter_set(EXTPROF_COUNTER_TSC, "tsc", "ticks", 0);
			log_msg("counting tsc instead");
			return err;
		}
		counter_set(EXTPROF_COUNTER_VAR, spec, "units", EXTPROF_COUNTER_F_DETERMINISTIC);
		break;
	case EXTPROF_CHOICE_AUTO:
	case EXTPROF_CHOICE_INSTRUCTIONS:
	case EXTPROF_CHOICE_CYCLES: {
		uint32_t kind = choice == EXTPROF_CHOICE_CYCLES ? EXTPROF_COUNTER_CYCLES
								: EXTPROF_COUNTER_INSTRUCTIONS;
		const char *name = kind == EXTPROF_COUNTER_CYCLES ? "cycles" : "instructions";
		const char *sw = getenv("EXTPROF_PMU_SOFTWARE");
		bool is_auto = choice == EXTPROF_CHOICE_AUTO;

		counter_pmu_software = sw && !strcmp(sw, "1");
		err = counter_probe_pmu(kind, &user_read);
		if (err) {
			/* auto counts instructions all the same: docs/measurement.md says why */
			if (is_auto && !counter_auto_steps(err, thunks))
				return 0;
			log_msg("no PMU for %s (perf_event_open: %s); counting tsc", name,
				log_strerror(-err));
			counter_set(EXTPROF_COUNTER_TSC, "tsc", "ticks", 0);
			return is_auto ? 0 : err;
		}
		if (counter_pmu_software)
			counter_set(kind, "task-clock", "ns",
				    user_read ? EXTPROF_COUNTER_F_RDPMC : 0);
		else
			counter_set(kind, name, name,
				    (kind == EXTPROF_COUNTER_INSTRUCTIONS
					     ? EXTPROF_COUNTER_F_DETERMINISTIC
					     : 0) |
					    (user_read ? EXTPROF_COUNTER_F_RDPMC : 0));
		break;
	}
	case EXTPROF_CHOICE_BAD:
	default:
		log_msg("EXTPROF_COUNTER=%s: not " EXTPROF_COUNTER_CHOICES "; counting tsc", spec);
		counter_set(EXTPROF_COUNTER_TSC, "tsc", "ticks", 0);
		return -EINVAL;
	}
	return 0;
}
