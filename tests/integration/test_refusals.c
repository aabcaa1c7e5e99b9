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
		snprintf(buf, n, "is %d bytes%s, too short for the 5-byte jump to its stub",
			 4 + endbr, endbr ? " with its endbr64" : "");
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

/*
 * A short patch uses the padding before a function only where nothing but
 * a fall-through enters it, at an instruction boundary
 * (tests/targets/refusals.c, "pf_copy" to "ps_copy"): after a function
 * that falls through (glibc's __memmove_chk_* into __memmove_*) the jmp goes
 * at an instruction of the padding, and a fall-through is a counted call;
 * a padding a jump lands in, a symbol names, or too short, is refused.
 */
static void padding_check(struct matrix_tally *t, const struct matrix_cell *c,
			  const struct matrix_pass *p, void *arg)
{
	int endbr = c->cet ? 4 : 0;
	char line[1024];

	(void)arg;
	snprintf(line, sizeof(line),
		 "extprof: hooked 2/5; refused 3: "
		 "pj_copy a jump from pj_plus+0x%x lands inside the patched bytes, and a jump "
		 "from pj_into+0x%x lands in the padding before it; "
		 "pl_copy a jump from pl_plus+0x%x lands inside the patched bytes, and the symbol "
		 "pl_mark names the padding before it; "
		 "ps_copy a jump from ps_plus+0x%x lands inside the patched bytes, and the "
		 "padding before it is 3 bytes, less than a 5-byte jump",
		 7 + endbr, 3 + endbr, 7 + endbr, 7 + endbr);
	MX_EXPECT(t, c, !strcmp(harness_hook_line(p->hooked.err), line),
		  "[padding %s] want \"%s\", the shim said: %s", c->name, line, p->hooked.err);
	/*
	 * 40 calls each; the calls of pf_chk that pass run pf_copy's code, and
	 * the program counts them as its calls
	 */
	static const struct {
		const char *fn;
		long long more_than;
	} hooked[] = {{"pf_copy", 40}, {"pr_copy", 39}};

	for (size_t i = 0; i < sizeof(hooked) / sizeof(hooked[0]); i++) {
		long long want = harness_tagged(p->hooked.err, "truth", hooked[i].fn);
		long long got = harness_decl_int(p->report, hooked[i].fn, "evaluations");

		MX_EXPECT(t, c, want > hooked[i].more_than && got == want,
			  "[padding %s] %s: %lld evaluations, %lld calls", c->name, hooked[i].fn,
			  got, want);
	}
}

Test(refusals, padding)
{
	const struct matrix_case k = {
		.kase = "refusals",
		.hooks = "function:pf_copy,function:pr_copy,function:pj_copy,function:pl_copy,"
			 "function:ps_copy",
		.status = 0,
		.truths = -1,
	};

	matrix_run_cells("refusals padding", &k, padding_check, NULL);
}
