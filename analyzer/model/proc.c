// SPDX-License-Identifier: MIT
/* proc: group dumps into processes and merge each process's workers. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/collect.h"
#include "util/num.h"
#include "util/u64set.h"
#include "util/vec.h"
#include "model/proc.h"

static void proc_key_of(struct xp_proc_key *k, const struct extprof_dump_header *h)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->hostname, h->hostname, sizeof(k->hostname));
	k->pid = h->pid;
	k->process_id = h->process_id;
}

void xp_proc_free(struct xp_proc *p)
{
	for (size_t i = 0; i < p->ndecls; i++) {
		free(p->decls[i].kind);
		free(p->decls[i].symbol);
		free(p->decls[i].object);
		xp_acc_free(&p->decls[i].acc);
	}
	for (size_t i = 0; i < p->nworkers; i++)
		free(p->workers[i].path);
	free(p->decls);
	free(p->workers);
	free(p);
}

uint64_t xp_proc_key_hash(const struct extprof_dump_header *h)
{
	struct xp_proc_key k;

	proc_key_of(&k, h);
	return xp_hash64(&k, sizeof(k), 0);
}

struct xp_proc *xp_procset_take(struct xp_procset *s)
{
	struct xp_proc *p;

	if (!s->n)
		return NULL;
	p = s->list[0];
	HASH_DEL(s->by_key, p);
	memmove(&s->list[0], &s->list[1], (s->n - 1) * sizeof(*s->list));
	s->n--;
	return p;
}

void xp_procset_free(struct xp_procset *s)
{
	struct xp_proc *p, *tmp;

	HASH_ITER(hh, s->by_key, p, tmp)
	{
		HASH_DEL(s->by_key, p);
		xp_proc_free(p);
	}
	free(s->list);
	memset(s, 0, sizeof(*s));
}

/* Fields every dump of one process must agree on: they are facts of the process. */
struct same_field {
	const char *name;
	size_t off;
	size_t size; /* 0: a NUL-terminated string */
};

#define SAME(f)                                                                                    \
	{                                                                                          \
#f, offsetof(struct extprof_dump_header, f),                                       \
			sizeof(((struct extprof_dump_header *)0)->f)                               \
	}
#define SAME_STR(f)                                                                                \
	{                                                                                          \
#f, offsetof(struct extprof_dump_header, f), 0                                     \
	}

static const struct same_field same_fields[] = {
	SAME(counter),	  SAME_STR(counter_name), SAME_STR(counter_unit), SAME(calibration),
	SAME(resolution), SAME(nested_overhead),  SAME_STR(exe_path),	  SAME(build_id_size),
	SAME(build_id),	  SAME(callers_depth),	  SAME_STR(window),	  SAME(attach_id),
};

static bool same_differs(const struct same_field *f, const struct extprof_dump_header *a,
			 const struct extprof_dump_header *b)
{
	const char *x = (const char *)a + f->off, *y = (const char *)b + f->off;

	return f->size ? memcmp(x, y, f->size) != 0 : strcmp(x, y) != 0;
}

static int proc_check_header(const struct xp_proc *p, const struct xp_dump *d, struct xp_err *e)
{
	for (size_t i = 0; i < sizeof(same_fields) / sizeof(same_fields[0]); i++) {
		const struct same_field *f = &same_fields[i];

		if (same_differs(f, &p->hdr, d->hdr))
			return xp_err_at(
				e, d->path, f->off,
				"%s differs from %s, a dump of the same process (pid %" PRIu64 ")",
				f->name, p->workers[0].path, p->key.pid);
	}
	for (size_t i = 0; i < p->nworkers; i++)
		if (p->workers[i].index == d->hdr->worker)
			return xp_err_at(e, d->path, offsetof(struct extprof_dump_header, worker),
					 "worker %u of process %" PRIu64 " is also in %s (a copy?)",
					 d->hdr->worker, p->key.pid, p->workers[i].path);
	return 0;
}

