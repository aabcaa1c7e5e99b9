/* SPDX-License-Identifier: MIT */
/* json_out: a small streaming JSON writer, indented two spaces a level. */
#ifndef XP_JSON_OUT_H
#define XP_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define XP_JSON_MAX_DEPTH 16

struct xp_json {
	FILE *out;
	int depth;
	bool has_item[XP_JSON_MAX_DEPTH];
	bool after_key;
};

/* Start a JSON document onto @out: its top object opened. */
void xp_json_start(struct xp_json *j, FILE *out);
/* Close the document's top object, and end its line. */
void xp_json_finish(struct xp_json *j);
/* Open an object ('{') or an array ('['), after a key or as an item. */
void xp_json_begin(struct xp_json *j, char bracket);
/* Close what the last xp_json_begin opened ('}' or ']'); a newline at depth 0. */
void xp_json_end(struct xp_json *j, char bracket);
/* An object's key; the next value written is its value. */
void xp_json_key(struct xp_json *j, const char *key);
/* A string value. */
void xp_json_str(struct xp_json *j, const char *s);
/* A whole number value. */
void xp_json_u64(struct xp_json *j, uint64_t v);
/* A number value (%.9g); 0 when @v is not finite. */
void xp_json_double(struct xp_json *j, double v);
/* true or false. */
void xp_json_bool(struct xp_json *j, bool v);
/* null. */
void xp_json_null(struct xp_json *j);

/* "key": and open an object ('{') or an array ('[') as its value. */
void xp_json_key_begin(struct xp_json *j, const char *key, char bracket);
/* "key": @v. */
void xp_json_key_u64(struct xp_json *j, const char *key, uint64_t v);
/* "key": true or false. */
void xp_json_key_bool(struct xp_json *j, const char *key, bool v);
/* "key": @s, or null when @s is NULL. */
void xp_json_key_str(struct xp_json *j, const char *key, const char *s);
/* "key": @v as xp_json_double writes it. */
void xp_json_key_double(struct xp_json *j, const char *key, double v);
/* "key": @v, or null when it is not finite (there is no such number). */
void xp_json_key_num(struct xp_json *j, const char *key, double v);
/* "key": [@v[0], ...], @n strings. */
void xp_json_key_strs(struct xp_json *j, const char *key, char *const *v, size_t n);
/* "key": [@v[0], ...], @n whole numbers. */
void xp_json_key_u64s(struct xp_json *j, const char *key, const uint64_t *v, size_t n);

/* A string as a JSON string literal: escaped, invalid UTF-8 as U+FFFD. */
void xp_json_put_string(FILE *out, const char *s);

#endif
