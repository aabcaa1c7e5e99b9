/* SPDX-License-Identifier: MIT */
/* collect: a validated dump's declarations as accumulators. */
#ifndef XP_COLLECT_H
#define XP_COLLECT_H

#include "model/acc.h"
#include "read/dump.h"

/*
 * Fill @accs[d->ndecls] from the dump's decl records and histogram (dense or
 * sparse; repeated sparse entries add up).  0 or -ENOMEM; on failure @accs
 * holds nothing to free.
 */
int xp_collect(const struct xp_dump *d, struct xp_acc *accs);

#endif
