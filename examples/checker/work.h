/* SPDX-License-Identifier: MIT */
/* The program's own unit of work; what one unit is, is written in work.c. */
#ifndef CHECKER_WORK_H
#define CHECKER_WORK_H

#include <stdint.h>

extern __thread uint64_t checker_work;
extern uint64_t checker_work_total;

void work_retire(void);

#endif /* CHECKER_WORK_H */
