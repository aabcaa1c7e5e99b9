// SPDX-License-Identifier: MIT
/*
 * The search: level-synchronous breadth-first, by a pool of worker threads.
 *
 * The workers share the current level and take chunks of it through one atomic counter. A
 * successor goes through the shared visited set, and only its first finder queues it for
 * the next level, so every distinct state is expanded exactly once, and every predicate is
 * called a number of times that depends on N (and the bound) alone, whatever the number of
 * workers. At the
 * end of a level the workers meet at a barrier; the last to arrive swaps the levels, or ends
 * the search when the next level is empty, a violation was found, or memory ran out.
 *
 * With a bound (-m), the last to arrive also counts the distinct states: once they reach the
 * bound, the next level is the last, and its states are checked but not expanded. Whether
 * that happens depends only on whole levels, so the search is the same for every W.
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

/* The most states a worker takes from the level at a time: enough that the counter is cool. */
#define SEARCH_CHUNK_MAX 256
/* Aim for this many chunks per worker in a level, so that the workers finish together. */
#define SEARCH_CHUNKS_PER_WORKER 8
/* Successors a worker keeps before it takes the lock to queue them. */
#define SEARCH_BATCH 1024

struct search {
	const struct spec *spec;
	unsigned n_rm;
	unsigned n_workers;
	size_t key_len;
	uint64_t max_states; /* 0: no bound */
	struct visited *seen;
	atomic_size_t next_chunk; /* the next chunk of the level nobody has taken */
	size_t chunk;		  /* states per chunk in this level */

	/*
	 * Everything below is guarded by lock. While a level runs, the workers also read cur,
	 * check_only and level[cur] without it: only the last worker into the barrier changes
	 * those.
	 */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct frontier level[2];
	unsigned cur;	 /* level[cur] is being expanded, level[!cur] is being filled */
	bool check_only; /* level[cur] is the last: checked, not expanded */
	uint64_t found;	 /* distinct states at the end of the last level */
	unsigned arrived;
	uint64_t generation;
	bool started, cancelled, done, failed;
	int error; /* the errno of the failure */
	struct search_result res;
};

struct search_worker {
	struct search *sr;
	unsigned index;
	struct search_result res; /* this worker's part of the level, folded in at the barrier */
	struct search_violation candidate;
	bool failed;
	int error;
	uint64_t work;	/* this thread's checker_work, kept for the caller */
	uint64_t found; /* states this worker put in the visited set first, in this level */
	size_t n_batch;
	uint64_t batch[SEARCH_BATCH]; /* refs from the visited set */
	/* Room to work in: a state of STATE_MAX_RM RMs is too big for a thread's stack frame. */
	uint8_t next_key[STATE_KEY_MAX];
	struct tp_state s, next;
};

/* The total order that picks one violation out of a level: kind, predicate, states. */
static bool search_violation_less(const struct search_violation *a,
				  const struct search_violation *b, unsigned n_rm)
{
	int cmp;

	if (!b->found)
		return a->found;
	if (!a->found)
		return false;
	if (a->is_property != b->is_property)
		return !a->is_property;
	if (a->pred != b->pred)
		return a->pred < b->pred;
	cmp = state_key_cmp(a->key, b->key, n_rm);
	if (cmp)
		return cmp < 0;
	return state_key_cmp(a->next_key, b->next_key, n_rm) < 0;
}

