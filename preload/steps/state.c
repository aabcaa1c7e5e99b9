// SPDX-License-Identifier: MIT
/*
 * steps/state: the steps counter's shared variables (steps/state.h), which
 * its set-up writes and its engines read; nothing here calls anything.
 */
#include "steps/state.h"
#include "steps/xlate.h"

struct step_config step_cfg = {STEP_FIRST_DEFAULT, STEP_EVERY_DEFAULT, STEP_LIMIT_DEFAULT,
			       STEP_TRAP_ROOM, STEP_ENGINE_TRAP};
uint64_t step_text_lo, step_text_hi;
uint64_t step_resolvers[STEP_RESOLVERS];
uint64_t step_sigtrap_handler;

__thread struct xl_thread xl_self __attribute__((tls_model("initial-exec")));
struct xl_config xl_cfg;
uint64_t xl_code_epoch;
bool xl_on;
bool xl_signals_on;

bool step_alive(const struct xp_thread *thread)
{
	const struct xp_step *s = &thread->step;
	const struct xp_frame *f;

	if (!s->depth || s->depth > thread->depth || !thread->stack)
		return false;
	f = &thread->stack[s->depth - 1];
	return f->slot == s->slot && (f->flags & XP_FRAME_STEPPED);
}
