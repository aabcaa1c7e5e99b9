// SPDX-License-Identifier: MIT
/*
 * fake_shim: a stand-in for libextprof.so that lets the tests of "extprof
 * run" check what the analyzer controls (environment, directory, exit
 * status, signals) without depending on the real shim's hooking.
 *
 * At load it writes a live dump into $EXTPROF_DIR with one declaration per
 * entry of $EXTPROF_HOOKS, each evaluated 10 times at 40 + 10 * its index
 * (calibration 5); $EXTPROF_COUNTER names the counter and $EXTPROF_WINDOW
 * the window.  At a clean exit it rewrites the dump compact and complete,
 * as the real shim does.  A program killed by a signal leaves it live.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/dump.h"

#define MAX_HOOKS 16

static struct dump_map map;

static uint32_t parse_hooks(char *hooks, struct dump_decl_info *decls)
{
	uint32_t n = 0;

	for (char *save, *h = strtok_r(hooks, ",", &save); h && n < MAX_HOOKS;
	     h = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(h, ':'), *at;

		if (!colon)
			continue;
		*colon = '\0';
		at = strchr(colon + 1, '@');
		if (at)
			*at = '\0';
		decls[n++] = (struct dump_decl_info){h, colon + 1, at ? at + 1 : "prog", 0x1000};
	}
	return n;
}

static void fake_meta(struct dump_meta *m)
{
	const char *counter = getenv("EXTPROF_COUNTER"), *window = getenv("EXTPROF_WINDOW");
	struct timespec ts;

	memset(m, 0, sizeof(*m));
	m->counter = EXTPROF_COUNTER_VAR;
	m->counter_flags = EXTPROF_COUNTER_F_DETERMINISTIC | EXTPROF_COUNTER_F_CALIBRATION_SETTLED;
	snprintf(m->counter_name, sizeof(m->counter_name), "%s", counter ? counter : "var:fake");
	strcpy(m->counter_unit, "steps");
	m->calibration = 5;
	m->resolution = 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	m->pid = (uint64_t)getpid();
	m->ppid = (uint64_t)getppid();
	m->process_id = ((uint64_t)ts.tv_nsec << 20) ^ m->pid;
	m->start_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	gethostname(m->hostname, sizeof(m->hostname) - 1);
	strcpy(m->exe_path, "/fake");
	snprintf(m->window, sizeof(m->window), "%s", window ? window : "");
	if (window)
		m->flags |= EXTPROF_DUMP_F_WINDOW;
}

static void fake_record(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct extprof_dump_decl *d = &map.decls[i];
		uint64_t delta = 40 + 10 * i;

		d->evaluations = 10;
		d->floor = delta;
		d->floor_hits = 10;
		d->sum = delta * 10;
		d->max = delta;
		if (dump_take_row(&map, i) == 0)
			dump_row_at(&map, d->row)[extprof_hist_bucket(delta)] = 10;
		map.hdr->run_total += delta * 20;
	}
	map.hdr->threads = 1;
}

static void fake_exit(void)
{
	if (!map.base)
		return;
	dump_write_compact(&map, EXTPROF_DUMP_F_COMPLETE);
	dump_unmap(&map);
}

__attribute__((constructor)) static void fake_init(void)
{
	const char *dir = getenv("EXTPROF_DIR"), *hooks = getenv("EXTPROF_HOOKS");
	struct dump_decl_info decls[MAX_HOOKS];
	struct dump_meta meta;
	char path[4096], *copy;
	uint32_t n;

	if (!dir || !hooks)
		return;
	copy = strdup(hooks);
	n = parse_hooks(copy, decls);
	fake_meta(&meta);
	snprintf(path, sizeof(path), "%s/fake.%llu.%llx.w000.xpd", dir,
		 (unsigned long long)meta.pid, (unsigned long long)meta.process_id);
	if (dump_create(&map, path, &meta, decls, n, 0) == 0) {
		fake_record(n);
		atexit(fake_exit);
	}
	free(copy);
}
