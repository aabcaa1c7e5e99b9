/* SPDX-License-Identifier: MIT */
/* log: the shim's one-line "extprof: ..." messages, to stderr, a file or nowhere. */
#ifndef EXTPROF_PRELOAD_LOG_H
#define EXTPROF_PRELOAD_LOG_H

/* Messages that may recur (per thread, per worker) are said once. */
enum log_once_id {
	LOG_ONCE_DUMP,
	LOG_ONCE_WORKERS,
	LOG_ONCE_STACK,
	LOG_ONCE_PMU,
	LOG_ONCE_LATE,
	LOG_ONCE_MAX
};

int log_setup(const char *spec);
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_once(enum log_once_id id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
