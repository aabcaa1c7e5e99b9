// SPDX-License-Identifier: MIT
/*
 * hooks_tally: count what was hooked and refused, group the refusals by
 * reason, and say it all in one line.  Startup code: snprintf is fine.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hooks_tally.h"
#include "log.h"

const char *hooks_num(unsigned long long n, char *buf, size_t len)
{
	char digits[32];
	int k = snprintf(digits, sizeof(digits), "%llu", n);
	size_t o = 0;

	for (int i = 0; i < k && o + 2 < len; i++) {
		if (i && (k - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/*
 * The reason with its particulars taken out, so that refusals group:
 * numbers become N ("is N bytes"), and a reason naming another function
 * keeps only what it says of it.
 */
static void hooks_group_key(const char *why, char *key, size_t len)
{
	static const struct {
		const char *has, *key;
	} cut[] = {
		{"is already hooked as", "are aliases of functions already hooked"},
		{"is inside ", "are inside a function, not at its start"},
		{" by another name:", "are aliases of functions that are never hooked"},
	};
	size_t o = 0;

	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		if (strstr(why, cut[i].has)) {
			snprintf(key, len, "%s", cut[i].key);
			return;
		}
	}
	for (const char *p = why; *p && o + 2 < len; p++) {
		if (p[0] == '0' && p[1] == 'x') {
			key[o++] = '0';
			key[o++] = 'x';
			p += 2;
			while (p[1] && strchr("0123456789abcdef", p[1]))
				p++;
			if (o + 2 < len)
				key[o++] = 'N';
			continue;
		}
		if (*p >= '0' && *p <= '9') {
			while (p[1] >= '0' && p[1] <= '9')
				p++;
			key[o++] = 'N';
			continue;
		}
		key[o++] = *p;
	}
	key[o] = '\0';
}

void hooks_tally_refuse(struct hooks_tally *t, const char *symbol, const char *why)
{
	size_t used = strlen(t->refusals);
	struct hooks_group *g = NULL;
	char key[128];

	t->refused++;
	if (t->refused <= HOOKS_REFUSALS_SHOWN)
		snprintf(t->refusals + used, sizeof(t->refusals) - used, "%s%s %s",
			 t->refused > 1 ? "; " : "", symbol, why);
	hooks_group_key(why, key, sizeof(key));
	for (unsigned i = 0; i < t->ngroups && !g; i++) {
		if (!strcmp(t->groups[i].key, key))
			g = &t->groups[i];
	}
	if (!g && t->ngroups < HOOKS_GROUPS) {
		g = &t->groups[t->ngroups++];
		snprintf(g->key, sizeof(g->key), "%s", key);
		snprintf(g->example, sizeof(g->example), "%s", symbol);
	}
	if (!g) {
		/* the last group takes what no other could */
		g = &t->groups[HOOKS_GROUPS - 1];
		snprintf(g->key, sizeof(g->key), "for other reasons");
	}
	g->count++;
}

void hooks_tally_ifunc(struct hooks_tally *t, const char *symbol, const char *impl)
{
	size_t used = strlen(t->ifunc_list);

	t->ifuncs++;
	if (used + strlen(symbol) + strlen(impl) + 8 < sizeof(t->ifunc_list) - 8)
		snprintf(t->ifunc_list + used, sizeof(t->ifunc_list) - used, "%s%s -> %s",
			 used ? ", " : "", symbol, impl);
	else if (!strstr(t->ifunc_list, ", ..."))
		snprintf(t->ifunc_list + used, sizeof(t->ifunc_list) - used, ", ...");
}

/* Whether some were refused for the limit of declarations (shim.h, XP_MAX_DECLS). */
static bool hooks_limited(const struct hooks_tally *t)
{
	for (unsigned i = 0; i < t->ngroups; i++)
		if (strstr(t->groups[i].key, "past the limit"))
			return true;
	return false;
}

static int hooks_group_cmp(const struct hooks_group *a, const struct hooks_group *b)
{
	return a->count != b->count ? (a->count > b->count ? -1 : 1) : strcmp(a->key, b->key);
}

void hooks_tally_say(const struct hooks_tally *t, const char *where)
{
	struct hooks_group g[HOOKS_GROUPS];
	char line[1000], a[32], b[32], c[32];
	size_t used;

	if (t->ifuncs)
		log_msg("IFUNC%s resolved as on this CPU%s: %s", t->ifuncs > 1 ? "s" : "", where,
			t->ifunc_list);
	if (!t->tried)
		return;
	if (!t->refused) {
		log_msg("hooked %s/%s%s", hooks_num(t->hooked, a, sizeof(a)),
			hooks_num(t->tried, b, sizeof(b)), where);
		return;
	}
	if (t->refused <= HOOKS_REFUSALS_SHOWN) {
		log_msg("hooked %s/%s%s; refused %u: %s", hooks_num(t->hooked, a, sizeof(a)),
			hooks_num(t->tried, b, sizeof(b)), where, t->refused, t->refusals);
		return;
	}
	/* by reason, the most frequent first */
	memcpy(g, t->groups, t->ngroups * sizeof(g[0]));
	for (unsigned i = 1; i < t->ngroups; i++) {
		struct hooks_group x = g[i];
		unsigned j = i;

		for (; j > 0 && hooks_group_cmp(&x, &g[j - 1]) < 0; j--)
			g[j] = g[j - 1];
		g[j] = x;
	}
	line[0] = '\0';
	used = 0;
	for (unsigned i = 0; i < t->ngroups && used + 40 < sizeof(line); i++) {
		int n = snprintf(line + used, sizeof(line) - used, "%s%s %s (%s%s)", i ? "; " : "",
				 hooks_num(g[i].count, c, sizeof(c)), g[i].key,
				 g[i].count > 1 ? "e.g. " : "", g[i].example);

		if (n < 0 || (size_t)n >= sizeof(line) - used) {
			snprintf(line + used, sizeof(line) - used, "; ...");
			break;
		}
		used += (size_t)n;
	}
	log_msg("hooked %s/%s%s%s; refused %s: %s", hooks_num(t->hooked, a, sizeof(a)),
		hooks_num(t->tried, b, sizeof(b)), where, hooks_limited(t) ? ": the limit" : "",
		hooks_num(t->refused, c, sizeof(c)), line);
}
