// SPDX-License-Identifier: MIT
/*
 * attach_gate: where the gate of the remote calls goes in the process
 * (attach_arch.h; its code is the architecture's), and its bytes put back.
 *
 * A loaded object's code segment ends inside its last page, and the page
 * is mapped whole: the bytes after the segment's end are the file's next
 * bytes (padding, or the start of the next segment, which is mapped again
 * at its own address).  No section the program runs or reads is there, so
 * nothing the program does meets them.  The gate is written there, in
 * libc's (or the loader's, or the program's) last code page, through
 * /proc/PID/mem, for as long as the calls last, and the bytes that were
 * there go back after.
 *
 *     code segment                 its last page
 *     ...-----------------------+------------------+
 *       .text  .fini  (r-x)     | gate  | ...      |  <- never run, never read
 *     ...-----------------------+------------------+
 *                          segment end           page end
 *
 * A tracer that died with the gate there left it, and so does one whose
 * borrowed thread is still asleep in a system call on its way back: the
 * next one finds the gate's own bytes, uses them as they are, and puts
 * back the file's only when it sees every thread stopped outside them.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach.h"

/* The room after @o's code segment: where it starts, 0 when none. */
static uint64_t gate_room(pid_t pid, const struct xp_layout *l, const struct xp_object *o,
			  size_t need)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), bias = 0, at = 0;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	bool biased = false;

	if (!o->found || !o->base || xp_mem_read(pid, o->base, &eh, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(*ph) || !eh.e_phnum || eh.e_phnum > 256)
		return 0;
	ph = calloc(eh.e_phnum, sizeof(*ph));
	if (!ph || xp_mem_read(pid, o->base + eh.e_phoff, ph, eh.e_phnum * sizeof(*ph))) {
		free(ph);
		return 0;
	}
	/* the load bias: where the segment at file offset 0 was put */
	for (int i = 0; i < eh.e_phnum && !biased; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) {
			bias = o->base - (ph[i].p_vaddr & ~(page - 1));
			biased = true;
		}
	for (int i = 0; i < eh.e_phnum && biased && !at; i++) {
		uint64_t end, start, page_end;
		const struct xp_map *m;

		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		end = bias + ph[i].p_vaddr +
		      (ph[i].p_memsz > ph[i].p_filesz ? ph[i].p_memsz : ph[i].p_filesz);
		start = (end + 15) & ~15ull;
		page_end = (end + page - 1) & ~(page - 1);
		m = xp_maps_at(&l->maps, start);
		if (start + need <= page_end && m && m->perms[2] == 'x' && m->path[0] == '/' &&
		    start + need <= m->hi)
			at = start;
	}
	free(ph);
	return at;
}

/* The file's bytes under @len bytes at @at of the process: 0 or -errno. */
static int gate_file_bytes(pid_t pid, const struct xp_layout *l, uint64_t at, uint8_t *buf,
			   size_t len)
{
	const struct xp_map *m = xp_maps_at(&l->maps, at);
	char *path;
	ssize_t n;
	int fd;

	if (!m || asprintf(&path, "/proc/%d/root%s", (int)xp_proc_view(pid), m->path) < 0)
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, (off_t)(at - m->lo + m->off));
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

int xp_gate_find(pid_t pid, struct xp_layout *l, struct xp_gate *g, struct xp_err *e)
{
	const struct xp_object *objs[] = {&l->libc, &l->ld, &l->exe};
	const uint8_t *code = xp_arch_gate(&g->len);

	memset(g->orig, 0, sizeof(g->orig));
	g->at = 0;
	g->found = false;
	if (g->len > sizeof(g->orig))
		return xp_err_set(e, -E2BIG, "attach: the gate is too long");
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]) && !g->at; i++)
		g->at = gate_room(pid, l, objs[i], g->len);
	if (!g->at)
		return xp_err_set(e, -ENOSPC,
				  "process %d: no room after the code of libc, the loader or the "
				  "program for the calls' gate (%zu bytes)",
				  (int)pid, g->len);
	l->gate_lo = g->at;
	l->gate_hi = g->at + g->len;
	if (xp_mem_read(pid, g->at, g->orig, g->len))
		return xp_err_set(e, -errno, "process %d: reading at 0x%llx: %s", (int)pid,
				  (unsigned long long)g->at, strerror(errno));
	/* left by a tracer that died: the gate stays as it is, the file's bytes go back */
	if (!memcmp(g->orig, code, g->len)) {
		g->found = true;
		if (gate_file_bytes(pid, l, g->at, g->orig, g->len))
			memcpy(g->orig, code, g->len);
	}
	return 0;
}

int xp_gate_put(pid_t pid, struct xp_gate *g, struct xp_err *e)
{
	size_t len;
	const uint8_t *code = xp_arch_gate(&len);

	if (g->found)
		return 0;
	if (xp_mem_write(pid, g->at, code, len))
		return xp_err_set(e, -errno, "process %d: writing the calls' gate at 0x%llx: %s",
				  (int)pid, (unsigned long long)g->at, strerror(errno));
	return 0;
}

/* Whether every thread of @tr is stopped with its pc outside @g. */
static bool gate_unused(struct xp_trace *tr, const struct xp_gate *g)
{
	for (size_t i = 0; i < tr->n; i++) {
		const struct xp_tthread *t = &tr->t[i];
		struct xp_arch_now now;

		if (t->gone)
			continue;
		if (t->stop == XP_TS_RUNNING || xp_arch_now_of(t->tid, &now) ||
		    (now.pc >= g->at && now.pc <= g->at + g->len))
			return false;
	}
	return true;
}

void xp_gate_take(struct xp_trace *tr, struct xp_gate *g)
{
	if (g->at && (!g->found || gate_unused(tr, g)))
		xp_mem_write(tr->pid, g->at, g->orig, g->len);
	g->at = 0;
}
