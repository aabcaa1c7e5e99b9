// SPDX-License-Identifier: MIT
/*
 * hooks_tally: count what was hooked and refused, group the refusals by
 * reason, and put it all in one line.  Startup code (and the analyzer's):
 * snprintf is fine.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hooks_tally.h"

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
 * The group a reason falls in, said of many: each reason the shim gives,
 * with what it says of one function, in the plural.  The first that the
 * reason holds wins: the longer forms come before their shorter ones.
 */
static const struct {
	const char *has, *key;
} hooks_groups[] = {
	{"is already hooked as", "are aliases of functions already hooked"},
	{"is inside ", "are inside a function, not at its start"},
	{"is in no function the object describes", "are in no function the object describes"},
	{" by another name:", "are aliases of functions that are never hooked"},
	{"too short for the 5-byte jump", "are too short for the 5-byte jump to their stub"},
	{"lands inside the patched bytes, and ",
	 "are jumped into by another function within their first 5 bytes, with no padding "
	 "before them to take the jump"},
	{"a jump from ", "are jumped into within their first bytes by another function"},
	{"a jump at +", "jump back into their own first 5 bytes"},
	{"returns at +", "return within their first 5 bytes"},
	{"calls at +", "call within their first 5 bytes, whose return would land in the patch"},
	{"cannot move '", "begin with an instruction that cannot be moved to a stub"},
	{"cannot decode", "begin with bytes that do not decode"},
	{"returns twice", "return twice (as setjmp, vfork, getcontext)"},
	{"looks at its caller", "look at their caller's address (as dlsym, dlopen)"},
	{"is entered by a jump", "are entered by a jump, not called (lazy binding, a signal's "
				 "return)"},
	{"is what the shim calls", "are what the shim calls while it counts"},
	{"is the shim's own", "are the shim's own"},
	{"is the object's entry point", "are the object's entry point"},
	{"is Go code", "are Go code, whose stacks Go's runtime walks by their return addresses"},
	{"is in a Go object", "are in a Go object whose Go code cannot be told from its C code"},
	{"is an IFUNC whose choice", "are IFUNCs whose choice on this CPU has no size"},
	{"is not in an executable segment", "are not in an executable segment"},
	{"is past the limit", "are past the limit of declarations"},
	{"finds no room left", "find no room left in the dumps already made"},
	{"no memory for its stub", "find no memory for their stub within 2 GiB"},
	{"rip-relative operand is out of reach", "have a rip-relative operand out of their stub's "
						 "reach"},
};

/*
 * The reason's group: its words for many, or else the reason with its
 * particulars taken out (numbers become N), so that the same ones group.
 */
static void hooks_group_key(const char *why, char *key, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < sizeof(hooks_groups) / sizeof(hooks_groups[0]); i++) {
		if (strstr(why, hooks_groups[i].has)) {
			snprintf(key, len, "%s", hooks_groups[i].key);
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
	char key[160];

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
		snprintf(g->why, sizeof(g->why), "%s", why);
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

/* Whether some were refused for the limit of declarations (XP_MAX_DECLS, core/state.h). */
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

void hooks_tally_lines(const struct hooks_tally *t, const char *where, char *ifuncs, size_t ilen,
		       char *line, size_t len)
{
	struct hooks_group g[HOOKS_GROUPS];
	char groups[900], a[32], b[32], c[32];
	size_t used;

	ifuncs[0] = line[0] = '\0';
	if (t->ifuncs)
		snprintf(ifuncs, ilen, "IFUNC%s resolved as on this CPU%s: %s",
			 t->ifuncs > 1 ? "s" : "", where, t->ifunc_list);
	if (!t->tried)
		return;
	if (!t->refused) {
		snprintf(line, len, "hooked %s/%s%s", hooks_num(t->hooked, a, sizeof(a)),
			 hooks_num(t->tried, b, sizeof(b)), where);
		return;
	}
	if (t->refused <= HOOKS_REFUSALS_SHOWN) {
		snprintf(line, len, "hooked %s/%s%s; refused %u: %s",
			 hooks_num(t->hooked, a, sizeof(a)), hooks_num(t->tried, b, sizeof(b)),
			 where, t->refused, t->refusals);
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
	groups[0] = '\0';
	used = 0;
	for (unsigned i = 0; i < t->ngroups && used + 40 < sizeof(groups); i++) {
		/* a group of one is its refusal, word for word */
		int n = g[i].count == 1 ? snprintf(groups + used, sizeof(groups) - used, "%s%s %s",
						   i ? "; " : "", g[i].example, g[i].why)
					: snprintf(groups + used, sizeof(groups) - used,
						   "%s%s %s (e.g. %s)", i ? "; " : "",
						   hooks_num(g[i].count, c, sizeof(c)), g[i].key,
						   g[i].example);

		if (n < 0 || (size_t)n >= sizeof(groups) - used) {
			snprintf(groups + used, sizeof(groups) - used, "; ...");
			break;
		}
		used += (size_t)n;
	}
	snprintf(line, len, "hooked %s/%s%s%s; refused %s: %s", hooks_num(t->hooked, a, sizeof(a)),
		 hooks_num(t->tried, b, sizeof(b)), where, hooks_limited(t) ? ": the limit" : "",
		 hooks_num(t->refused, c, sizeof(c)), groups);
}
