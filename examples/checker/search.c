// SPDX-License-Identifier: MIT
/*
 * The search: level-synchronous breadth-first, by a pool of worker threads.
 *
 * The workers share the current level and take chunks of it through one atomic cursor. A
 * successor goes through the shared visited set, and only its first finder queues it for
 * the next level, so every distinct state is expanded exactly once, and every predicate is
 * called a number of times that depends on N alone, whatever the number of workers. At the
 * end of a level the workers meet at a barrier; the last to arrive swaps the levels, or ends
 * the search when the next level is empty, a violation was found, or memory ran out.
 *
 * The predicates are reached only through the spec's tables (spec.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontier.h"
#include "search.h"
#include "truth.h"
#include "visited.h"
#include "work.h"

/* States a worker takes from the level at a time: big enough that the cursor is not hot. */
#define SEARCH_CHUNK 256
/* Successors a worker keeps before it takes the lock to queue them. */
#define SEARCH_BATCH 1024

struct search {
	const struct spec *spec;
	unsigned n_rm;
	unsigned n_workers;
	struct visited *seen;
	atomic_size_t cursor;

	/* Everything below is guarded by lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct frontier level[2];
	unsigned cur; /* level[cur] is being expanded, level[!cur] is being filled */
	unsigned arrived;
	uint64_t generation;
	bool started, cancelled, done, failed;
	int error; /* the errno of the failure */
	struct search_result res;
};

struct search_worker {
	struct search *sr;
	struct search_result res; /* this worker's part of the level, folded in at the barrier */
	bool failed;
	int error;
	size_t n_batch;
	uint64_t batch[SEARCH_BATCH];
};

/* The total order that picks one violation out of a level: kind, predicate, states. */
static bool search_violation_less(const struct search_violation *a,
				  const struct search_violation *b)
{
	if (!b->found)
		return a->found;
	if (!a->found)
		return false;
	if (a->is_property != b->is_property)
		return !a->is_property;
	if (a->pred != b->pred)
		return a->pred < b->pred;
	if (a->key != b->key)
		return a->key < b->key;
	return a->next_key < b->next_key;
}

static void search_note_violation(struct search_worker *w, bool is_property, unsigned pred,
				  uint64_t key, uint64_t next_key)
{
	struct search_violation v = {
		.found = true,
		.is_property = is_property,
		.pred = pred,
		.key = key,
		.next_key = next_key,
	};

	w->res.violations++;
	if (search_violation_less(&v, &w->res.first))
		w->res.first = v;
}

static void search_fail(struct search_worker *w, int error)
{
	if (!w->failed) {
		w->failed = true;
		w->error = error ? error : ENOMEM;
	}
}

static void search_flush(struct search_worker *w)
{
	struct search *sr = w->sr;
	int ret;

	if (!w->n_batch)
		return;
	pthread_mutex_lock(&sr->lock);
	ret = frontier_append(&sr->level[!sr->cur], w->batch, w->n_batch);
	pthread_mutex_unlock(&sr->lock);
	if (ret)
		search_fail(w, errno);
	w->n_batch = 0;
}

static void search_visit(struct search_worker *w, uint64_t key)
{
	int ret = visited_insert(w->sr->seen, key);

	if (ret < 0) {
		search_fail(w, errno);
		return;
	}
	if (ret == 0)
		return;
	w->batch[w->n_batch++] = key;
	if (w->n_batch == SEARCH_BATCH)
		search_flush(w);
}

/* Check one state, then generate its successors, checking each step. */
static void search_expand(struct search_worker *w, uint64_t key)
{
	const struct spec *spec = w->sr->spec;
	struct tp_state s, next;
	unsigned i, a, p;

	state_decode(key, w->sr->n_rm, &s);
	for (i = 0; i < spec->n_invariants; i++) {
		if (!spec->invariants[i].holds(&s)) {
			/* Like TLC: a state that breaks an invariant is not expanded. */
			search_note_violation(w, false, i, key, STATE_KEY_NONE);
			return;
		}
	}
	if (spec->terminal(&s))
		w->res.terminal++;

	for (a = 0; a < spec->n_actions; a++) {
		const struct spec_action *act = &spec->actions[a];
		int rm = act->per_rm ? 0 : SPEC_NO_RM;
		int last = act->per_rm ? (int)w->sr->n_rm - 1 : SPEC_NO_RM;

		for (; rm <= last; rm++) {
			uint64_t next_key;

			if (!act->enabled(&s, rm))
				continue;
			act->apply(&s, rm, &next);
			w->res.transitions++;
			next_key = state_encode(&next);
			for (p = 0; p < spec->n_properties; p++)
				if (!spec->properties[p].holds(&s, &next))
					search_note_violation(w, true, p, key, next_key);
			search_visit(w, next_key);
			if (w->failed)
				return;
		}
	}
}

