/* SPDX-License-Identifier: MIT */
/* json_out: a small streaming JSON writer, indented two spaces a level. */
#ifndef XP_JSON_OUT_H
#define XP_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define XP_JSON_MAX_DEPTH 16

struct xp_json {
	FILE *out;
	int depth;
	bool has_item[XP_JSON_MAX_DEPTH];
	bool after_key;
};

void xp_json_init(struct xp_json *j, FILE *out);
void xp_json_begin(struct xp_json *j, char bracket); /* '{' or '[' */
void xp_json_end(struct xp_json *j, char bracket);   /* '}' or ']' */
void xp_json_key(struct xp_json *j, const char *key);
void xp_json_str(struct xp_json *j, const char *s);
void xp_json_u64(struct xp_json *j, uint64_t v);
void xp_json_double(struct xp_json *j, double v);
void xp_json_bool(struct xp_json *j, bool v);
void xp_json_null(struct xp_json *j);

/* A string as a JSON string literal: escaped, invalid UTF-8 as U+FFFD. */
void xp_json_put_string(FILE *out, const char *s);

#endif