static int proc_add_worker(struct xp_proc *p, const struct xp_dump *d)
{
	struct xp_worker *w = realloc(p->workers, (p->nworkers + 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	p->workers = w;
	w[p->nworkers].index = d->hdr->worker;
	w[p->nworkers].path = strdup(d->path);
	if (!w[p->nworkers].path)
		return -ENOMEM;
	p->nworkers++;
	p->complete = p->complete && xp_dump_finished(d->hdr);
	p->run_total = xp_sat_add(p->run_total, d->hdr->run_total);
	p->threads = xp_sat_add(p->threads, d->hdr->threads);
	p->lost = xp_sat_add(p->lost, d->hdr->lost);
	if (d->hdr->start_ns && (!p->start_ns || d->hdr->start_ns < p->start_ns))
		p->start_ns = d->hdr->start_ns;
	if (d->hdr->end_ns > p->end_ns)
		p->end_ns = d->hdr->end_ns;
	return 0;
}

static int pdecl_set(struct xp_pdecl *x, const struct xp_dump *d, uint32_t i)
{
	x->kind = strdup(xp_dump_str(d, d->decls[i].kind));
	x->symbol = strdup(xp_dump_str(d, d->decls[i].symbol));
	x->object = strdup(xp_dump_str(d, d->decls[i].object));
	return x->kind && x->symbol && x->object ? 0 : -ENOMEM;
}

static int proc_new(struct xp_proc **out, const struct xp_dump *d, const uint32_t *order,
		    struct xp_acc *accs)
{
	struct xp_proc *p = calloc(1, sizeof(*p));
	int err = -ENOMEM;

	if (!p)
		return -ENOMEM;
	proc_key_of(&p->key, d->hdr);
	p->hdr = *d->hdr;
	p->complete = true;
	p->decls = calloc(d->ndecls + 1, sizeof(*p->decls));
	if (!p->decls)
		goto fail;
	for (uint64_t i = 0; i < d->ndecls; i++) {
		/* counted first: proc_free() frees what this entry already holds */
		p->ndecls++;
		p->decls[i].acc = accs[order[i]];
		memset(&accs[order[i]], 0, sizeof(accs[0]));
		if (pdecl_set(&p->decls[i], d, order[i]))
			goto fail;
	}
	err = proc_add_worker(p, d);
	if (err)
		goto fail;
	*out = p;
	return 0;
fail:
	xp_proc_free(p);
	return err;
}

static int pdecl_cmp(const struct xp_pdecl *x, const struct xp_dump *d, uint32_t i)
{
	const struct extprof_dump_decl *y = &d->decls[i];
	int c = strcmp(x->kind, xp_dump_str(d, y->kind));

	if (!c)
		c = strcmp(x->symbol, xp_dump_str(d, y->symbol));
	if (!c)
		c = strcmp(x->object, xp_dump_str(d, y->object));
	return c;
}

/* Within a process every worker has the same declarations: a difference is a defect. */
static int proc_check_decls(const struct xp_proc *p, const struct xp_dump *d, const uint32_t *order,
			    struct xp_err *e)
{
	size_t i = 0, j = 0;

	while (i < p->ndecls && j < d->ndecls && !pdecl_cmp(&p->decls[i], d, order[j]))
		i++, j++;
	if (i == p->ndecls && j == d->ndecls)
		return 0;
	if (j < d->ndecls && (i == p->ndecls || pdecl_cmp(&p->decls[i], d, order[j]) > 0)) {
		const struct extprof_dump_decl *y = &d->decls[order[j]];

		return xp_err_at(e, d->path, (uint64_t)((const unsigned char *)y - d->buf),
				 "declaration %s:%s@%s is not in %s, a dump of the same process "
				 "(pid %" PRIu64 ")",
				 xp_dump_str(d, y->kind), xp_dump_str(d, y->symbol),
				 xp_dump_str(d, y->object), p->workers[0].path, p->key.pid);
	}
	return xp_err_set(e, -EINVAL,
			  "%s: declaration %s:%s@%s of %s, a dump of the same process (pid %" PRIu64
			  "), is missing",
			  d->path, p->decls[i].kind, p->decls[i].symbol, p->decls[i].object,
			  p->workers[0].path, p->key.pid);
}

static int proc_merge(struct xp_proc *p, const struct xp_dump *d, const uint32_t *order,
		      const struct xp_acc *accs, struct xp_err *e)
{
	int err = proc_check_header(p, d, e);

	if (!err)
		err = proc_check_decls(p, d, order, e);
	if (err)
		return err;
	for (size_t i = 0; i < p->ndecls && !err; i++)
		err = xp_acc_add(&p->decls[i].acc, &accs[order[i]]);
	if (!err)
		err = proc_add_worker(p, d);
	if (err)
		return xp_err_set(e, err, "%s: out of memory", d->path);
	return 0;
}

static int procset_insert(struct xp_procset *s, struct xp_proc *p)
{
	if (XP_GROW(&s->list, &s->cap, s->n, 16))
		return -ENOMEM;
	s->list[s->n++] = p;
	HASH_ADD(hh, s->by_key, key, sizeof(p->key), p);
	return 0;
}

static int procset_fold(struct xp_procset *s, const struct xp_dump *d, const uint32_t *order,
			struct xp_acc *accs, struct xp_err *e)
{
	struct xp_proc_key k;
	struct xp_proc *p;
	int err;

	proc_key_of(&k, d->hdr);
	HASH_FIND(hh, s->by_key, &k, sizeof(k), p);
	if (p)
		return proc_merge(p, d, order, accs, e);
	err = proc_new(&p, d, order, accs);
	if (!err) {
		err = procset_insert(s, p);
		if (err)
			xp_proc_free(p);
	}
	if (err)
		return xp_err_set(e, err, "%s: out of memory", d->path);
	return 0;
}

int xp_procset_add(struct xp_procset *s, const struct xp_dump *d, struct xp_err *e)
{
	struct xp_acc *accs = calloc(d->ndecls + 1, sizeof(*accs));
	int err = -ENOMEM;

	if (!accs || xp_collect(d, accs)) {
		free(accs);
		return xp_err_set(e, err, "%s: out of memory", d->path);
	}
	err = procset_fold(s, d, d->order, accs, e);
	for (uint64_t i = 0; i < d->ndecls; i++)
		xp_acc_free(&accs[i]);
	free(accs);
	return err;
}