static void search_expand_level(struct search_worker *w)
{
	struct search *sr = w->sr;
	/* Stable until the barrier, which this worker has to pass before it changes. */
	const struct frontier *level = &sr->level[sr->cur];

	while (!w->failed) {
		size_t at = atomic_fetch_add_explicit(&sr->cursor, SEARCH_CHUNK,
						      memory_order_relaxed);
		size_t end = at + SEARCH_CHUNK;

		if (at >= level->len)
			break;
		if (end > level->len)
			end = level->len;
		for (; at < end && !w->failed; at++)
			search_expand(w, level->keys[at]);
	}
	search_flush(w);
}

static void search_fold(struct search_result *into, struct search_result *from)
{
	into->transitions += from->transitions;
	into->terminal += from->terminal;
	into->violations += from->violations;
	if (search_violation_less(&from->first, &into->first))
		into->first = from->first;
	memset(from, 0, sizeof(*from));
}

/*
 * The end-of-level barrier. Returns whether there is another level to search. The last
 * worker in decides for all, under the lock, so every worker sees the same answer.
 */
static bool search_level_done(struct search_worker *w)
{
	struct search *sr = w->sr;
	bool more;

	pthread_mutex_lock(&sr->lock);
	search_fold(&sr->res, &w->res);
	if (w->failed && !sr->failed) {
		sr->failed = true;
		sr->error = w->error;
	}
	if (++sr->arrived == sr->n_workers) {
		sr->res.depth++;
		if (sr->failed || sr->res.violations || !sr->level[!sr->cur].len) {
			sr->done = true;
		} else {
			frontier_clear(&sr->level[sr->cur]);
			sr->cur = !sr->cur;
			atomic_store_explicit(&sr->cursor, 0, memory_order_relaxed);
		}
		sr->arrived = 0;
		sr->generation++;
		pthread_cond_broadcast(&sr->cond);
	} else {
		uint64_t generation = sr->generation;

		while (generation == sr->generation)
			pthread_cond_wait(&sr->cond, &sr->lock);
	}
	more = !sr->done;
	pthread_mutex_unlock(&sr->lock);
	return more;
}

/* Workers wait for the whole pool to exist: a barrier short of a member would never open. */
static bool search_wait_start(struct search *sr)
{
	bool go;

	pthread_mutex_lock(&sr->lock);
	while (!sr->started && !sr->cancelled)
		pthread_cond_wait(&sr->cond, &sr->lock);
	go = !sr->cancelled;
	pthread_mutex_unlock(&sr->lock);
	return go;
}

static void *search_worker_main(void *arg)
{
	struct search_worker *w = arg;

	if (search_wait_start(w->sr)) {
		do
			search_expand_level(w);
		while (search_level_done(w));
	}
	work_retire();
	truth_retire();
	return NULL;
}

static void search_release(struct search *sr)
{
	visited_destroy(sr->seen);
	frontier_release(&sr->level[0]);
	frontier_release(&sr->level[1]);
	pthread_cond_destroy(&sr->cond);
	pthread_mutex_destroy(&sr->lock);
}

static int search_start(struct search *sr, pthread_t *tids, struct search_worker *workers)
{
	unsigned i;
	int ret = 0;

	for (i = 0; i < sr->n_workers; i++) {
		workers[i].sr = sr;
		ret = pthread_create(&tids[i], NULL, search_worker_main, &workers[i]);
		if (ret)
			break;
	}
	pthread_mutex_lock(&sr->lock);
	if (ret)
		sr->cancelled = true;
	else
		sr->started = true;
	pthread_cond_broadcast(&sr->cond);
	pthread_mutex_unlock(&sr->lock);
	while (i--)
		pthread_join(tids[i], NULL);
	return ret;
}

/*
 * Returns 0 with res filled in, or -1 with errno set when the search could not finish:
 * out of memory, or no thread to run it on.
 */
int search_run(const struct spec *spec, unsigned n_rm, unsigned n_workers,
	       struct search_result *res)
{
	struct search_worker *workers = NULL;
	struct search *sr = NULL;
	pthread_t *tids = NULL;
	struct tp_state init;
	uint64_t key;
	int ret = -1, err = ENOMEM;

	sr = calloc(1, sizeof(*sr));
	tids = calloc(n_workers, sizeof(*tids));
	workers = calloc(n_workers, sizeof(*workers));
	if (!sr || !tids || !workers)
		goto out_free;
	sr->spec = spec;
	sr->n_rm = n_rm;
	sr->n_workers = n_workers;
	atomic_init(&sr->cursor, 0);
	if (pthread_mutex_init(&sr->lock, NULL))
		goto out_free;
	if (pthread_cond_init(&sr->cond, NULL)) {
		pthread_mutex_destroy(&sr->lock);
		goto out_free;
	}
	sr->seen = visited_create();
	if (!sr->seen)
		goto out_release;

	state_init(&init, n_rm);
	key = state_encode(&init);
	if (visited_insert(sr->seen, key) < 0 || frontier_append(&sr->level[0], &key, 1))
		goto out_release;

	err = search_start(sr, tids, workers);
	if (err)
		goto out_release;
	if (sr->failed) {
		err = sr->error;
		goto out_release;
	}
	*res = sr->res;
	res->states = visited_count(sr->seen);
	ret = 0;
out_release:
	search_release(sr);
out_free:
	free(workers);
	free(tids);
	free(sr);
	if (ret)
		errno = err;
	return ret;
}
