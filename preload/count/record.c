// SPDX-License-Identifier: MIT
/*
 * record: the samples steps held back (step_hold), recorded at the end.
 * The rule for one delta, record_delta, is in record.h: the evaluation
 * path inlines it.
 */
#include "count/record.h"
#include "store/dump.h"

void record_held_samples(struct xp_worker *worker)
{
	for (uint32_t i = 0; worker->map.base && i < worker->map.ndecls; i++) {
		struct extprof_dump_decl *d = &worker->map.decls[i];

		if (d->step_held) {
			uint64_t delta = d->step_held - 1;

			d->step_held = 0;
			/* too late for a row of its own: row 0 if it has none */
			record_delta(d, delta);
			dump_row_at(&worker->map, d->row)[extprof_hist_bucket(delta)]++;
		}
	}
}
