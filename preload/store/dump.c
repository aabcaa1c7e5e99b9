// SPDX-License-Identifier: MIT
/*
 * dump: create a worker's dump file and map it shared, so that every count
 * the shim makes is in the page cache the moment it is made; grow it as
 * declarations take histogram rows; at a clean exit rewrite it compactly.
 * Plain syscalls, no stdio, no malloc: this runs on a thread's first
 * evaluation, on a declaration's, and at exit, when the program may hold
 * any lock.
 *
 *   live file:   header | sections[4] | decls | strings | callers | rows 0, 1, ... (HIST_ROWS)
 *   compact:     header | sections[4] | decls | strings | hist (sparse) | callers
 *
 *   the live dump's address space: chunks, each reserved when its first row
 *   is taken, never moved (dump.h); chunk k holds 8 << k rows
 *
 *   the file  | tables | row 0 ... row 7 | row 8 ... row 23 | row 24 ...
 *             :                    :  :                :  :
 *   chunk 0   | tables | row 0 ... row 7 |   (its pages, from base)
 *   chunk 1                        | row 8 ... row 23 |   (from the page of row 8)
 *   chunk 2                                       | row 24 ... row 55 |
 *
 *   in each chunk:  base             mapped                        size
 *                   |<- the file, MAP_SHARED ->|<- memory, once the |
 *                   |  (grows with the rows)   |  file cannot grow; |
 *                   |                          |  then PROT_NONE ->|
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core/sys.h"
#include "store/dump.h"

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

enum { SEC_DECLS, SEC_STRINGS, SEC_HIST, SEC_CALLERS, NSEC };

/* Rows the file grows by at most at a time (about 1 MB). */
#define DUMP_GROW_ROWS 32u

/*
 * Room a live dump leaves on its filesystem for its compact form at exit:
 * its tables again, and for the sparse histogram 1 KiB a row (64 buckets)
 * and 64 KiB more.  A guess, on the generous side: a live dump that took
 * the last of the space could not be rewritten at exit.
 */
#define DUMP_ROOM_PER_ROW 1024u
#define DUMP_ROOM_MORE	  65536u

static size_t dump_page_up(size_t x)
{
	size_t page = (size_t)getpagesize();

	return (x + page - 1) & ~(page - 1);
}

/* Room for the names of a declaration added later (a dlopen'ed object's). */
#define DUMP_LATE_STRING 192

static size_t dump_strings_size(const struct dump_decl_info *decls, uint32_t ndecls)
{
	size_t n = 1; /* offset 0 is "" */

	for (uint32_t i = 0; i < ndecls; i++)
		n += strlen(decls[i].kind) + strlen(decls[i].symbol) + strlen(decls[i].object) + 3;
	return n;
}

/*
 * A live dump of @capacity declarations: the tables, then the rows (off[SEC_HIST]
 * is row 0's).  The file starts with whole pages up to the end of row 0;
 * chunk 0's reservation holds the tables and the first DUMP_ROWS0 rows.
 */
struct dump_layout {
	size_t off[NSEC];
	size_t first; /* the file at creation */
	size_t size;  /* chunk 0's reservation */
	uint32_t row_cap;
};

static void dump_plan_live(struct dump_layout *l, uint32_t capacity, size_t strings,
			   uint32_t caller_slots)
{
	size_t o = ALIGN8(sizeof(struct extprof_dump_header) +
			  NSEC * sizeof(struct extprof_dump_section));

	l->off[SEC_DECLS] = o;
	o = ALIGN8(o + (size_t)capacity * sizeof(struct extprof_dump_decl));
	l->off[SEC_STRINGS] = o;
	o = ALIGN8(o + strings);
	l->off[SEC_CALLERS] = o;
	o = ALIGN8(o + (size_t)capacity * caller_slots * sizeof(struct extprof_dump_caller));
	l->off[SEC_HIST] = o;
	l->row_cap = capacity + 1;
	l->first = dump_page_up(o + EXTPROF_HIST_ROW_BYTES);
	l->size = dump_page_up(o + (size_t)(l->row_cap < DUMP_ROWS0 ? l->row_cap : DUMP_ROWS0) *
					   EXTPROF_HIST_ROW_BYTES);
}

