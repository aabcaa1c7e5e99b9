// SPDX-License-Identifier: MIT
/*
 * fuzz_dump: a libFuzzer target for everything the analyzer does with the
 * bytes of a dump file: read and validate them, fold them into a process
 * (twice, as two workers, so that the merge runs), finalize, build the
 * report with every --stat and print it in every format, callgrind's and
 * pprof's too (into /dev/null),
 * and diff the report against itself; and, for the bytes of an MPI job's
 * file, its table checked and each dump it holds read and folded the same
 * way.  A defect must come back as one line naming the file; anything else
 * (a crash, a sanitizer report, a message of two lines) is a finding.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined by scripts/fuzz.sh
 * (meson -Dfuzz=true); fuzz_replay.c runs the same function over the seed
 * corpus in the ordinary test suite.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "diff/diff.h"
#include "read/dump_read.h"
#include "read/job.h"
#include "model/proc.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

/* A message must be one line and name the file. */
static void check_msg(const struct xp_err *e, const char *path)
{
	if (strchr(e->msg, '\n') || (path && strncmp(e->msg, path, strlen(path))))
		abort();
}

static int parse_copy(struct xp_dump *d, const uint8_t *data, size_t size, const char *path,
		      uint32_t worker)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct xp_err e = {""};
	int err;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	if (worker && size >= sizeof(struct extprof_dump_header))
		((struct extprof_dump_header *)buf)->worker ^= worker;
	err = xp_dump_parse(d, buf, size, path, &e);
	if (err)
		check_msg(&e, path);
	return err;
}

static void report_all(const struct xp_procset *s, uint8_t knobs)
{
	struct xp_report_opts o;
	struct xp_report r, again;
	struct xp_diff df;
	struct xp_err e = {""};

	for (int stat = 0; stat < 3; stat++) {
		xp_report_opts_init(&o);
		o.stat = (enum xp_stat)stat;
		o.sort = (enum xp_sort)(knobs % 5);
		o.callers = knobs & 8;
		o.allow_mixed = true;
		if (xp_report_build(&r, s, &o, knobs & 16, &e)) {
			check_msg(&e, NULL);
			continue;
		}
		/* text, JSON, CSV, callgrind's and pprof's */
		for (int f = 0; f <= XP_FORMAT_PPROF; f++) {
			r.opts.format = (enum xp_format)f;
			xp_report_print(&r, sink());
		}
		if (!xp_report_build(&again, s, &o, 0, &e)) {
			struct xp_diff_opts dopts;

			xp_diff_opts_init(&dopts);
			dopts.fail_above = knobs & 32 ? 10.0 : -1.0;
			if (!xp_diff_build(&df, &r, &again, &dopts, &e)) {
				for (int f = 0; f < 3; f++) {
					df.opts.format = (enum xp_format)f;
					xp_diff_print(&df, sink());
				}
				/* a report against itself never grows */
				if (df.nover)
					abort();
				xp_diff_free(&df);
			}
			xp_report_free(&again);
		}
		xp_report_free(&r);
	}
}

/* Whether @data is the start of an MPI job's file, as the reader tells one. */
static bool is_job(const uint8_t *data, size_t size)
{
	const struct extprof_dump_header *h = (const struct extprof_dump_header *)data;

	return size >= sizeof(*h) &&
	       !memcmp(h->magic, EXTPROF_DUMP_MAGIC, EXTPROF_DUMP_MAGIC_LEN) && h->version >= 4 &&
	       (h->flags & EXTPROF_DUMP_F_JOB);
}

/* A job's file (from a memfd: it is read with pread): each of its dumps folded, reported. */
static void fuzz_job(const uint8_t *data, size_t size, uint8_t knobs)
{
	struct xp_procset s = {0};
	struct xp_err e = {""};
	struct xp_job j;
	char fdpath[64];
	int fd = memfd_create("fuzz-job", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	if (xp_job_open(&j, AT_FDCWD, fdpath, "fuzz-job.xpd", false, &e)) {
		check_msg(&e, "fuzz-job.xpd");
		close(fd);
		return;
	}
	for (uint64_t i = 0; i < j.n; i++) {
		struct xp_dump d;

		if (xp_job_read(&j, i, &d, &e)) {
			check_msg(&e, "fuzz-job.xpd");
			continue;
		}
		if (xp_procset_add(&s, &d, &e))
			check_msg(&e, "fuzz-job.xpd");
		xp_dump_free(&d);
	}
	if (s.n)
		report_all(&s, knobs);
	xp_procset_free(&s);
	xp_job_close(&j);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xp_procset s = {0};
	struct xp_err e = {""};
	struct xp_dump a, b;
	uint8_t knobs = size ? data[size - 1] : 0;

	if (is_job(data, size)) {
		fuzz_job(data, size, knobs);
		return 0;
	}
	if (parse_copy(&a, data, size, "fuzz-a.xpd", 0))
		return 0;
	if (xp_procset_add(&s, &a, &e)) {
		check_msg(&e, "fuzz-a.xpd");
		goto out;
	}
	/* the same bytes as a second worker of the same process: a merge */
	if (!parse_copy(&b, data, size, "fuzz-b.xpd", 1)) {
		if (xp_procset_add(&s, &b, &e))
			check_msg(&e, "fuzz-b.xpd");
		xp_dump_free(&b);
	}
	report_all(&s, knobs);
out:
	xp_procset_free(&s);
	xp_dump_free(&a);
	return 0;
}
