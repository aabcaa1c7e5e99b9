// SPDX-License-Identifier: MIT
/*
 * report_group: the groups --by keeps apart (a host, a process, an MPI
 * rank, an executable), their labels, and who a process is for the labels
 * of a row (its host, pid and rank).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/path.h"
#include "report/report.h"

static const char *const by_names[] = {
	[XP_BY_HOST] = "host",
	[XP_BY_PROCESS] = "process",
	[XP_BY_RANK] = "rank",
	[XP_BY_EXECUTABLE] = "executable",
};

int xp_report_opt_by(struct xp_report_opts *o, const char *v, struct xp_err *e)
{
	for (int i = XP_BY_HOST; i <= XP_BY_EXECUTABLE; i++)
		if (!strcmp(v, by_names[i])) {
			o->by = (enum xp_by)i;
			return 0;
		}
	return xp_err_set(e, -EINVAL, "--by %s: expected host, process, rank or executable", v);
}

const char *xp_by_name(enum xp_by by)
{
	return by == XP_BY_NONE ? NULL : by_names[by];
}

/* @src into @dst of @size bytes, cut short when it does not fit. */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A process of no MPI job has no rank (job_size 0, as every dump before version 4). */
static int64_t proc_rank(const struct xp_proc *p)
{
	return p->hdr.job_size ? (int64_t)p->hdr.rank : -1;
}

char *xp_group_label(char *buf, size_t size, const struct xp_proc *p, enum xp_by by)
{
	switch (by) {
	case XP_BY_HOST:
		copy_str(buf, size, p->hdr.hostname);
		break;
	case XP_BY_PROCESS:
		snprintf(buf, size, "%" PRIu64 "@%s", p->key.pid, p->hdr.hostname);
		break;
	case XP_BY_RANK:
		if (proc_rank(p) < 0)
			snprintf(buf, size, "-");
		else
			snprintf(buf, size, "%" PRId64, proc_rank(p));
		break;
	case XP_BY_EXECUTABLE:
		copy_str(buf, size, xp_base_name(p->hdr.exe_path));
		break;
	case XP_BY_NONE:
	default:
		buf[0] = '\0';
		break;
	}
	return buf;
}

ssize_t xp_report_group_index(const struct xp_report *r, const char *label)
{
	for (size_t i = 0; label && i < r->ngroups; i++)
		if (!strcmp(r->groups[i], label))
			return (ssize_t)i;
	return -1;
}

void xp_who_of(struct xp_who *w, const struct xp_proc *p)
{
	memcpy(w->host, p->hdr.hostname, sizeof(w->host));
	w->host[sizeof(w->host) - 1] = '\0';
	w->pid = p->key.pid;
	w->rank = proc_rank(p);
}

void xp_build_id_hex(char *out, const struct extprof_dump_header *h)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t n = h->build_id_size;

	for (uint32_t i = 0; i < n; i++) {
		out[2 * i] = hex[h->build_id[i] >> 4];
		out[2 * i + 1] = hex[h->build_id[i] & 15];
	}
	out[2 * n] = '\0';
	if (!n)
		strcpy(out, "none");
}

void xp_ident_of(struct xp_ident *id, const struct xp_proc *p)
{
	memset(id, 0, sizeof(*id));
	xp_who_of(&id->who, p);
	copy_str(id->exe, sizeof(id->exe), xp_base_name(p->hdr.exe_path));
	xp_build_id_hex(id->build_id, &p->hdr);
}

void xp_ident_add(struct xp_ident *dst, const struct xp_ident *src)
{
	dst->mixed |= src->mixed;
	if (strcmp(dst->who.host, src->who.host))
		dst->mixed |= XP_MIXED_HOST;
	if (dst->who.pid != src->who.pid || strcmp(dst->who.host, src->who.host))
		dst->mixed |= XP_MIXED_PID;
	if (dst->who.rank != src->who.rank)
		dst->mixed |= XP_MIXED_RANK;
	if (strcmp(dst->exe, src->exe))
		dst->mixed |= XP_MIXED_EXE;
	if (strcmp(dst->build_id, src->build_id))
		dst->mixed |= XP_MIXED_BUILD;
}

char *xp_who_text(char *buf, size_t size, const struct xp_who *w)
{
	int n = snprintf(buf, size, "host %s, pid %" PRIu64, w->host, w->pid);

	if (w->rank >= 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", rank %" PRId64, w->rank);
	return buf;
}
