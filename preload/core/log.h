/* SPDX-License-Identifier: MIT */
/*
 * log: the shim's one-line "extprof: ..." messages, to stderr, a file or
 * nowhere.  Everything here is async-signal-safe: no stdio, no malloc, no
 * lock, no locale (a message may be said on a thread's first evaluation,
 * inside a signal handler that interrupted malloc).
 */
#ifndef EXTPROF_PRELOAD_LOG_H
#define EXTPROF_PRELOAD_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Messages that may recur (per thread, per worker) are said once. */
enum log_once_id {
	LOG_ONCE_DUMP,
	LOG_ONCE_WORKERS,
	LOG_ONCE_STACK,
	LOG_ONCE_PMU,
	LOG_ONCE_LATE,
	LOG_ONCE_FINISH,
	LOG_ONCE_GROW,
	LOG_ONCE_ROW,
	LOG_ONCE_XLATE,
	LOG_ONCE_MEMORY,
	LOG_ONCE_TABLES,
	LOG_ONCE_MAX
};

/*
 * EXTPROF_LOG: "stderr" (the default, NULL or empty), "off", or a file to
 * append to.  0, or -errno with the reason in @why (the caller says it).
 */
int log_setup(const char *spec, const char **why);

typedef void (*log_sink_fn)(const char *line, size_t len);

/*
 * Every line to @sink instead of the log (extprof attach: to the tracer,
 * never to the program's stderr); the said-once messages may be said again.
 */
void log_set_sink(log_sink_fn sink);

/*
 * Say nothing from now on: the program loaded a seccomp filter, which may
 * kill it for the shim's write(2) (sandbox.c).
 */
void log_silence(void);

/* One line; every %s argument is escaped to printable ASCII. */
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, said only the first time for @id. */
void log_once(enum log_once_id id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Keep the lines said from now on instead of writing them, until
 * log_release() writes them (@say) or drops them: a process learns only at
 * the end of its start-up whether it has anything to say.  When they fill
 * the room kept for them, @say_now() decides instead (NULL: drop).
 */
void log_hold(bool (*say_now)(void));
/* End log_hold(): write the lines kept (@say) or drop them. */
void log_release(bool say);

/* The text of errno @err (positive), in English, without the locale. */
const char *log_strerror(int err);
/*
 * The same into @buf, and for ENOMEM the limit that explains it when one is
 * set (RLIMIT_AS, RLIMIT_DATA): "Cannot allocate memory: the address-space
 * limit (RLIMIT_AS, ulimit -v) is 488 MiB".  Returns @buf.
 */
const char *log_strerror_limit(int err, char *buf, size_t size);

/*
 * snprintf for the shim's slow paths: %s %c %d %i %u %x with the h, l, ll
 * and z length modifiers, a zero-padded width for numbers ("%016llx"), and
 * %%; no other flag, width or precision.  @escape turns
 * every byte of a %s argument outside printable ASCII into \xHH.  Always
 * NUL-terminates; returns the length written.
 */
size_t log_vformat(char *buf, size_t size, bool escape, const char *fmt, va_list ap);
/* log_vformat without escaping, with its arguments given in place. */
size_t log_format(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
