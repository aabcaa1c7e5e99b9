// SPDX-License-Identifier: MIT
/*
 * dump_check_header: is this an extprof dump of a version and byte order we
 * read, whole, with a header whose every field makes sense?
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "read/dump_check.h"

#define HDR_OFF(field) ((uint64_t)offsetof(struct extprof_dump_header, field))

#define KNOWN_FLAGS                                                                                \
	(EXTPROF_DUMP_F_COMPLETE | EXTPROF_DUMP_F_COMPACT | EXTPROF_DUMP_F_WINDOW |                \
	 EXTPROF_DUMP_F_EXEC | EXTPROF_DUMP_F_EXIT_NOW | EXTPROF_DUMP_F_ATTACHED)
#define KNOWN_COUNTER_FLAGS                                                                        \
	(EXTPROF_COUNTER_F_DETERMINISTIC | EXTPROF_COUNTER_F_THREAD_LOCAL |                        \
	 EXTPROF_COUNTER_F_RDPMC | EXTPROF_COUNTER_F_CALIBRATION_SETTLED |                         \
	 EXTPROF_COUNTER_F_SAMPLED | EXTPROF_COUNTER_F_TRANSLATED)

#define BEING_CREATED ", or left so by a process that died creating it"

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * The shim creates a dump empty, reserves its whole size (zeros), lays out
 * its tables and writes the magic last: a file caught meanwhile is empty,
 * or of a plausible size with no magic yet.
 */
static int check_being_created(const struct xp_dump *d, struct xp_err *e)
{
	if (d->size == 0) {
		xp_err_at(e, d->path, 0, "empty: a dump being created" BEING_CREATED);
		return -EINPROGRESS;
	}
	if (d->size >= sizeof(struct extprof_dump_header) && d->size % 8 == 0 &&
	    all_zero(d->buf, EXTPROF_DUMP_MAGIC_LEN)) {
		xp_err_at(e, d->path, 0, "no header yet: a dump being created" BEING_CREATED);
		return -EINPROGRESS;
	}
	return 0;
}

static int check_identity(const struct xp_dump *d, struct xp_err *e)
{
	const struct extprof_dump_header *h = (const void *)d->buf;
	int err = check_being_created(d, e);

	if (err)
		return err;
	if (d->size < EXTPROF_DUMP_MAGIC_LEN ||
	    memcmp(d->buf, EXTPROF_DUMP_MAGIC, EXTPROF_DUMP_MAGIC_LEN) != 0) {
		if (d->size < EXTPROF_DUMP_MAGIC_LEN &&
		    !memcmp(d->buf, EXTPROF_DUMP_MAGIC, d->size))
			return xp_err_at(e, d->path, d->size,
					 "truncated: %zu bytes, shorter than the magic", d->size);
		return xp_err_at(e, d->path, 0, "not an extprof dump (bad magic)");
	}
	if (d->size < sizeof(*h))
		return xp_err_at(e, d->path, d->size,
				 "truncated: %zu bytes, shorter than the %zu-byte header", d->size,
				 sizeof(*h));
	if (h->byte_order == __builtin_bswap32(EXTPROF_DUMP_BYTE_ORDER))
		return xp_err_at(e, d->path, HDR_OFF(byte_order),
				 "written in the other byte order (big-endian); this extprof reads "
				 "little-endian dumps");
	if (h->byte_order != EXTPROF_DUMP_BYTE_ORDER)
		return xp_err_at(e, d->path, HDR_OFF(byte_order), "bad byte order mark 0x%08x",
				 h->byte_order);
	if (h->version < EXTPROF_DUMP_VERSION_OLDEST || h->version > EXTPROF_DUMP_VERSION)
		return xp_err_at(
			e, d->path, HDR_OFF(version),
			"unsupported format version %u (this extprof reads versions %u to %u)",
			h->version, EXTPROF_DUMP_VERSION_OLDEST, EXTPROF_DUMP_VERSION);
	if (h->version >= 4 && (h->flags & EXTPROF_DUMP_F_JOB)) {
		xp_err_at(e, d->path, HDR_OFF(flags),
			  "the file of an MPI job (its ranks' dumps), not a dump of its own");
		return XP_DUMP_JOB;
	}
	return 0;
}

static int check_sizes(const struct xp_dump *d, struct xp_err *e)
{
	const struct extprof_dump_header *h = d->hdr;

	if (h->header_size != sizeof(*h))
		return xp_err_at(e, d->path, HDR_OFF(header_size),
				 "header_size %u, expected %zu for version %u", h->header_size,
				 sizeof(*h), h->version);
	if (h->file_size > d->size)
		return xp_err_at(e, d->path, d->size, "truncated: %zu bytes of the %llu written",
				 d->size, (unsigned long long)h->file_size);
	/* a live dump from version 2 on grows: its header says so once it has */
	if (h->file_size < d->size && (h->version < 2 || (h->flags & EXTPROF_DUMP_F_COMPACT) ||
				       h->file_size < h->header_size))
		return xp_err_at(e, d->path, h->file_size,
				 "%zu bytes, but the header says the dump ends at %llu", d->size,
				 (unsigned long long)h->file_size);
	if (h->nsections == 0 || h->nsections > EXTPROF_DUMP_MAX_SECTIONS)
		return xp_err_at(e, d->path, HDR_OFF(nsections),
				 "nsections %u out of range (1..%u)", h->nsections,
				 EXTPROF_DUMP_MAX_SECTIONS);
	if (h->header_size + (uint64_t)h->nsections * sizeof(struct extprof_dump_section) > d->size)
		return xp_err_at(e, d->path, h->header_size,
				 "section table of %u entries runs past the end of the file",
				 h->nsections);
	return 0;
}

