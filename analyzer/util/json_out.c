// SPDX-License-Identifier: MIT
/* json_out: streaming JSON with correct escaping and valid UTF-8 out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/json_out.h"

static void json_newline(struct xp_json *j)
{
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Separator and indentation before a value or a key. */
static void json_item(struct xp_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	if (j->has_item[j->depth])
		fputc(',', j->out);
	j->has_item[j->depth] = true;
	json_newline(j);
}

void xp_json_begin(struct xp_json *j, char bracket)
{
	json_item(j);
	fputc(bracket, j->out);
	if (j->depth + 1 < XP_JSON_MAX_DEPTH)
		j->depth++;
	j->has_item[j->depth] = false;
}

void xp_json_end(struct xp_json *j, char bracket)
{
	bool had = j->has_item[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		json_newline(j);
	fputc(bracket, j->out);
	if (!j->depth)
		fputc('\n', j->out);
}

void xp_json_start(struct xp_json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	xp_json_begin(j, '{');
}

void xp_json_finish(struct xp_json *j)
{
	xp_json_end(j, '}');
}

void xp_json_key(struct xp_json *j, const char *key)
{
	json_item(j);
	xp_json_put_string(j->out, key);
	fputs(": ", j->out);
	j->after_key = true;
}

/* Length of the valid UTF-8 sequence at @s, or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (s[0] >= 0xf5)
		n = 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
		return 0; /* overlong, or a UTF-16 surrogate */
	if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
		return 0; /* overlong, or past U+10FFFF */
	return n;
}

void xp_json_put_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	while (*s) {
		int n;

		if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s++, out);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s++);
		} else if (*s < 0x80) {
			fputc(*s++, out);
		} else if ((n = utf8_len(s)) > 0) {
			fwrite(s, 1, (size_t)n, out);
			s += n;
		} else {
			fputs("\\ufffd", out);
			s++;
		}
	}
	fputc('"', out);
}

void xp_json_str(struct xp_json *j, const char *s)
{
	json_item(j);
	xp_json_put_string(j->out, s);
}

void xp_json_u64(struct xp_json *j, uint64_t v)
{
	json_item(j);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void xp_json_double(struct xp_json *j, double v)
{
	json_item(j);
	if (!isfinite(v))
		v = 0;
	fprintf(j->out, "%.9g", v);
}

void xp_json_bool(struct xp_json *j, bool v)
{
	json_item(j);
	fputs(v ? "true" : "false", j->out);
}

void xp_json_null(struct xp_json *j)
{
	json_item(j);
	fputs("null", j->out);
}

void xp_json_key_begin(struct xp_json *j, const char *key, char bracket)
{
	xp_json_key(j, key);
	xp_json_begin(j, bracket);
}

void xp_json_key_u64(struct xp_json *j, const char *key, uint64_t v)
{
	xp_json_key(j, key);
	xp_json_u64(j, v);
}

void xp_json_key_bool(struct xp_json *j, const char *key, bool v)
{
	xp_json_key(j, key);
	xp_json_bool(j, v);
}

void xp_json_key_str(struct xp_json *j, const char *key, const char *s)
{
	xp_json_key(j, key);
	if (s)
		xp_json_str(j, s);
	else
		xp_json_null(j);
}

void xp_json_key_double(struct xp_json *j, const char *key, double v)
{
	xp_json_key(j, key);
	xp_json_double(j, v);
}

void xp_json_key_num(struct xp_json *j, const char *key, double v)
{
	xp_json_key(j, key);
	if (isfinite(v))
		xp_json_double(j, v);
	else
		xp_json_null(j);
}

void xp_json_key_strs(struct xp_json *j, const char *key, char *const *v, size_t n)
{
	xp_json_key_begin(j, key, '[');
	for (size_t i = 0; i < n; i++)
		xp_json_str(j, v[i]);
	xp_json_end(j, ']');
}

void xp_json_key_u64s(struct xp_json *j, const char *key, const uint64_t *v, size_t n)
{
	xp_json_key_begin(j, key, '[');
	for (size_t i = 0; i < n; i++)
		xp_json_u64(j, v[i]);
	xp_json_end(j, ']');
}
