// SPDX-License-Identifier: MIT
/*
 * dump_check_sections: every section of a known type, of the entry size
 * version 1 defines, 8-byte aligned, after the section table, inside the
 * file, overlapping no other, and the ones a dump needs all present.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dump_read.h"

struct sec_type {
	const char *name;
	uint32_t entry_size;
};

static const struct sec_type sec_types[] = {
	[EXTPROF_SECTION_DECLS] = {"DECLS", sizeof(struct extprof_dump_decl)},
	[EXTPROF_SECTION_STRINGS] = {"STRINGS", 1},
	[EXTPROF_SECTION_HIST_DENSE] = {"HIST_DENSE", sizeof(uint64_t)},
	[EXTPROF_SECTION_HIST_SPARSE] = {"HIST_SPARSE", sizeof(struct extprof_dump_hist_entry)},
	[EXTPROF_SECTION_CALLERS] = {"CALLERS", sizeof(struct extprof_dump_caller)},
};

#define NTYPES (sizeof(sec_types) / sizeof(sec_types[0]))

static uint64_t sec_field_off(const struct xp_dump *d, uint32_t i, size_t field)
{
	return d->hdr->header_size + (uint64_t)i * sizeof(struct extprof_dump_section) + field;
}

#define SEC_OFF(i, f) sec_field_off(d, i, offsetof(struct extprof_dump_section, f))

static int check_one(const struct xp_dump *d, uint32_t i, uint64_t table_end, struct xp_err *e)
{
	const struct extprof_dump_section *s = &d->sections[i];
	uint64_t bytes, end;

	if (s->type == 0 || s->type >= NTYPES)
		return xp_err_at(e, d->path, SEC_OFF(i, type), "section %u: unknown type %u", i,
				 s->type);
	if (s->entry_size != sec_types[s->type].entry_size)
		return xp_err_at(e, d->path, SEC_OFF(i, entry_size),
				 "section %u (%s): entry_size %u, expected %u", i,
				 sec_types[s->type].name, s->entry_size,
				 sec_types[s->type].entry_size);
	if (s->offset % 8 || s->offset < table_end)
		return xp_err_at(e, d->path, SEC_OFF(i, offset),
				 "section %u (%s): offset %llu is %s", i, sec_types[s->type].name,
				 (unsigned long long)s->offset,
				 s->offset % 8 ? "not 8-byte aligned" : "inside the header");
	if (__builtin_mul_overflow(s->count, (uint64_t)s->entry_size, &bytes) ||
	    __builtin_add_overflow(s->offset, bytes, &end) || end > d->size)
		return xp_err_at(e, d->path, SEC_OFF(i, count),
				 "section %u (%s): %llu entries at offset %llu run past the end of "
				 "the file (%zu bytes)",
				 i, sec_types[s->type].name, (unsigned long long)s->count,
				 (unsigned long long)s->offset, d->size);
	return 0;
}

static int cmp_by_offset(const void *a, const void *b)
{
	const struct extprof_dump_section *x = *(const struct extprof_dump_section *const *)a;
	const struct extprof_dump_section *y = *(const struct extprof_dump_section *const *)b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Sections must not share bytes: a write to one would change another. */
static int check_overlap(const struct xp_dump *d, struct xp_err *e)
{
	const struct extprof_dump_section *by_off[EXTPROF_DUMP_MAX_SECTIONS];
	uint32_t n = 0;

	/* An empty section has no bytes to share, wherever it points. */
	for (uint32_t i = 0; i < d->hdr->nsections; i++)
		if (d->sections[i].count)
			by_off[n++] = &d->sections[i];
	qsort(by_off, n, sizeof(by_off[0]), cmp_by_offset);
	for (uint32_t i = 1; i < n; i++) {
		const struct extprof_dump_section *p = by_off[i - 1], *s = by_off[i];
		uint64_t i_s = (uint64_t)(s - d->sections);

		if (p->offset + p->count * p->entry_size > s->offset)
			return xp_err_at(e, d->path, SEC_OFF(i_s, offset),
					 "section %llu (%s) overlaps section %llu (%s)",
					 (unsigned long long)i_s, sec_types[s->type].name,
					 (unsigned long long)(p - d->sections),
					 sec_types[p->type].name);
	}
	return 0;
}