struct fixed_str {
	const char *name;
	size_t off;
	size_t size;
};

#define FIXED(f)                                                                                   \
	{                                                                                          \
#f, offsetof(struct extprof_dump_header, f),                                       \
			sizeof(((struct extprof_dump_header *)0)->f)                               \
	}

static const struct fixed_str fixed_strs[] = {
	FIXED(counter_name), FIXED(counter_unit), FIXED(hostname), FIXED(cpu_model),
	FIXED(kernel),	     FIXED(exe_path),	  FIXED(window),
};

static int check_strings(const struct xp_dump *d, struct xp_err *e)
{
	for (size_t i = 0; i < sizeof(fixed_strs) / sizeof(fixed_strs[0]); i++) {
		const struct fixed_str *f = &fixed_strs[i];

		if (!memchr(d->buf + f->off, '\0', f->size))
			return xp_err_at(e, d->path, f->off,
					 "header field %s is not NUL-terminated", f->name);
	}
	return 0;
}

static int check_fields(const struct xp_dump *d, uint32_t known, struct xp_err *e)
{
	const struct extprof_dump_header *h = d->hdr;

	if (h->flags & ~known)
		return xp_err_at(e, d->path, HDR_OFF(flags), "unknown flags 0x%x",
				 h->flags & ~known);
	if (h->counter >= EXTPROF_COUNTER_MAX)
		return xp_err_at(e, d->path, HDR_OFF(counter), "unknown counter kind %u",
				 h->counter);
	if (h->counter_flags & ~KNOWN_COUNTER_FLAGS)
		return xp_err_at(e, d->path, HDR_OFF(counter_flags), "unknown counter flags 0x%x",
				 h->counter_flags & ~KNOWN_COUNTER_FLAGS);
	if (!h->counter_name[0])
		return xp_err_at(e, d->path, HDR_OFF(counter_name), "empty counter name");
	if (h->build_id_size > sizeof(h->build_id))
		return xp_err_at(e, d->path, HDR_OFF(build_id_size),
				 "build_id_size %u larger than %zu", h->build_id_size,
				 sizeof(h->build_id));
	if (h->callers_depth > EXTPROF_CALLERS_MAX_DEPTH)
		return xp_err_at(e, d->path, HDR_OFF(callers_depth),
				 "callers_depth %u larger than %u", h->callers_depth,
				 EXTPROF_CALLERS_MAX_DEPTH);
	if (h->job_size && h->rank >= h->job_size)
		return xp_err_at(e, d->path, HDR_OFF(rank), "rank %u of a job of %u", h->rank,
				 h->job_size);
	return 0;
}

int xp_dump_check_start(const void *buf, size_t have, uint64_t size, const char *path,
			struct xp_err *e)
{
	/* d.size is the file's: the checks below read no byte past the header */
	struct xp_dump d = {.path = (char *)path, .buf = (unsigned char *)buf, .size = size};
	int err;

	if (have < size && have < sizeof(struct extprof_dump_header))
		return xp_err_set(e, -EIO, "%s: short read of the header", path);
	err = check_identity(&d, e);
	if (err)
		return err;
	d.hdr = buf;
	return check_sizes(&d, e);
}

int xp_dump_check_header(struct xp_dump *d, struct xp_err *e)
{
	int err = check_identity(d, e);

	/* a job's file inside a job's, or named as a dump: not one dump */
	if (err == XP_DUMP_JOB)
		return -EINVAL;
	if (err)
		return err;
	d->hdr = (const struct extprof_dump_header *)d->buf;
	err = check_sizes(d, e);
	if (!err)
		err = check_strings(d, e);
	if (!err)
		err = check_fields(d, KNOWN_FLAGS, e);
	return err;
}

int xp_dump_check_job_header(struct xp_dump *d, struct xp_err *e)
{
	int err = check_identity(d, e);

	if (!err)
		return xp_err_at(e, d->path, HDR_OFF(flags), "a dump, not the file of an MPI job");
	if (err != XP_DUMP_JOB)
		return err;
	d->hdr = (const struct extprof_dump_header *)d->buf;
	err = check_sizes(d, e);
	if (!err && d->hdr->file_size != d->size)
		err = xp_err_at(e, d->path, d->hdr->file_size,
				"%zu bytes, but the header says the file ends at %llu", d->size,
				(unsigned long long)d->hdr->file_size);
	if (!err)
		err = check_strings(d, e);
	if (!err)
		err = check_fields(d, KNOWN_FLAGS | EXTPROF_DUMP_F_JOB, e);
	return err;
}
