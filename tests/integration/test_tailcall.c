// SPDX-License-Identifier: MIT
/*
 * Matrix case "tailcall" (tests/targets/tailcall.c): hooked functions that
 * leave by a jmp into other hooked functions (at -O2 and -O3; calls at -O0),
 * and a 200000-long mutual tail recursion.  Each tail-called activation is
 * an evaluation of its own; re-entries while active are recursive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "harness.h"

#define HOOKS                                                                                      \
	"function:tc_a,function:tc_b,function:tc_c,function:tc_via,function:tc_even,function:tc_"  \
	"odd"

/* Whether the disassembly of @fn in @exe (objdump -d) has a jmp to @to. */
static int tail_jumps(const char *exe, const char *fn, const char *to)
{
	char *cmd, line[512], head[128], target[128];
	int in = 0, found = 0;
	FILE *p;

	snprintf(head, sizeof(head), "<%s>:", fn);
	snprintf(target, sizeof(target), "<%s>", to);
	if (asprintf(&cmd, "objdump -d --no-show-raw-insn '%s' 2>/dev/null", exe) < 0)
		return -1;
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, head))
			in = 1;
		else if (line[0] != ' ')
			in = 0; /* a blank line or the next function */
		if (in && strstr(line, "jmp") && strstr(line, target))
			found = 1;
	}
	pclose(p);
	return found;
}

/* The jumps where the compiler tail-calls; recursive = total - outer, none abandoned. */
static void tailcall_check(struct matrix_tally *t, const struct matrix_cell *c,
			   const struct matrix_pass *p, void *arg)
{
	int *jumping_cells = arg;
	int jumps =
		tail_jumps(p->exe, "tc_a", "tc_b") == 1 && tail_jumps(p->exe, "tc_b", "tc_c") == 1;

	*jumping_cells += jumps;
	/* gcc and clang both tail-call at -O2 and -O3 */
	if (c->opt >= 2)
		MX_EXPECT(t, c, jumps, "[tailcall %s] no jmp tc_b in tc_a: not a tail call",
			  c->name);
	for (int i = 0; i < 2; i++) {
		const char *fn = i ? "tc_odd" : "tc_even";
		long long outer = harness_tagged(p->hooked.err, "truth", fn);
		long long total = harness_tagged(p->hooked.err, "total", fn);

		MX_EXPECT(t, c, harness_decl_int(p->report, fn, "recursive") == total - outer,
			  "[tailcall %s] %s: recursive %lld, want %lld", c->name, fn,
			  harness_decl_int(p->report, fn, "recursive"), total - outer);
		MX_EXPECT(t, c, harness_decl_int(p->report, fn, "abandoned") == 0,
			  "[tailcall %s] %s: abandoned %lld", c->name, fn,
			  harness_decl_int(p->report, fn, "abandoned"));
	}
}

Test(tailcall, all_cells)
{
	static const struct matrix_case k = {
		.kase = "tailcall", .hooks = HOOKS, .status = 0, .hooked = 6, .truths = 6};
	int jumping_cells = 0;

	matrix_run_cells("tailcall", &k, tailcall_check, &jumping_cells);
	fprintf(stderr, "tailcall: %d cells tail-call with jmp\n", jumping_cells);
}
