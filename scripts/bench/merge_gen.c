// SPDX-License-Identifier: MIT
/*
 * merge_gen: the dumps of scripts/bench-merge.sh.  DUMPS compact, complete
 * dumps of DECLS declarations each, written by the shim's own writer
 * (preload/store/dump.c), WORKERS dumps per process; every declaration has a
 * histogram of about 20 buckets (tsc-like deltas from a few hundred ticks
 * to a few hundred thousand), so the merge has real work to do.  The first
 * TEMPLATES processes are written so (each row of a live dump is 30 KB to
 * fill: tens of thousands of dumps would take the better part of an hour);
 * the others are copies of theirs, in turn, each with its own pid, process
 * id, start and calibration in its header.
 *
 *   merge_gen DIR DUMPS DECLS WORKERS [TEMPLATES]     (default: every process written)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/dump.h"

static const char *const kinds[] = {"invariant", "guard", "transition", "function"};

static void gen_meta(struct dump_meta *m, uint64_t p)
{
	memset(m, 0, sizeof(*m));
	m->counter = EXTPROF_COUNTER_TSC;
	m->counter_flags = EXTPROF_COUNTER_F_CALIBRATION_SETTLED;
	strcpy(m->counter_name, "tsc");
	strcpy(m->counter_unit, "ticks");
	m->calibration = 24 + p % 3;
	m->nested_overhead = 80;
	m->resolution = 26;
	m->process_id = 0x9e3779b97f4a7c15ull * (p + 1);
	m->pid = 10000 + p;
	m->ppid = 1;
	m->start_ns = 1700000000000000000ll + (int64_t)p * 1000000000ll;
	strcpy(m->hostname, "bench");
	strcpy(m->cpu_model, "Bench CPU");
	strcpy(m->kernel, "Linux bench");
	strcpy(m->exe_path, "/bench/checker");
	m->build_id_size = 20;
	memset(m->build_id, 0xab, 20);
}

/*
 * One declaration's evaluations in worker @w: about 20 buckets of deltas, in
 * the histogram row it takes as the shim does (dump_take_row).  0 or -errno.
 */
static int gen_decl(struct dump_map *m, uint32_t i, uint64_t w, unsigned *seed)
{
	struct extprof_dump_decl *d = &m->decls[i];
	uint64_t base = 300 + (uint64_t)i * 97 % 5000;
	uint64_t *row;
	int err = dump_take_row(m, i);

	if (err)
		return err;
	row = dump_row_at(m, d->row);

	d->evaluations = d->floor_hits = d->sum = d->max = 0;
	d->floor = EXTPROF_FLOOR_NONE;
	for (int k = 0; k < 20; k++) {
		uint64_t v = base + base * (uint64_t)(k * k) / 4 + (uint64_t)(rand_r(seed) % 7) + w;
		uint64_t n = 1 + (uint64_t)(rand_r(seed) % 50);

		if (v < d->floor) {
			d->floor = v;
			d->floor_hits = n;
		}
		d->evaluations += n;
		d->sum += v * n;
		if (v > d->max)
			d->max = v;
		row[extprof_hist_bucket(v)] += n;
	}
	return 0;
}

/* The file DIR/NAME of process @p's worker @w (the shim's own naming), into @buf. */
static void gen_name(char *buf, size_t size, const char *dir, const struct dump_meta *meta,
		     uint64_t w)
{
	snprintf(buf, size, "%s/checker.bench.%llu.%016llx.w%03llu.xpd", dir,
		 (unsigned long long)meta->pid, (unsigned long long)meta->process_id,
		 (unsigned long long)w);
}

/* A whole file into @buf (malloc'd): its size, or -errno. */
static ssize_t gen_slurp(const char *path, char **buf)
{
	struct stat st;
	ssize_t n = -EIO;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && (*buf = malloc((size_t)st.st_size + 1)))
		n = read(fd, *buf, (size_t)st.st_size) == st.st_size ? st.st_size : -EIO;
	close(fd);
	return n;
}

