// SPDX-License-Identifier: MIT
/* xt_json: JSON reports parsed back; the real shim and target found. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "xt_json.h"

json_t *xt_json_parse(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	cr_assert_not_null(root, "not JSON (%s at line %d): %s", jerr.text, jerr.line, text);
	cr_assert(json_is_object(root), "not a JSON object: %s", text);
	return root;
}

json_t *xt_json_decl(json_t *report, const char *symbol)
{
	json_t *decls = json_object_get(report, "declarations"), *d;
	size_t i;

	cr_assert(json_is_array(decls), "no declarations array");
	json_array_foreach(decls, i, d)
	{
		if (!strcmp(json_string_value(json_object_get(d, "name")), symbol))
			return d;
	}
	cr_assert_fail("no declaration %s", symbol);
	return NULL;
}

long long xt_json_int(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	cr_assert(json_is_integer(v), "JSON key %s is not an integer", key);
	return json_integer_value(v);
}

const char *xt_real_shim(void)
{
	const char *s = getenv("XT_REAL_SHIM");

	return s && *s ? s : NULL;
}

const char *xt_target(bool slow)
{
	const char *t = getenv(slow ? "XT_TARGET_SLOW" : "XT_TARGET");

	cr_assert(t && *t, "XT_TARGET is not set (run through meson test)");
	return t;
}