static uint32_t dump_put_string(char *strings, size_t *used, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off = (uint32_t)*used;

	memcpy(strings + *used, s, n);
	*used += n;
	return off;
}

static void dump_copy_field(char *dst, size_t dstsz, const char *src)
{
	size_t n = strnlen(src, dstsz - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

void dump_fill_header(struct extprof_dump_header *header, const struct dump_meta *meta,
		      uint32_t worker, size_t size)
{
	header->version = EXTPROF_DUMP_VERSION;
	header->header_size = sizeof(*header);
	header->byte_order = EXTPROF_DUMP_BYTE_ORDER;
	header->flags = meta->flags & ~(EXTPROF_DUMP_F_COMPLETE | EXTPROF_DUMP_F_COMPACT);
	header->file_size = size;
	header->nsections = NSEC;
	header->worker = worker;
	header->process = meta->process;
	header->counter_info = meta->counter_info;
	header->host = meta->host;
	header->callers_depth = meta->callers_depth;
	dump_copy_field(header->window, sizeof(header->window), meta->window);
	header->attach_id = meta->attach_id;
	header->step_first = meta->step_first;
	header->step_every = meta->step_every;
	header->step_limit = meta->step_limit;
	header->rank = meta->rank;
	header->job_size = meta->job_size;
	/* The magic last: a reader sees no magic yet, or a whole header. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(header->magic, EXTPROF_DUMP_MAGIC, EXTPROF_DUMP_MAGIC_LEN);
}

static void dump_set_section(struct extprof_dump_section *s, uint32_t type, uint32_t entry_size,
			     size_t offset, uint64_t count)
{
	s->type = type;
	s->entry_size = entry_size;
	s->offset = offset;
	s->count = count;
}

/*
 * Lay the tables out in a fresh reservation whose first l->first bytes are
 * zeroed and writable: the file's (@file_end) or memory's (0).
 */
static void dump_lay_out(struct dump_map *m, char *base, const struct dump_layout *l,
			 const struct dump_meta *meta, const struct dump_decl_info *decls,
			 uint32_t ndecls, uint32_t worker, size_t strings, size_t file_end)
{
	size_t strings_used;
	struct extprof_dump_section *sec;
	size_t used = 0;
	char *str;

	m->base = base;
	m->size = l->size;
	m->hdr = (struct extprof_dump_header *)base;
	m->decls = (struct extprof_dump_decl *)(base + l->off[SEC_DECLS]);
	m->chunk[0].base = base;
	m->chunk[0].size = l->size;
	m->chunk[0].foff = 0;
	m->chunk[0].mapped = l->first;
	m->row_bias[0] = (uint64_t)base + l->off[SEC_HIST];
	m->nchunks = 1;
	m->callers = (struct extprof_dump_caller *)(base + l->off[SEC_CALLERS]);
	m->strings = base + l->off[SEC_STRINGS];
	m->ndecls = ndecls;
	m->capacity = ndecls + meta->late_decls;
	m->caller_slots = meta->caller_slots;
	m->rows_off = l->off[SEC_HIST];
	m->row_cap = l->row_cap;
	m->nrows = 1; /* row 0: the scratch row */
	m->file_end = file_end;

	str = base + l->off[SEC_STRINGS];
	str[used++] = '\0';
	for (uint32_t i = 0; i < ndecls; i++) {
		struct extprof_dump_decl *d = &m->decls[i];

		d->kind = dump_put_string(str, &used, decls[i].kind);
		d->symbol = dump_put_string(str, &used, decls[i].symbol);
		d->object = dump_put_string(str, &used, decls[i].object);
		d->address = decls[i].address;
		d->flags = decls[i].flags;
		d->floor = EXTPROF_FLOOR_NONE;
	}
	strings_used = used;
	m->strings_cap = strings;
	for (uint32_t i = 0; i < m->capacity * meta->caller_slots; i++) {
		m->callers[i].decl = i / meta->caller_slots;
		m->callers[i].floor = EXTPROF_FLOOR_NONE;
	}

	sec = (struct extprof_dump_section *)(base + sizeof(struct extprof_dump_header));
	dump_set_section(&sec[SEC_DECLS], EXTPROF_SECTION_DECLS, sizeof(struct extprof_dump_decl),
			 l->off[SEC_DECLS], ndecls);
	dump_set_section(&sec[SEC_STRINGS], EXTPROF_SECTION_STRINGS, 1, l->off[SEC_STRINGS],
			 strings_used);
	dump_set_section(&sec[SEC_HIST], EXTPROF_SECTION_HIST_ROWS, EXTPROF_HIST_ROW_BYTES,
			 l->off[SEC_HIST], m->nrows);
	dump_set_section(&sec[SEC_CALLERS], EXTPROF_SECTION_CALLERS,
			 sizeof(struct extprof_dump_caller), l->off[SEC_CALLERS],
			 (uint64_t)ndecls * meta->caller_slots);
	/* The header goes last: a reader never sees half-made tables as valid. */
	dump_fill_header(m->hdr, meta, worker, l->first);
}

/* Whether a file may grow to @size bytes: past RLIMIT_FSIZE the kernel raises SIGXFSZ. */
static bool dump_size_allowed(uint64_t size)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	       size <= (uint64_t)rl.rlim_cur;
}

/*
 * Whether @fd's filesystem has @len bytes free and @keep more (fstatfs: a
 * plain system call; a filesystem that cannot say is believed to have it).
 */
static int dump_keep_room(int fd, uint64_t len, uint64_t keep)
{
	struct statfs sf;
	uint64_t unit;

	if (fstatfs(fd, &sf) < 0)
		return 0;
	unit = sf.f_frsize ? (uint64_t)sf.f_frsize : (uint64_t)sf.f_bsize;
	return (uint64_t)sf.f_bavail * unit >= len + keep ? 0 : -ENOSPC;
}

/* What dump_keep_room keeps for a dump of @rows rows whose tables end at @tables. */
static uint64_t dump_room_at_exit(size_t tables, uint32_t rows)
{
	return (uint64_t)tables + (uint64_t)rows * DUMP_ROOM_PER_ROW + DUMP_ROOM_MORE;
}

int dump_reserve(int fd, uint64_t off, uint64_t len)
{
	int err;

	if (!dump_size_allowed(off + len))
		return -EFBIG;
	/* a filesystem without fallocate gets glibc's block-by-block writes */
	do
		err = posix_fallocate(fd, (off_t)off, (off_t)len);
	while (err == EINTR);
	return -err;
}

/*
 * Address space for a chunk of a dump: PROT_NONE, so that it costs no
 * memory (nor commit charge) until a part is mapped over it.
 */
static char *dump_reserve_space(size_t size)
{
	void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * The space is reserved before the mapping is made (dump_reserve): never
 * over somebody else's file (O_EXCL|O_NOFOLLOW), never a SIGBUS later.
 */
int dump_create(struct dump_map *map, const char *path, const struct dump_meta *meta,
		const struct dump_decl_info *decls, uint32_t ndecls, uint32_t worker)
{
	size_t strings = dump_strings_size(decls, ndecls) + meta->late_decls * DUMP_LATE_STRING;
	struct dump_layout l;
	struct stat st;
	char *base = NULL;
	int fd, err;

	memset(map, 0, sizeof(*map));
	dump_plan_live(&l, ndecls + meta->late_decls, strings, meta->caller_slots);
	if (strlen(path) >= sizeof(map->path))
		return -ENAMETOOLONG;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = dump_keep_room(fd, l.first, dump_room_at_exit(l.off[SEC_HIST], 1));
	if (!err)
		err = dump_reserve(fd, 0, l.first);
	if (!err && fstat(fd, &st) < 0)
		err = -errno;
	if (!err && !(base = dump_reserve_space(l.size)))
		err = -errno;
	if (err)
		goto err_unlink;
	if (mmap(base, l.first, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
	    MAP_FAILED) {
		err = -errno;
		sys_munmap(base, l.size);
		goto err_unlink;
	}
	close(fd);
	memcpy(map->path, path, strlen(path) + 1);
	map->dev = (uint64_t)st.st_dev;
	map->ino = (uint64_t)st.st_ino;
	dump_lay_out(map, base, &l, meta, decls, ndecls, worker, strings, l.first);
	return 0;

err_unlink:
	unlink(path);
	close(fd);
	return err;
}

/* The same tables in anonymous memory: counted, not kept (no usable dir). */
int dump_create_anonymous(struct dump_map *map, const struct dump_meta *meta,
			  const struct dump_decl_info *decls, uint32_t ndecls, uint32_t worker)
{
	size_t strings = dump_strings_size(decls, ndecls) + meta->late_decls * DUMP_LATE_STRING;
	struct dump_layout l;
	char *base;
	int err;

	memset(map, 0, sizeof(*map));
	dump_plan_live(&l, ndecls + meta->late_decls, strings, meta->caller_slots);
	base = dump_reserve_space(l.size);
	if (!base)
		return -errno;
	err = sys_mprotect(base, l.first, PROT_READ | PROT_WRITE);
	if (err < 0) {
		sys_munmap(base, l.size);
		return err;
	}
	dump_lay_out(map, base, &l, meta, decls, ndecls, worker, strings, 0);
	return 0;
}

/*
 * Where chunk @c grows to for a row that ends at @need (both from its
 * base): by as many rows as are taken already, from 1 to DUMP_GROW_ROWS,
 * in whole pages, so that a small program's dump stays small and a large
 * one's grows in few steps; never past the chunk.
 */
static size_t dump_grow_to(const struct dump_map *m, const struct dump_chunk *c, size_t need)
{
	uint32_t n = m->nrows > DUMP_GROW_ROWS ? DUMP_GROW_ROWS : m->nrows;
	size_t to = c->mapped + (size_t)n * EXTPROF_HIST_ROW_BYTES;

	to = dump_page_up(to > need ? to : need);
	return to > c->size ? c->size : to;
}

/*
 * The file grown to cover chunk @c's first @to bytes, and [c->mapped, @to)
 * mapped there, in place.  It is opened again by its name (no descriptor is
 * kept: the program's descriptors are its own), and must still be the file
 * made: one put in its place is not ours.  The part below the file's end
 * (the page a chunk shares with the one before) needs no room.
 */
static int dump_grow_file(struct dump_map *m, struct dump_chunk *c, size_t to)
{
	int fd = open(m->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC), err = 0;
	size_t from = c->mapped, end = c->foff + to;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if ((uint64_t)st.st_dev != m->dev || (uint64_t)st.st_ino != m->ino)
		err = -ESTALE;
	if (!err && end > m->file_end)
		err = dump_keep_room(fd, end - m->file_end,
				     dump_room_at_exit(m->rows_off, m->nrows + 1));
	if (!err && end > m->file_end)
		err = dump_reserve(fd, m->file_end, end - m->file_end);
	if (!err && mmap(c->base + from, to - from, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 fd, (off_t)(c->foff + from)) == MAP_FAILED) {
		/* the range may be unmapped now, and someone else's later: never touched again */
		err = -errno;
		c->size = from;
	}
	close(fd);
	return err;
}

/*
 * [mapped, @to) of chunk @c made writable: the file's while it grows,
 * memory once it cannot (m->grow_err says why), for the rest of the run.
 */
static int dump_grow(struct dump_map *m, struct dump_chunk *c, size_t to)
{
	int err;

	if (m->file_end && !m->grow_err) {
		err = dump_grow_file(m, c, to);

		if (!err) {
			c->mapped = to;
			if (c->foff + to > m->file_end) {
				m->file_end = c->foff + to;
				__atomic_store_n(&m->hdr->file_size, m->file_end, __ATOMIC_RELEASE);
			}
			return 0;
		}
		m->grow_err = err;
		if (c->size < to)
			return err;
	}
	if ((err = sys_mprotect(c->base + c->mapped, to - c->mapped, PROT_READ | PROT_WRITE)) < 0)
		return err;
	c->mapped = to;
	return 0;
}

/*
 * Chunk @k, for its first row: reserved, then published (its row_bias
 * before nchunks, both before any of its rows is given).  Its rows are in
 * the file while the file grows; once it cannot, the chunk is all memory.
 */
static int dump_add_chunk(struct dump_map *m, uint32_t k)
{
	uint32_t first, n;
	size_t start, end, page = (size_t)getpagesize();
	struct dump_chunk *c;
	char *base;

	if (k >= DUMP_CHUNKS)
		return -ENOSPC;
	c = &m->chunk[k];
	first = DUMP_ROWS0 * ((1u << k) - 1);
	n = DUMP_ROWS0 << k;
	start = m->rows_off + (size_t)first * EXTPROF_HIST_ROW_BYTES;
	if (n > m->row_cap - first)
		n = m->row_cap - first;
	end = dump_page_up(m->rows_off + (size_t)(first + n) * EXTPROF_HIST_ROW_BYTES);
	c->foff = start & ~(page - 1);
	base = dump_reserve_space(end - c->foff);
	if (!base)
		return -errno;
	c->base = base;
	c->size = end - c->foff;
	c->mapped = 0;
	__atomic_store_n(&m->row_bias[k], (uint64_t)base - c->foff + m->rows_off, __ATOMIC_RELEASE);
	__atomic_store_n(&m->nchunks, k + 1, __ATOMIC_RELEASE);
	return 0;
}

int dump_take_row(struct dump_map *map, uint32_t decl)
{
	struct extprof_dump_section *sec = (struct extprof_dump_section *)(map->hdr + 1);
	struct extprof_dump_decl *d = &map->decls[decl];
	uint32_t row = map->nrows, k = dump_chunk_of(row);
	size_t end = map->rows_off + ((size_t)row + 1) * EXTPROF_HIST_ROW_BYTES;
	struct dump_chunk *c = &map->chunk[k < DUMP_CHUNKS ? k : 0];
	int err = 0;

	if (d->row)
		return 0;
	if (row >= map->row_cap)
		err = -ENOSPC;
	else if (k >= map->nchunks)
		err = dump_add_chunk(map, k);
	if (!err && end - c->foff > c->size)
		err = -ENOSPC;
	else if (!err && end - c->foff > c->mapped)
		err = dump_grow(map, c, dump_grow_to(map, c, end - c->foff));
	if (err) {
		d->flags |= EXTPROF_DECL_F_HIST_LOST;
		return err;
	}
	/* the row exists before anyone can see it: counted, then given */
	__atomic_store_n(&map->nrows, row + 1, __ATOMIC_RELEASE);
	if (end <= map->file_end)
		__atomic_store_n(&sec[SEC_HIST].count, (uint64_t)row + 1, __ATOMIC_RELEASE);
	else if (map->file_end)
		d->flags |= EXTPROF_DECL_F_HIST_MEMORY;
	__atomic_store_n(&d->row, row, __ATOMIC_RELEASE);
	return 0;
}

const uint64_t *dump_row(const struct dump_map *map, uint32_t decl)
{
	uint32_t row = __atomic_load_n(&map->decls[decl].row, __ATOMIC_ACQUIRE);

	if (!row || row >= __atomic_load_n(&map->nrows, __ATOMIC_ACQUIRE))
		return NULL;
	return dump_row_at(map, row);
}

/*
 * A declaration registered after the dump was made (a function of an object
 * dlopen'ed later): written into the room reserved for it, then published by
 * the section counts.  Returns 0, or -ENOSPC when the room is used up.
 */
int dump_append_decl(struct dump_map *map, const struct dump_decl_info *info)
{
	struct extprof_dump_section *sec = (struct extprof_dump_section *)(map->hdr + 1);
	size_t used = (size_t)sec[SEC_STRINGS].count;
	size_t need = strlen(info->kind) + strlen(info->symbol) + strlen(info->object) + 3;
	struct extprof_dump_decl *d;
	char *str = (char *)map->strings;

	if (map->ndecls == map->capacity || used + need > map->strings_cap)
		return -ENOSPC;
	d = &map->decls[map->ndecls];
	d->kind = dump_put_string(str, &used, info->kind);
	d->symbol = dump_put_string(str, &used, info->symbol);
	d->object = dump_put_string(str, &used, info->object);
	d->address = info->address;
	d->flags = info->flags;
	d->floor = EXTPROF_FLOOR_NONE;
	__atomic_store_n(&sec[SEC_STRINGS].count, used, __ATOMIC_RELEASE);
	map->ndecls++;
	__atomic_store_n(&sec[SEC_DECLS].count, map->ndecls, __ATOMIC_RELEASE);
	__atomic_store_n(&sec[SEC_CALLERS].count, (uint64_t)map->ndecls * map->caller_slots,
			 __ATOMIC_RELEASE);
	return 0;
}

/* A small write buffer on the stack: the compact file is written in order. */
struct dump_writer {
	int fd;
	int err;
	size_t off;
	size_t fill;
	char buf[16384];
};

static void dump_writer_flush(struct dump_writer *w)
{
	size_t done = 0;

	while (!w->err && done < w->fill) {
		ssize_t n = write(w->fd, w->buf + done, w->fill - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			w->err = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	w->fill = 0;
}

static void dump_writer_put(struct dump_writer *w, const void *p, size_t n)
{
	const char *c = p;

	w->off += n;
	while (n) {
		size_t k = sizeof(w->buf) - w->fill;

		if (k > n)
			k = n;
		memcpy(w->buf + w->fill, c, k);
		w->fill += k;
		c += k;
		n -= k;
		if (w->fill == sizeof(w->buf))
			dump_writer_flush(w);
	}
}

static void dump_writer_pad8(struct dump_writer *w)
{
	static const char zero[8];

	dump_writer_put(w, zero, ALIGN8(w->off) - w->off);
}

/*
 * The callers with their addresses named by @resolve: a copy whose pcs are
 * offsets from their objects and whose symbols index names that follow the
 * strings (from @base on).  In memory mapped here, not malloc'ed.
 */
struct dump_named_callers {
	struct extprof_dump_caller *callers;
	char *names;
	size_t names_used;
	size_t map_size;
};

static int dump_name_callers(const struct dump_map *m, dump_resolve_fn resolve, size_t base,
			     struct dump_named_callers *nc)
{
	size_t n = (size_t)m->ndecls * m->caller_slots;
	size_t csize = ALIGN8(n * sizeof(struct extprof_dump_caller));
	size_t names_cap = n * EXTPROF_CALLERS_MAX_DEPTH * 160 + 1;
	char *p;

	memset(nc, 0, sizeof(*nc));
	nc->map_size = csize + names_cap;
	p = mmap(NULL, nc->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	nc->callers = (struct extprof_dump_caller *)p;
	nc->names = p + csize;
	memcpy(nc->callers, m->callers, n * sizeof(struct extprof_dump_caller));
	for (size_t i = 0; i < n; i++) {
		struct extprof_dump_caller *c = &nc->callers[i];

		if (c->depth > EXTPROF_CALLERS_MAX_DEPTH)
			c->depth = EXTPROF_CALLERS_MAX_DEPTH;
		for (uint32_t k = 0; k < c->depth; k++) {
			char name[160];
			uint64_t off = c->pc[k];
			size_t len;

			if (resolve(c->pc[k], name, sizeof(name), &off))
				snprintf(name, sizeof(name), "0x%llx",
					 (unsigned long long)c->pc[k]);
			len = strlen(name) + 1;
			memcpy(nc->names + nc->names_used, name, len);
			c->symbol[k] = (uint32_t)(base + nc->names_used);
			c->pc[k] = off;
			nc->names_used += len;
		}
	}
	return 0;
}

int dump_write_compact(const struct dump_map *map, uint32_t extra_flags)
{
	return dump_write_compact_named(map, extra_flags, NULL);
}

/*
 * Rewrite the live dump as a compact one (sparse histogram) beside it and
 * rename it over the live file: a reader sees one or the other, whole.
 * Evaluations that other threads finish after the snapshot stay in the old
 * mapping only; that is the documented cost of a process exiting with
 * threads still running.
 */
int dump_write_compact_named(const struct dump_map *map, uint32_t extra_flags,
			     dump_resolve_fn resolve)
{
	struct extprof_dump_section sec[NSEC];
	struct dump_named_callers nc = {map->callers, NULL, 0, 0};
	struct extprof_dump_header h;
	struct dump_writer w;
	char tmp[4096 + 8];
	uint64_t nsparse = 0;
	size_t strings_size, o;
	int err;

	if (!map->base)
		return -EINVAL;
	strings_size =
		(size_t)((const struct extprof_dump_section *)(map->hdr + 1))[SEC_STRINGS].count;
	if (resolve && map->caller_slots) {
		err = dump_name_callers(map, resolve, strings_size, &nc);
		if (err)
			return err;
	}
	/* the rows of the declarations evaluated, wherever they lie (file or memory) */
	for (uint32_t d = 0; d < map->ndecls; d++) {
		const uint64_t *row = dump_row(map, d);

		for (uint32_t b = 0; row && b < EXTPROF_HIST_BUCKETS; b++)
			nsparse += row[b] != 0;
	}

	o = ALIGN8(sizeof(h) + sizeof(sec));
	dump_set_section(&sec[SEC_DECLS], EXTPROF_SECTION_DECLS, sizeof(struct extprof_dump_decl),
			 o, map->ndecls);
	o = ALIGN8(o + (size_t)map->ndecls * sizeof(struct extprof_dump_decl));
	dump_set_section(&sec[SEC_STRINGS], EXTPROF_SECTION_STRINGS, 1, o,
			 strings_size + nc.names_used);
	o = ALIGN8(o + strings_size + nc.names_used);
	dump_set_section(&sec[SEC_HIST], EXTPROF_SECTION_HIST_SPARSE,
			 sizeof(struct extprof_dump_hist_entry), o, nsparse);
	o = ALIGN8(o + nsparse * sizeof(struct extprof_dump_hist_entry));
	dump_set_section(&sec[SEC_CALLERS], EXTPROF_SECTION_CALLERS,
			 sizeof(struct extprof_dump_caller), o,
			 (uint64_t)map->ndecls * map->caller_slots);
	o = ALIGN8(o +
		   (size_t)map->ndecls * map->caller_slots * sizeof(struct extprof_dump_caller));

	memcpy(&h, map->hdr, sizeof(h));
	h.flags |= EXTPROF_DUMP_F_COMPACT | extra_flags;
	h.file_size = o;
	if (!dump_size_allowed(o)) {
		err = -EFBIG;
		goto out;
	}

	memcpy(tmp, map->path, strlen(map->path));
	memcpy(tmp + strlen(map->path), ".tmp", 5);
	w.fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w.fd < 0) {
		err = -errno;
		goto out;
	}
	w.err = 0;
	w.off = 0;
	w.fill = 0;
	dump_writer_put(&w, &h, sizeof(h));
	dump_writer_put(&w, sec, sizeof(sec));
	dump_writer_pad8(&w);
	for (uint32_t d = 0; d < map->ndecls; d++) {
		/* a compact dump has no rows: its histogram is here, whole */
		struct extprof_dump_decl x = map->decls[d];

		x.row = 0;
		x.flags &= ~EXTPROF_DECL_F_HIST_MEMORY;
		dump_writer_put(&w, &x, sizeof(x));
	}
	dump_writer_pad8(&w);
	dump_writer_put(&w, map->strings, strings_size);
	dump_writer_put(&w, nc.names, nc.names_used);
	dump_writer_pad8(&w);
	for (uint32_t d = 0; d < map->ndecls; d++) {
		const uint64_t *row = dump_row(map, d);

		for (uint32_t b = 0; row && b < EXTPROF_HIST_BUCKETS && nsparse; b++) {
			struct extprof_dump_hist_entry e = {d, b, row[b]};

			if (!e.count)
				continue;
			dump_writer_put(&w, &e, sizeof(e));
			nsparse--;
		}
	}
	/* Counts that grew while we wrote: keep the section as announced. */
	while (nsparse--) {
		struct extprof_dump_hist_entry e = {0, 0, 0};

		dump_writer_put(&w, &e, sizeof(e));
	}
	dump_writer_pad8(&w);
	dump_writer_put(&w, nc.callers,
			(size_t)map->ndecls * map->caller_slots *
				sizeof(struct extprof_dump_caller));
	dump_writer_pad8(&w);
	dump_writer_flush(&w);
	err = w.err;
	if (close(w.fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, map->path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
out:
	if (nc.map_size)
		sys_munmap(nc.callers, nc.map_size);
	return err;
}

/*
 * Every chunk the rows may need reserved now (a new one is an mmap), and
 * each made writable to its end; rows past what could be are refused from
 * then on (row_cap), histogram-lost, with no system call.
 */
int dump_enter_sandbox(struct dump_map *map)
{
	uint32_t k, first, upto;
	int err = 0;

	if (!map->base)
		return 0;
	for (k = 0; map->row_cap > DUMP_ROWS0 * ((1u << k) - 1); k++) {
		struct dump_chunk *c = &map->chunk[k];

		if (k >= map->nchunks && (err = dump_add_chunk(map, k)))
			break;
		if (c->mapped < c->size &&
		    (err = sys_mprotect(c->base + c->mapped, c->size - c->mapped,
					PROT_READ | PROT_WRITE)) < 0)
			break;
		c->mapped = c->size;
	}
	if (err) {
		/* chunk k, the first not wholly writable: rows below its writable end count */
		first = DUMP_ROWS0 * ((1u << k) - 1);
		upto = first;
		if (k < map->nchunks && map->chunk[k].foff + map->chunk[k].mapped > map->rows_off)
			upto = (uint32_t)((map->chunk[k].foff + map->chunk[k].mapped -
					   map->rows_off) /
					  EXTPROF_HIST_ROW_BYTES);
		if (upto < first)
			upto = first;
		if (upto < map->row_cap)
			map->row_cap = upto;
	}
	if (map->file_end && !map->grow_err)
		map->grow_err = -EPERM;
	return err;
}

void dump_unmap(struct dump_map *map)
{
	for (uint32_t k = 0; map->base && k < map->nchunks; k++)
		sys_munmap(map->chunk[k].base, map->chunk[k].size);
	map->base = NULL;
	map->nchunks = 0;
}