/* Template @t's dump @bytes written again as process @p's: 0 or -errno. */
static int gen_copy(const char *dir, char *bytes, size_t size, uint64_t p, uint64_t w)
{
	struct extprof_dump_header *h = (struct extprof_dump_header *)bytes;
	struct dump_meta meta;
	char path[4096];
	int fd, err = 0;

	gen_meta(&meta, p);
	h->pid = meta.pid;
	h->process_id = meta.process_id;
	h->start_ns = meta.start_ns;
	h->end_ns = meta.start_ns + 2000000000ll;
	h->calibration = meta.calibration;
	gen_name(path, sizeof(path), dir, &meta, w);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, bytes, size) != (ssize_t)size)
		err = -EIO;
	if (close(fd))
		err = err ? err : -errno;
	return err;
}

int main(int argc, char **argv)
{
	struct dump_decl_info *decls;
	unsigned long ndumps, ndecls, workers, templates;
	unsigned seed = 1;
	char(*names)[48], **kept;
	size_t *kept_size;
	int err = 0;

	if (argc != 5 && argc != 6) {
		fputs("usage: merge_gen DIR DUMPS DECLS WORKERS [TEMPLATES]\n", stderr);
		return 2;
	}
	ndumps = strtoul(argv[2], NULL, 10);
	ndecls = strtoul(argv[3], NULL, 10);
	workers = strtoul(argv[4], NULL, 10);
	templates = argc == 6 ? strtoul(argv[5], NULL, 10) : ndumps;
	if (!ndumps || !ndecls || !workers || !templates) {
		fputs("merge_gen: DUMPS, DECLS, WORKERS and TEMPLATES must be above 0\n", stderr);
		return 2;
	}
	if (templates > ndumps / workers + 1)
		templates = ndumps / workers + 1;
	decls = calloc(ndecls, sizeof(*decls));
	names = calloc(ndecls, sizeof(*names));
	kept = calloc(templates * workers, sizeof(*kept));
	kept_size = calloc(templates * workers, sizeof(*kept_size));
	if (!decls || !names || !kept || !kept_size)
		return 1;
	for (unsigned long i = 0; i < ndecls; i++) {
		snprintf(names[i], sizeof(names[i]), "predicate_%04lu", i);
		decls[i] = (struct dump_decl_info){kinds[i % 4], names[i], "checker",
						   0x1000 + 16 * i, 0};
	}
	for (unsigned long n = 0; n < ndumps && !err; n++) {
		uint64_t p = n / workers, w = n % workers, k = (p % templates) * workers + w;
		struct dump_meta meta;
		struct dump_map m;
		ssize_t size;

		if (p >= templates) {
			err = gen_copy(argv[1], kept[k], kept_size[k], p, w);
			continue;
		}
		gen_meta(&meta, p);
		/* in memory: only the compact file is written */
		err = dump_create_anonymous(&m, &meta, decls, (uint32_t)ndecls, (uint32_t)w);
		if (err)
			break;
		gen_name(m.path, sizeof(m.path), argv[1], &meta, w);
		for (uint32_t i = 0; i < ndecls && !err; i++)
			err = gen_decl(&m, i, w, &seed);
		if (err) {
			dump_unmap(&m);
			break;
		}
		m.hdr->run_total = 4000000000ull;
		m.hdr->threads = 1;
		m.hdr->end_ns = meta.start_ns + 2000000000ll;
		err = dump_write_compact(&m, EXTPROF_DUMP_F_COMPLETE);
		dump_unmap(&m);
		/* kept, to be copied as the processes past the templates */
		if (!err && ndumps / workers >= templates) {
			size = gen_slurp(m.path, &kept[k]);
			err = size < 0 ? (int)size : 0;
			kept_size[k] = size < 0 ? 0 : (size_t)size;
		}
	}
	for (unsigned long i = 0; i < templates * workers; i++)
		free(kept[i]);
	free(kept);
	free(kept_size);
	free(decls);
	free(names);
	if (err) {
		fprintf(stderr, "merge_gen: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
