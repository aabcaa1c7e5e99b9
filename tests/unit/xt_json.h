/* SPDX-License-Identifier: MIT */
/* xt_json: reports parsed back with jansson, for the tests that read them. */
#ifndef XT_JSON_H
#define XT_JSON_H

#include <jansson.h>

/* Parse @text, asserting it is one JSON object. */
json_t *xt_json_parse(const char *text);
/* The declaration named @symbol in a report's "declarations" (asserted). */
json_t *xt_json_decl(json_t *report, const char *symbol);
/* An integer member (asserted). */
long long xt_json_int(json_t *obj, const char *key);

/*
 * The real shim and the test target, from the environment meson sets;
 * NULL when the build is sanitized (the shim cannot be preloaded into an
 * uninstrumented program then): the test is skipped.
 */
const char *xt_real_shim(void);
const char *xt_target(bool slow);

#endif