static void sec_bind(struct xp_dump *d, const struct extprof_dump_section *s)
{
	const void *p = d->buf + s->offset;

	switch (s->type) {
	case EXTPROF_SECTION_DECLS:
		d->decls = p;
		d->ndecls = s->count;
		break;
	case EXTPROF_SECTION_STRINGS:
		d->strings = p;
		d->nstrings = s->count;
		break;
	case EXTPROF_SECTION_HIST_DENSE:
		d->dense = p;
		break;
	case EXTPROF_SECTION_HIST_SPARSE:
		d->sparse = p;
		d->nsparse = s->count;
		break;
	case EXTPROF_SECTION_CALLERS:
		d->callers = p;
		d->ncallers = s->count;
		break;
	}
}

static int check_present(const struct xp_dump *d, const int *seen, struct xp_err *e)
{
	const uint64_t table = d->hdr->header_size;
	const struct extprof_dump_section *dense;
	int hist = seen[EXTPROF_SECTION_HIST_DENSE] + seen[EXTPROF_SECTION_HIST_SPARSE];
	bool compact = d->hdr->flags & EXTPROF_DUMP_F_COMPACT;

	if (!seen[EXTPROF_SECTION_DECLS] || !seen[EXTPROF_SECTION_STRINGS] || hist != 1)
		return xp_err_at(e, d->path, table, "section table lacks %s",
				 !seen[EXTPROF_SECTION_DECLS]	  ? "the DECLS section"
				 : !seen[EXTPROF_SECTION_STRINGS] ? "the STRINGS section"
				 : hist				  ? "a single histogram (has two)"
								  : "a histogram section");
	if (compact != (seen[EXTPROF_SECTION_HIST_SPARSE] == 1))
		return xp_err_at(e, d->path, offsetof(struct extprof_dump_header, flags),
				 "flags say %s but the histogram is %s",
				 compact ? "compact" : "live", compact ? "dense" : "sparse");
	if (d->ndecls > UINT32_MAX)
		return xp_err_at(e, d->path, table, "%llu declarations, more than a dump can index",
				 (unsigned long long)d->ndecls);
	for (uint32_t i = 0; i < d->hdr->nsections; i++) {
		dense = &d->sections[i];
		if (dense->type == EXTPROF_SECTION_HIST_DENSE &&
		    dense->count != d->ndecls * EXTPROF_HIST_BUCKETS)
			return xp_err_at(
				e, d->path, SEC_OFF(i, count),
				"HIST_DENSE has %llu buckets, expected %llu (%llu declarations)",
				(unsigned long long)dense->count,
				(unsigned long long)(d->ndecls * EXTPROF_HIST_BUCKETS),
				(unsigned long long)d->ndecls);
	}
	return 0;
}

int xp_dump_check_sections(struct xp_dump *d, struct xp_err *e)
{
	uint64_t table_end = d->hdr->header_size +
			     (uint64_t)d->hdr->nsections * sizeof(struct extprof_dump_section);
	int seen[NTYPES] = {0};
	int err;

	d->sections = (const struct extprof_dump_section *)(d->buf + d->hdr->header_size);
	for (uint32_t i = 0; i < d->hdr->nsections; i++) {
		err = check_one(d, i, table_end, e);
		if (err)
			return err;
		if (seen[d->sections[i].type]++)
			return xp_err_at(e, d->path, SEC_OFF(i, type),
					 "section %u: a second %s section", i,
					 sec_types[d->sections[i].type].name);
		sec_bind(d, &d->sections[i]);
	}
	err = check_overlap(d, e);
	if (!err)
		err = check_present(d, seen, e);
	return err;
}