/* next_key is NULL for an invariant. */
static void search_note_violation(struct search_worker *w, bool is_property, unsigned pred,
				  const uint8_t *key, const uint8_t *next_key)
{
	struct search_violation *v = &w->candidate;
	size_t len = w->sr->key_len;

	w->res.violations++;
	v->found = true;
	v->is_property = is_property;
	v->pred = pred;
	memcpy(v->key, key, len);
	if (next_key)
		memcpy(v->next_key, next_key, len);
	else
		memset(v->next_key, 0, len);
	if (search_violation_less(v, &w->res.first, w->sr->n_rm))
		w->res.first = *v;
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

static void search_visit(struct search_worker *w, const uint8_t *key)
{
	uint64_t ref;
	int ret = visited_insert(w->sr->seen, key, &ref);

	if (ret < 0) {
		search_fail(w, errno);
		return;
	}
	if (ret == 0)
		return;
	w->found++;
	w->batch[w->n_batch++] = ref;
	if (w->n_batch == SEARCH_BATCH)
		search_flush(w);
}

static bool search_same_key(const struct search *sr, const uint8_t *a, const uint8_t *b)
{
	uint64_t ka, kb;

	if (sr->key_len != sizeof(ka))
		return !memcmp(a, b, sr->key_len);
	memcpy(&ka, a, sizeof(ka));
	memcpy(&kb, b, sizeof(kb));
	return ka == kb;
}

/*
 * Check one state, then, unless its level is the last of a bounded search, generate its
 * successors, checking each step.
 */
static void search_expand(struct search_worker *w, uint64_t ref, bool expand)
{
	const struct search *sr = w->sr;
	const struct spec *spec = sr->spec;
	struct tp_state *s = &w->s, *next = &w->next;
	uint8_t *next_key = w->next_key, buf[sizeof(ref)];
	const uint8_t *key = visited_key(sr->seen, ref, buf);
	unsigned i, a, p;

	state_decode(key, sr->n_rm, s);
	for (i = 0; i < spec->n_invariants; i++) {
		if (!spec->invariants[i].holds(s)) {
			/* Like TLC: a state that breaks an invariant is not expanded. */
			search_note_violation(w, false, i, key, NULL);
			return;
		}
	}
	if (spec->terminal(s))
		w->res.terminal++;
	if (!expand)
		return;

	for (a = 0; a < spec->n_actions; a++) {
		const struct spec_action *act = &spec->actions[a];
		int rm = act->per_rm ? 0 : SPEC_NO_RM;
		int last = act->per_rm ? (int)sr->n_rm - 1 : SPEC_NO_RM;

		for (; rm <= last; rm++) {
			if (!act->enabled(s, rm))
				continue;
			state_copy(next, s);
			act->apply(s, rm, next);
			w->res.transitions++;
			state_encode(next, next_key);
			for (p = 0; p < spec->n_properties; p++)
				if (!spec->properties[p].holds(s, next))
					search_note_violation(w, true, p, key, next_key);
			/* A step that changes nothing (TLA+ allows those) leads back here. */
			if (!search_same_key(sr, next_key, key))
				search_visit(w, next_key);
			if (w->failed)
				return;
		}
	}
}

/*
 * Chunk i of a level is states [i * chunk, (i + 1) * chunk). Worker k always takes chunk k
 * first, and the rest are shared out as the workers come for them: so every worker expands
 * some of every level that has at least one state per worker, and a pool of W threads
 * leaves W threads that ran predicates, whatever the scheduler does.
 */
static void search_expand_level(struct search_worker *w)
{
	struct search *sr = w->sr;
	/* Stable until the barrier, which this worker has to pass before they change. */
	const struct frontier *level = &sr->level[sr->cur];
	size_t chunk = sr->chunk;
	size_t i = w->index;
	bool expand = !sr->check_only;

	while (!w->failed && i < (level->len + chunk - 1) / chunk) {
		size_t at = i * chunk;
		size_t end = at + chunk < level->len ? at + chunk : level->len;

		for (; at < end && !w->failed; at++)
			search_expand(w, level->keys[at], expand);
		i = atomic_fetch_add_explicit(&sr->next_chunk, 1, memory_order_relaxed);
	}
	search_flush(w);
}

/* Called with the level in place and, once the workers run, under the lock. */
static void search_plan_level(struct search *sr)
{
	size_t chunk = sr->level[sr->cur].len / ((size_t)sr->n_workers * SEARCH_CHUNKS_PER_WORKER);

	if (chunk < 1)
		chunk = 1;
	if (chunk > SEARCH_CHUNK_MAX)
		chunk = SEARCH_CHUNK_MAX;
	sr->chunk = chunk;
	atomic_store_explicit(&sr->next_chunk, sr->n_workers, memory_order_relaxed);
}

static void search_fold(struct search *sr, struct search_worker *w)
{
	struct search_result *into = &sr->res, *from = &w->res;

	into->transitions += from->transitions;
	into->terminal += from->terminal;
	into->violations += from->violations;
	if (search_violation_less(&from->first, &into->first, sr->n_rm))
		into->first = from->first;
	memset(from, 0, sizeof(*from));
	sr->found += w->found;
	w->found = 0;
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
	search_fold(sr, w);
	if (w->failed && !sr->failed) {
		sr->failed = true;
		sr->error = w->error;
	}
	if (++sr->arrived == sr->n_workers) {
		sr->res.depth++;
		if (sr->failed || sr->res.violations || !sr->level[!sr->cur].len ||
		    sr->check_only) {
			sr->done = true;
		} else {
			if (sr->max_states && sr->found >= sr->max_states) {
				sr->check_only = true;
				sr->res.bounded = true;
			}
			frontier_clear(&sr->level[sr->cur]);
			sr->cur = !sr->cur;
			search_plan_level(sr);
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
	w->work = checker_work;
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
		workers[i].index = i;
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
 * out of memory, or no thread to run it on. worker_work, unless NULL, has room for one
 * count per worker and receives what each did in units of checker_work.
 */
int search_run(const struct spec *spec, unsigned n_rm, unsigned n_workers, uint64_t max_states,
	       struct search_result *res, uint64_t *worker_work)
{
	struct search_worker *workers = NULL;
	struct search *sr = NULL;
	pthread_t *tids = NULL;
	struct tp_state *init = NULL;
	uint8_t key[STATE_KEY_MAX];
	uint64_t ref;
	unsigned i;
	int ret = -1, err = ENOMEM;

	sr = calloc(1, sizeof(*sr));
	tids = calloc(n_workers, sizeof(*tids));
	workers = calloc(n_workers, sizeof(*workers));
	init = malloc(sizeof(*init));
	if (!sr || !tids || !workers || !init)
		goto out_free;
	sr->spec = spec;
	sr->n_rm = n_rm;
	sr->n_workers = n_workers;
	sr->key_len = state_key_len(n_rm);
	sr->max_states = max_states;
	atomic_init(&sr->next_chunk, 0);
	if (pthread_mutex_init(&sr->lock, NULL))
		goto out_free;
	if (pthread_cond_init(&sr->cond, NULL)) {
		pthread_mutex_destroy(&sr->lock);
		goto out_free;
	}
	sr->seen = visited_create(sr->key_len);
	if (!sr->seen)
		goto out_release;

	state_init(init, n_rm);
	state_encode(init, key);
	if (visited_insert(sr->seen, key, &ref) < 0 || frontier_append(&sr->level[0], &ref, 1))
		goto out_release;
	sr->found = 1;
	search_plan_level(sr);

	err = search_start(sr, tids, workers);
	if (err)
		goto out_release;
	if (sr->failed) {
		err = sr->error;
		goto out_release;
	}
	*res = sr->res;
	res->states = visited_count(sr->seen);
	for (i = 0; worker_work && i < n_workers; i++)
		worker_work[i] = workers[i].work;
	ret = 0;
out_release:
	search_release(sr);
out_free:
	free(init);
	free(workers);
	free(tids);
	free(sr);
	if (ret)
		errno = err;
	return ret;
}
