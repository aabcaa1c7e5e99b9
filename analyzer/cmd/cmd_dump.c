// SPDX-License-Identifier: MIT
/*
 * cmd_dump: extprof dump FILE: one dump shown raw, field by field, after
 * the same validation a report does.  For the curious and for bug reports.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "extprof/names.h"

#include "cmd/cmd.h"
#include "read/dump_read.h"
#include "util/text_table.h"

void cmd_dump_usage(FILE *out)
{
	fputs("usage: extprof dump FILE\n"
	      "\n"
	      "Show one dump file raw: every header field, the section table, each\n"
	      "declaration's fields, the non-empty histogram buckets and the callers.\n"
	      "\n"
	      "  -h, --help  this text\n",
	      out);
}

static void put_str(const char *name, const char *s)
{
	printf("%-16s \"", name);
	xp_text_put(stdout, s);
	puts("\"");
}

#define U64(name, v) printf("%-16s %" PRIu64 "\n", name, (uint64_t)(v))
#define HEX(name, v) printf("%-16s 0x%" PRIx64 "\n", name, (uint64_t)(v))

static void dump_flags(const struct extprof_dump_header *h)
{
	printf("%-16s 0x%x", "flags", h->flags);
	if (h->flags & EXTPROF_DUMP_F_COMPLETE)
		fputs(" complete", stdout);
	if (h->flags & EXTPROF_DUMP_F_COMPACT)
		fputs(" compact", stdout);
	if (h->flags & EXTPROF_DUMP_F_WINDOW)
		fputs(" window", stdout);
	if (h->flags & EXTPROF_DUMP_F_EXEC)
		fputs(" exec", stdout);
	printf("\n%-16s 0x%x", "counter_flags", h->counter_flags);
	if (h->counter_flags & EXTPROF_COUNTER_F_DETERMINISTIC)
		fputs(" deterministic", stdout);
	if (h->counter_flags & EXTPROF_COUNTER_F_THREAD_LOCAL)
		fputs(" thread-local", stdout);
	if (h->counter_flags & EXTPROF_COUNTER_F_RDPMC)
		fputs(" rdpmc", stdout);
	if (h->counter_flags & EXTPROF_COUNTER_F_CALIBRATION_SETTLED)
		fputs(" calibration-settled", stdout);
	if (h->counter_flags & EXTPROF_COUNTER_F_SAMPLED)
		fputs(" sampled", stdout);
	putchar('\n');
}

static void dump_header(const struct xp_dump *d)
{
	const struct extprof_dump_header *h = d->hdr;

	put_str("file", d->path);
	printf("%-16s \"%.8s\"\n", "magic", h->magic);
	U64("version", h->version);
	U64("header_size", h->header_size);
	printf("%-16s 0x%08x\n", "byte_order", h->byte_order);
	dump_flags(h);
	U64("file_size", h->file_size);
	U64("nsections", h->nsections);
	U64("worker", h->worker);
	HEX("process_id", h->process_id);
	U64("pid", h->pid);
	U64("ppid", h->ppid);
	printf("%-16s %" PRId64 "\n%-16s %" PRId64 "\n", "start_ns", h->start_ns, "end_ns",
	       h->end_ns);
	printf("%-16s %u (%s)\n", "counter", h->counter, extprof_counter_kind_name(h->counter));
	put_str("counter_name", h->counter_name);
	put_str("counter_unit", h->counter_unit);
	U64("calibration", h->calibration);
	U64("nested_overhead", h->nested_overhead);
	U64("resolution", h->resolution);
	U64("run_total", h->run_total);
	U64("threads", h->threads);
	U64("lost", h->lost);
	put_str("hostname", h->hostname);
	put_str("cpu_model", h->cpu_model);
	put_str("kernel", h->kernel);
	put_str("exe_path", h->exe_path);
	printf("%-16s ", "build_id");
	for (uint32_t i = 0; i < h->build_id_size; i++)
		printf("%02x", h->build_id[i]);
	printf("\n");
	U64("build_id_size", h->build_id_size);
	U64("callers_depth", h->callers_depth);
	put_str("window", h->window);
	U64("step_first", h->step_first);
	U64("step_every", h->step_every);
	U64("step_limit", h->step_limit);
}

static const char *const section_names[] = {
	[EXTPROF_SECTION_DECLS] = "DECLS",	     [EXTPROF_SECTION_STRINGS] = "STRINGS",
	[EXTPROF_SECTION_HIST_DENSE] = "HIST_DENSE", [EXTPROF_SECTION_HIST_SPARSE] = "HIST_SPARSE",
	[EXTPROF_SECTION_CALLERS] = "CALLERS",	     [EXTPROF_SECTION_HIST_ROWS] = "HIST_ROWS",
};

static void dump_sections(const struct xp_dump *d)
{
	printf("\nsections:\n  %-3s %-12s %10s %10s %10s\n", "#", "type", "entry_size", "offset",
	       "count");
	for (uint32_t i = 0; i < d->hdr->nsections; i++) {
		const struct extprof_dump_section *s = &d->sections[i];

		printf("  %-3u %-12s %10u %10" PRIu64 " %10" PRIu64 "\n", i, section_names[s->type],
		       s->entry_size, s->offset, s->count);
	}
}

static void dump_decls(const struct xp_dump *d)
{
	printf("\ndecls: %" PRIu64 "\n", d->ndecls);
	for (uint64_t i = 0; i < d->ndecls; i++) {
		const struct extprof_dump_decl *x = &d->decls[i];

		printf("  [%" PRIu64 "] ", i);
		xp_text_put(stdout, xp_dump_str(d, x->kind));
		putchar(':');
		xp_text_put(stdout, xp_dump_str(d, x->symbol));
		putchar('@');
		xp_text_put(stdout, xp_dump_str(d, x->object));
		printf("\n      flags 0x%x address 0x%" PRIx64 " row %u evaluations %" PRIu64,
		       x->flags, x->address, x->row, x->evaluations);
		if (x->floor == EXTPROF_FLOOR_NONE)
			fputs(" floor none", stdout);
		else
			printf(" floor %" PRIu64, x->floor);
		printf(" floor_hits %" PRIu64 " sum %" PRIu64 " max %" PRIu64 "\n"
		       "      recursive %" PRIu64 " abandoned %" PRIu64 " outside %" PRIu64
		       " negative %" PRIu64 "\n",
		       x->floor_hits, x->sum, x->max, x->recursive, x->abandoned, x->outside,
		       x->negative);
		if (x->parent == EXTPROF_PARENT_SEVERAL)
			fputs("      parent several", stdout);
		else if (x->parent)
			printf("      parent [%u]", x->parent - 1);
		else
			fputs("      parent none", stdout);
		printf(" nested %" PRIu64 " nested_sum %" PRIu64 " inner %" PRIu64
		       " inner_sum %" PRIu64 "\n",
		       x->nested, x->nested_sum, x->inner, x->inner_sum);
	}
}

static void dump_bucket(uint32_t decl, uint32_t bucket, uint64_t count)
{
	uint64_t lo = extprof_hist_lower(bucket);

	printf("  decl %-4u bucket %-5u [%" PRIu64 ", %" PRIu64 "] %" PRIu64 "\n", decl, bucket, lo,
	       lo + (extprof_hist_width(bucket) - 1), count);
}

static void dump_hist(const struct xp_dump *d)
{
	printf("\nhistogram (%s, non-empty buckets: decl, bucket, [values], count):\n",
	       d->dense	 ? "dense"
	       : d->rows ? "rows"
			 : "sparse");
	for (uint64_t i = 0; (d->dense || d->rows) && i < d->ndecls; i++) {
		const uint64_t *row =
			d->dense ? d->dense + i * EXTPROF_HIST_BUCKETS : xp_dump_row(d, i);

		for (uint32_t b = 0; row && b < EXTPROF_HIST_BUCKETS; b++)
			if (row[b])
				dump_bucket((uint32_t)i, b, row[b]);
	}
	for (uint64_t i = 0; i < d->nsparse; i++)
		if (d->sparse[i].count)
			dump_bucket(d->sparse[i].decl, d->sparse[i].bucket, d->sparse[i].count);
}

static void dump_callers(const struct xp_dump *d)
{
	printf("\ncallers: %" PRIu64 "\n", d->ncallers);
	for (uint64_t i = 0; i < d->ncallers; i++) {
		const struct extprof_dump_caller *c = &d->callers[i];

		if (!c->evaluations && !c->depth)
			continue;
		printf("  [%" PRIu64 "] decl %u depth %u evaluations %" PRIu64 " floor ", i,
		       c->decl, c->depth, c->evaluations);
		if (c->floor == EXTPROF_FLOOR_NONE)
			fputs("none", stdout);
		else
			printf("%" PRIu64, c->floor);
		printf(" floor_hits %" PRIu64 " sum %" PRIu64 "\n", c->floor_hits, c->sum);
		for (uint32_t k = 0; k < c->depth; k++) {
			printf("      #%u 0x%" PRIx64 " ", k, c->pc[k]);
			xp_text_put(stdout, xp_dump_str(d, c->symbol[k]));
			putchar('\n');
		}
	}
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'},
						 {NULL, 0, NULL, 0}};
	struct xp_dump d;
	struct xp_err e;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			cmd_dump_usage(stdout);
			return 0;
		}
		xp_bad_option("dump", argv);
		return XP_EXIT_BAD;
	}
	if (argc - optind != 1) {
		fputs("extprof: dump: name exactly one dump file (see extprof dump --help)\n",
		      stderr);
		return XP_EXIT_BAD;
	}
	if (xp_dump_read(&d, AT_FDCWD, argv[optind], argv[optind], false, &e)) {
		xp_err_print(&e);
		return XP_EXIT_BAD;
	}
	dump_header(&d);
	dump_sections(&d);
	dump_decls(&d);
	dump_hist(&d);
	dump_callers(&d);
	xp_dump_free(&d);
	return 0;
}
