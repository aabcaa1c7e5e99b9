/* SPDX-License-Identifier: MIT */
/*
 * err: one error, described where it is found and printed once, at the
 * edge, as "extprof: <message>".
 */
#ifndef XP_ERR_H
#define XP_ERR_H

#include <stdint.h>

struct xp_err {
	char msg[1024];
};

/* Describe the error in @e and return @code (a -errno). */
int xp_err_set(struct xp_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "PATH: what (offset N)": a defect at byte @off of a file. */
int xp_err_at(struct xp_err *e, const char *path, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Print @e on stderr as "extprof: <message>". */
void xp_err_print(const struct xp_err *e);
/* Print "extprof: warning: <message>" on stderr. */
void xp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
