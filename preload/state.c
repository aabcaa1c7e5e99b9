// SPDX-License-Identifier: MIT
/*
 * state: the variables every part of the shim shares, defined apart from
 * all of them so that none depends on another for them: the process's
 * settings (xp), each thread's own state (xp_self), and what the
 * evaluation path counts for the whole process (the window, lost calls).
 */
#include "shim.h"

struct xp_state xp;
__thread struct xp_thread xp_self __attribute__((tls_model("initial-exec")));
volatile int64_t xp_window_open;
volatile uint64_t xp_window_epoch;
uint64_t xp_lost;
uint64_t *xp_lost_at = &xp_lost;
