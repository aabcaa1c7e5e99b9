// SPDX-License-Identifier: MIT
/*
 * dump_check_sections: every section of a type its version knows, of the
 * entry size that version defines, 8-byte aligned, after the section
 * table, inside the file, overlapping no other, and the ones a dump needs
 * all present.  Older versions' declarations are copied into the current
 * layout (xp_dump_upgrade_decls): the rest of the analyzer reads one.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "read/dump_check.h"

struct sec_type {
	const char *name;
	uint32_t entry_size;			 /* the current version's */
	uint32_t old_size[EXTPROF_DUMP_VERSION]; /* [v]: version v's, when it differs */
	uint32_t versions;			 /* bit v: known in version v */
};

#define V1 (1u << 1)
#define V2 (1u << 2)
#define V3 (1u << 3)

static const struct sec_type sec_types[] = {
	[EXTPROF_SECTION_DECLS] = {"DECLS",
				   sizeof(struct extprof_dump_decl),
				   {[1] = XP_DUMP_V1_DECL_SIZE, [2] = XP_DUMP_V2_DECL_SIZE},
				   V1 | V2 | V3},
	[EXTPROF_SECTION_STRINGS] = {"STRINGS", 1, {0}, V1 | V2 | V3},
	[EXTPROF_SECTION_HIST_DENSE] = {"HIST_DENSE", sizeof(uint64_t), {0}, V1},
	[EXTPROF_SECTION_HIST_SPARSE] = {"HIST_SPARSE",
					 sizeof(struct extprof_dump_hist_entry),
					 {0},
					 V1 | V2 | V3},
	[EXTPROF_SECTION_CALLERS] = {"CALLERS",
				     sizeof(struct extprof_dump_caller),
				     {0},
				     V1 | V2 | V3},
	[EXTPROF_SECTION_HIST_ROWS] = {"HIST_ROWS", EXTPROF_HIST_ROW_BYTES, {0}, V2 | V3},
};

#define NTYPES (sizeof(sec_types) / sizeof(sec_types[0]))

static uint32_t sec_entry_size(const struct xp_dump *d, uint32_t type)
{
	uint32_t v = d->hdr->version;

	return v < EXTPROF_DUMP_VERSION && sec_types[type].old_size[v] ? sec_types[type].old_size[v]
								       : sec_types[type].entry_size;
}

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
	if (!(sec_types[s->type].versions & (1u << d->hdr->version)))
		return xp_err_at(e, d->path, SEC_OFF(i, type),
				 "section %u: type %u (%s) is not one of version %u", i, s->type,
				 sec_types[s->type].name, d->hdr->version);
	if (s->entry_size != sec_entry_size(d, s->type))
		return xp_err_at(e, d->path, SEC_OFF(i, entry_size),
				 "section %u (%s): entry_size %u, expected %u", i,
				 sec_types[s->type].name, s->entry_size,
				 sec_entry_size(d, s->type));
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
		d->decl_size = s->entry_size;
		break;
	case EXTPROF_SECTION_STRINGS:
		d->strings = p;
		d->nstrings = s->count;
		break;
	case EXTPROF_SECTION_HIST_DENSE:
		d->dense = p;
		break;
	case EXTPROF_SECTION_HIST_ROWS:
		d->rows = p;
		d->nrows = s->count;
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
	int hist = seen[EXTPROF_SECTION_HIST_DENSE] + seen[EXTPROF_SECTION_HIST_SPARSE] +
		   seen[EXTPROF_SECTION_HIST_ROWS];
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
				 compact ? "compact" : "live",
				 compact ? (d->rows ? "in rows" : "dense") : "sparse");
	if (d->rows && !d->nrows)
		return xp_err_at(e, d->path, table, "HIST_ROWS has no row 0");
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
