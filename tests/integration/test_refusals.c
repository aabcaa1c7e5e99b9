// SPDX-License-Identifier: MIT
/*
 * Matrix case "refusals" (tests/targets/refusals.c): what the shim must
 * refuse, with its reason, in one line
 *
 *     extprof: hooked H/T; refused R: SYMBOL REASON; SYMBOL REASON ...
 *
 * and what it must hook although the first instructions need care
 * (rip-relative operands, a call, a jmp rel8, a jcc).  A refused function
 * runs unhooked: the program's output is the same.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

static const char *const hookable[] = {"rip_load",   "rip_lea",	    "rip_store", "rip_cmp",
				       "call_first", "icall_first", "jmp_first", "jcc_first",
				       "ret_last",   "mov_ret",	    "plain_c"};

/* The reason the shim gives for @fn in @cell ("" when it should hook it). */
static void refusal_reason(const char *fn, const struct matrix_cell *c, char *buf, size_t n)
{
	int endbr = c->cet ? 4 : 0;

	if (!strcmp(fn, "tiny4"))
		snprintf(buf, n, "is %d bytes", 4 + endbr);
	else if (!strcmp(fn, "ret_early"))
		snprintf(buf, n, "returns at +0x%x, inside the patched bytes", 2 + endbr);
	else if (!strcmp(fn, "loop_back"))
		snprintf(buf, n, "a jump at +0x%x lands inside the patched bytes", 8 + endbr);
	else if (!strcmp(fn, "endbr_back"))
		snprintf(buf, n, "a jump at +0xd lands inside the patched bytes");
	else if (!strcmp(fn, "jrcxz_first"))
		snprintf(buf, n, "cannot move 'jrcxz' at +0x%x", endbr);
	else
		buf[0] = '\0';
}

static const char *const refused[] = {"tiny4", "ret_early", "loop_back", "endbr_back",
				      "jrcxz_first"};

/* Each refusal alone: its line, word for word, and the program unchanged. */
Test(refusals, each_reason)
{
	struct matrix_tally t = {.test = "refusals reasons"};

	MATRIX_FOR_EACH_CELL(c)
	{
		char *exe = matrix_exe("refusals", c);
		const char *argv[] = {exe, NULL};
		struct run_result plain;

		matrix_run(argv, NULL, NULL, NULL, &plain);
		MX_EXPECT(&t, c, plain.status == 0, "[refusals %s] the target fails by itself",
			  c->name);
		for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			char *dir = matrix_tmpdir("ref", c), hooks[128], want[256], reason[128];
			struct run_result hooked;

			snprintf(hooks, sizeof(hooks), "function:%s", refused[i]);
			refusal_reason(refused[i], c, reason, sizeof(reason));
			snprintf(want, sizeof(want), "extprof: hooked 0/1; refused 1: %s %s",
				 refused[i], reason);
			matrix_run(argv, hooks, dir, NULL, &hooked);
			matrix_expect_same(&t, c, refused[i], &plain, &hooked);
			MX_EXPECT(&t, c, !strcmp(harness_hook_line(hooked.err), want),
				  "[refusals %s] want \"%s\", the shim said: %s", c->name, want,
				  hooked.err);
			harness_free(&hooked);
			harness_rmdir(dir);
		}
		harness_free(&plain);
		free(exe);
	}
	matrix_summary(&t);
}

/* The refusals' line, the hookable ones counted, the refused ones not. */
static void refusals_check(struct matrix_tally *t, const struct matrix_cell *c,
			   const struct matrix_pass *p, void *arg)
{
	(void)arg;
	MX_EXPECT(t, c,
		  !strncmp(harness_hook_line(p->hooked.err),
			   "extprof: hooked 11/16; refused 5: ", 34),
		  "[refusals %s] %s", c->name, p->hooked.err);
	for (size_t i = 0; i < sizeof(hookable) / sizeof(hookable[0]); i++) {
		long long want = harness_tagged(p->hooked.err, "truth", hookable[i]);
		long long got = harness_decl_int(p->report, hookable[i], "evaluations");

		MX_EXPECT(t, c, want == 40 && got == want,
			  "[refusals %s] %s: %lld evaluations, %lld calls", c->name, hookable[i],
			  got, want);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		MX_EXPECT(t, c, harness_decl_int(p->report, refused[i], "evaluations") <= 0,
			  "[refusals %s] %s was refused but has evaluations", c->name, refused[i]);
}

/* All at once: the refused ones run unhooked, the others are counted. */
Test(refusals, hooked_beside_refused)
{
	char hooks[1024] = "";
	const struct matrix_case k = {
		.kase = "refusals", .hooks = hooks, .status = -1, .truths = -1};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		snprintf(hooks + strlen(hooks), sizeof(hooks) - strlen(hooks), "%sfunction:%s",
			 i ? "," : "", refused[i]);
	for (size_t i = 0; i < sizeof(hookable) / sizeof(hookable[0]); i++)
		snprintf(hooks + strlen(hooks), sizeof(hooks) - strlen(hooks), ",function:%s",
			 hookable[i]);

	matrix_run_cells("refusals all", &k, refusals_check, NULL);
}
